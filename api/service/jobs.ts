/**
 * The handlers of proto.RayJobService. The dispatcher has authorized each
 * call (verb on `jobs` in the namespace) before it arrives here. A job's
 * own cluster goes through what a cluster's create goes through (its
 * compute templates, validation, clusterToResource); the RayJob written,
 * its own cluster and its submitter pod, goes through the workload
 * admission (Caller.admit) as a RayCluster does. A job on an existing
 * cluster needs `update` on that cluster, owners rule included, since it
 * runs code there.
 */
import type { CallOptions } from "../../domain/ports.ts";
import { Code, invalidArgument, ServiceError } from "../../domain/errors.ts";
import {
  clusterToResource,
  referencedTemplates,
} from "../../domain/conversions.ts";
import {
  CLUSTER_SELECTOR_KEY,
  jobCluster,
  jobFromResource,
  jobToResource,
  type RayJobResource,
} from "../../domain/job_conversions.ts";
import { jobViolations } from "../../domain/job_validation.ts";
import type { PageRequest } from "../../domain/pagination.ts";
import type { RayCluster } from "../../domain/resources.ts";
import type {
  CreateRayJobRequest,
  DeleteRayJobRequest,
  GetRayJobRequest,
  ListAllRayJobsRequest,
  ListAllRayJobsResponse,
  ListRayJobsRequest,
  ListRayJobsResponse,
  RayJob,
  UpdateRayJobRequest,
} from "../../domain/types.ts";
import {
  eachWithEvents,
  listedIn,
  listPage,
  type Namespaces,
  type Service,
  withEvents,
} from "./service.ts";
import { checkOwner, ownersOnly } from "../auth/owners.ts";
import { lookUpTemplates } from "./template_lookup.ts";
import { createWorkload, type WorkloadCreate } from "./workload_create.ts";
import { KINDS } from "../../domain/kinds.ts";
import type { CallContext, NamespaceScope, NamespacesScope } from "./rpcs.ts";
import { jobUpdateViolations, queuedResumeRefusal } from "./job_update.ts";
import { checkSelectedCluster } from "./selected_cluster.ts";

type NamespaceCall = CallContext<NamespaceScope>;

export class JobHandlers {
  constructor(private readonly service: Service) {}

  async createRayJob(
    request: CreateRayJobRequest,
    call: NamespaceCall,
  ): Promise<RayJob> {
    return await createWorkload(
      this.service,
      this.#create,
      request.job,
      call,
    );
  }

  /** What a job's create is, of the steps every workload's goes through. */
  readonly #create: WorkloadCreate<RayJob, RayJobResource> = {
    kind: "jobs",
    field: "job",
    // Its own cluster, if it brings one, and its submitter pod.
    what: "this job",
    validate: (job, { scope, action }) => {
      const violations = jobViolations(
        { job, namespace: scope.namespace },
        this.service.limits,
      );
      if (violations.length > 0) throw invalidArgument(action, violations);
    },
    queueable,
    expires: (job) => job.clusterSpec !== undefined,
    render: async (job, call) => {
      const rayClusterSpec = job.clusterSpec
        ? (await this.ownCluster(job, call)).spec
        : undefined;
      if (!rayClusterSpec) {
        await checkSelectedCluster(
          this.service.orchestrator,
          job.clusterSelector[CLUSTER_SELECTOR_KEY],
          `job.clusterSelector["${CLUSTER_SELECTOR_KEY}"]`,
          call,
        );
      }
      // The whole RayJob: its own cluster's pods and its submitter pod,
      // which runs in the namespace whichever cluster the job chose.
      const resource = jobToResource(job, job.namespace, {
        apiVersion: this.service.clusterApiVersion,
        rayClusterSpec,
      });
      return { resource, workload: resource };
    },
  };

  /** GetRayJob: the job with its events (from the cache, as the job). */
  async getRayJob(
    request: GetRayJobRequest,
    { kube, scope }: NamespaceCall,
  ): Promise<RayJob> {
    const [resource, events] = await withEvents(
      this.service.orchestrator.jobs,
      scope.namespace,
      request.name,
      kube,
    );
    return KINDS.jobs.message(resource, events);
  }

  async listRayJobs(
    request: ListRayJobsRequest,
    call: NamespaceCall,
  ): Promise<ListRayJobsResponse> {
    const { items, nextPageToken } = await this.#page(request, call);
    return { jobs: items, nextPageToken, continue: nextPageToken };
  }

  async listAllRayJobs(
    request: ListAllRayJobsRequest,
    call: CallContext<NamespacesScope>,
  ): Promise<ListAllRayJobsResponse> {
    const { items, nextPageToken } = await this.#page(request, call);
    return { jobs: items, nextPageToken, continue: nextPageToken };
  }

  #page(request: PageRequest, call: CallContext) {
    return listPage(
      request,
      "jobs",
      call,
      (namespace) => this.jobsIn(namespace, call.kube),
    );
  }

  /**
   * UpdateRayJob: only `suspend` changes, and a job waiting in its queue
   * is resumed by Kueue only; read fresh, compared, written back with the
   * read's resourceVersion (a concurrent write is ABORTED, so a job Kueue
   * admitted or evicted since the read is not written over).
   */
  async updateRayJob(
    request: UpdateRayJobRequest,
    call: NamespaceCall,
  ): Promise<RayJob> {
    const { log, kube, scope, action } = call;
    const { namespace, name } = request;
    const current = await this.service.orchestrator.jobs.get(
      scope.namespace,
      name,
      { ...kube, fresh: true },
    );
    checkOwner(call, current, { resource: "jobs", doing: "update a job" });
    const violations = jobUpdateViolations(request, jobFromResource(current));
    if (violations.length > 0) throw invalidArgument(action, violations);
    const refusal = queuedResumeRefusal(request, current, action);
    if (refusal) throw refusal;
    const suspend = request.job!.suspend;
    const next: RayJobResource = {
      ...current,
      spec: { ...current.spec, suspend },
    };
    const updated = await this.service.orchestrator.jobs.update(next, kube);
    log.info("Updated job", { namespace, name, suspend });
    return jobFromResource(updated);
  }

  /** DeleteRayJob; under `owners: only`, of the caller's own jobs only. */
  async deleteRayJob(
    request: DeleteRayJobRequest,
    call: NamespaceCall,
  ): Promise<Record<string, never>> {
    const { log, kube, scope } = call;
    if (ownersOnly(call, "jobs")) {
      const current = await this.service.orchestrator.jobs.get(
        scope.namespace,
        request.name,
        { ...kube, fresh: true },
      );
      checkOwner(call, current, { resource: "jobs", doing: "delete a job" });
    }
    await this.service.orchestrator.jobs.delete(
      scope.namespace,
      request.name,
      kube,
    );
    log.info("Deleted job", { namespace: scope.namespace, name: request.name });
    return {};
  }

  /**
   * The RayCluster of a job's own cluster, rendered exactly as a cluster's
   * create: the same compute templates and clusterToResource. It is
   * admitted as the RayJob's spec.rayClusterSpec (createRayJob).
   */
  private async ownCluster(
    job: RayJob,
    call: NamespaceCall,
  ): Promise<RayCluster> {
    const { kube, scope, action } = call;
    const cluster = jobCluster(job, scope.namespace);
    const { templates, missing } = await lookUpTemplates(
      this.service.orchestrator,
      scope.namespace,
      referencedTemplates(cluster),
      kube,
    );
    if (missing.length > 0) {
      throw new ServiceError(
        Code.FAILED_PRECONDITION,
        `${action}: job.clusterSpec: compute ${
          missing.length === 1 ? "template" : "templates"
        } ${
          missing.map((n) => `"${n}"`).join(", ")
        } not found in namespace "${scope.namespace}"`,
      );
    }
    return clusterToResource(cluster, templates, {
      apiVersion: this.service.clusterApiVersion,
      now: this.service.now(),
    });
  }

  /** The jobs of one namespace, of several, or (undefined) of all. */
  private jobsIn(namespace: Namespaces, kube: CallOptions) {
    return listedIn(
      this.service.orchestrator.jobs,
      namespace,
      kube,
      (resources, events) =>
        eachWithEvents(resources, events, KINDS.jobs.message),
    );
  }
}

/**
 * Whether a job may wait in a queue: only one Kueue can hold (its own
 * cluster, deleted when it ends). A job on an existing cluster runs there
 * at once, as that cluster was admitted already; it may still name a queue
 * the policy allows.
 */
function queueable(job: RayJob): boolean {
  return job.clusterSpec !== undefined && job.shutdownAfterJobFinishes;
}
