/**
 * The handlers of proto.ClusterService's unary RPCs (WatchClusters is in
 * watch.ts). The dispatcher has authorized each call before it arrives
 * here (its scope says where); a handler asks the policy only about what
 * the cluster would run (Caller.admit).
 */
import { Code, invalidArgument, ServiceError } from "../../domain/errors.ts";
import {
  clusterFromResource,
  clusterToResource,
  referencedTemplates,
} from "../../domain/conversions.ts";
import {
  mergeUpdate,
  updatedResource,
  updatePaths,
  updateViolations,
} from "../../domain/cluster_update.ts";
import type { PageRequest } from "../../domain/pagination.ts";
import type { CallOptions } from "../../domain/ports.ts";
import type { RayCluster } from "../../domain/resources.ts";
import type {
  Cluster,
  ComputeTemplate,
  CreateClusterRequest,
  DeleteClusterRequest,
  GetClusterRequest,
  ListAllClustersRequest,
  ListAllClustersResponse,
  ListClustersRequest,
  ListClustersResponse,
  UpdateClusterRequest,
} from "../../domain/types.ts";
import { validateCreateCluster } from "../../domain/cluster_validation.ts";
import { missingTemplatesError } from "../../domain/template_errors.ts";
import { summarizeWorkload } from "../auth/workload_summary.ts";
import { clusterUsage } from "../auth/quota.ts";
import { holdingOf } from "./quota_guard.ts";
import {
  clusterListAnswer,
  listedIn,
  listPage,
  type Namespaces,
  readToChange,
  type Service,
  withEvents,
} from "./service.ts";
import { checkOwner, type OwnerCheck, ownersOnly } from "../auth/owners.ts";
import { lookUpTemplates } from "./template_lookup.ts";
import { createWorkload, type WorkloadCreate } from "./workload_create.ts";
import type { CallContext, NamespaceScope, NamespacesScope } from "./rpcs.ts";

/** Writes of one UpdateCluster without an etag, when others keep winning. */
const UPDATE_ATTEMPTS = 5;

type NamespaceCall = CallContext<NamespaceScope>;

export class ClusterHandlers {
  constructor(private readonly service: Service) {}

  async createCluster(
    request: CreateClusterRequest,
    call: NamespaceCall,
  ): Promise<Cluster> {
    return await createWorkload(
      this.service,
      this.#create,
      request.cluster,
      call,
    );
  }

  /** What a cluster's create is, of the steps every workload's goes through. */
  readonly #create: WorkloadCreate<Cluster, RayCluster> = {
    kind: "clusters",
    field: "cluster",
    what: "this cluster",
    validate: (cluster, { scope }) =>
      validateCreateCluster(
        { cluster, namespace: scope.namespace },
        this.service.limits,
      ),
    render: async (cluster, { kube }) => {
      const templates = await this.templatesOf(
        cluster,
        referencedTemplates(cluster),
        kube,
        "create",
      );
      const resource = clusterToResource(cluster, templates, {
        apiVersion: this.service.clusterApiVersion,
        now: this.service.now(),
      });
      return { resource, workload: resource };
    },
  };

  async getCluster(
    request: GetClusterRequest,
    { kube, scope }: NamespaceCall,
  ): Promise<Cluster> {
    const [resource, events] = await withEvents(
      this.service.orchestrator.clusters,
      scope.namespace,
      request.name,
      kube,
    );
    return this.service.converted.of(resource, events);
  }

  async listCluster(
    request: ListClustersRequest,
    call: NamespaceCall,
  ): Promise<ListClustersResponse> {
    return clusterListAnswer(await this.#page(request, call));
  }

  async listAllClusters(
    request: ListAllClustersRequest,
    call: CallContext<NamespacesScope>,
  ): Promise<ListAllClustersResponse> {
    return clusterListAnswer(await this.#page(request, call));
  }

  #page(request: PageRequest, call: CallContext) {
    return listPage(
      request,
      "clusters",
      call,
      (namespace) => this.clustersIn(namespace, call.kube),
    );
  }

  /**
   * UpdateCluster: read, merge, validate, write back with the read's
   * resourceVersion as the precondition. With an etag, a cluster that has
   * moved on is ABORTED, before the write or by it, and nothing changes;
   * without, a write that loses a race is redone on the fresh cluster, up
   * to UPDATE_ATTEMPTS times (client-go's RetryOnConflict, bounded).
   */
  async updateCluster(
    request: UpdateClusterRequest,
    call: NamespaceCall,
  ): Promise<Cluster> {
    const { log, action } = call;
    const { namespace, name } = request;
    const { paths, violations } = updatePaths(request);
    if (violations.length > 0) throw invalidArgument(action, violations);
    const etag = request.cluster!.etag;
    let templates: Map<string, ComputeTemplate> | undefined;
    for (let attempt = 1;; attempt++) {
      const resource = await this.currentCluster(call, name);
      checkOwner(call, resource, UPDATE_CLUSTER);
      if (etag !== "" && etag !== resource.metadata.resourceVersion) {
        throw staleEtag(action, etag);
      }
      const next = await this.updated(request, paths, resource, call, {
        get: () => templates,
        set: (found) => templates = found,
      });
      try {
        const updated = await this.service.quotas.write(call, {
          holding: holdingOf(next),
          what: "this update",
          before: clusterUsage(resource.spec),
          write: () =>
            this.service.orchestrator.clusters.update(next, call.kube),
        });
        log.info("Updated cluster", { namespace, name, paths });
        return clusterFromResource(updated, []);
      } catch (error) {
        if (!(error instanceof ServiceError) || error.code !== Code.ABORTED) {
          throw error;
        }
        if (etag !== "") throw staleEtag(action, etag);
        if (attempt >= UPDATE_ATTEMPTS) throw error;
      }
    }
  }

  async deleteCluster(
    request: DeleteClusterRequest,
    call: NamespaceCall,
  ): Promise<Record<string, never>> {
    const { log, kube, scope } = call;
    if (ownersOnly(call, "clusters")) {
      checkOwner(
        call,
        await this.currentCluster(call, request.name),
        DELETE_CLUSTER,
      );
    }
    await this.service.orchestrator.clusters.delete(
      scope.namespace,
      request.name,
      kube,
    );
    log.info("Deleted cluster", {
      namespace: scope.namespace,
      name: request.name,
    });
    return {};
  }

  /** The cluster to update, read fresh; its absence is the update's NOT_FOUND. */
  private async currentCluster(
    { kube, scope, action }: NamespaceCall,
    name: string,
  ): Promise<RayCluster> {
    return await readToChange(
      action,
      this.service.orchestrator.clusters.get(scope.namespace, name, {
        ...kube,
        fresh: true,
      }),
    );
  }

  /**
   * The RayCluster `resource` becomes with the update merged in: validated,
   * its workload admitted, and the worker groups' templates looked up once
   * per update (`templates` keeps them across attempts).
   */
  private async updated(
    request: UpdateClusterRequest,
    paths: string[],
    resource: RayCluster,
    { kube, caller, scope, action, wrote }: NamespaceCall,
    templates: {
      get(): Map<string, ComputeTemplate> | undefined;
      set(found: Map<string, ComputeTemplate>): void;
    },
  ): Promise<RayCluster> {
    const current = clusterFromResource(resource, []);
    const merged = mergeUpdate(current, request.cluster!, paths);
    const problems = updateViolations(
      current,
      merged,
      paths,
      scope.namespace,
      this.service.limits,
    );
    if (problems.length > 0) throw invalidArgument(action, problems);
    const workers = paths.includes("cluster_spec.worker_group_spec");
    if (workers && templates.get() === undefined) {
      const wanted = (merged.clusterSpec?.workerGroupSpec ?? [])
        .map((group) => group.computeTemplate);
      templates.set(await this.templatesOf(merged, wanted, kube, "update"));
    }
    const next = updatedResource(
      resource,
      current,
      merged,
      paths,
      templates.get() ?? new Map(),
    );
    // The whole RayCluster as it will be, not only the fields the mask
    // names: what the pods carry is decided on each write.
    caller.admit(action, scope.rules, next, "update");
    wrote?.(summarizeWorkload(next, paths));
    return next;
  }

  /**
   * The compute templates `names` (a cluster's), by name, from the
   * cluster's namespace; FAILED_PRECONDITION naming those that are missing.
   */
  private async templatesOf(
    cluster: Cluster,
    names: string[],
    kube: CallOptions,
    verb: "create" | "update",
  ): Promise<Map<string, ComputeTemplate>> {
    const { templates, missing } = await lookUpTemplates(
      this.service.orchestrator,
      cluster.namespace,
      names,
      kube,
    );
    if (missing.length > 0) {
      throw missingTemplatesError(cluster, cluster.namespace, missing, verb);
    }
    return templates;
  }

  /** The clusters of one namespace, of several, or (undefined) of all. */
  private clustersIn(namespace: Namespaces, kube: CallOptions) {
    const { orchestrator, converted } = this.service;
    return listedIn(
      orchestrator.clusters,
      namespace,
      kube,
      (resources, events) => converted.list(resources, events) as Cluster[],
    );
  }
}

/** What the owner rule says a cluster's update and delete are (owners.ts). */
export const UPDATE_CLUSTER: OwnerCheck = {
  resource: "clusters",
  doing: "update a cluster",
};
const DELETE_CLUSTER: OwnerCheck = {
  resource: "clusters",
  doing: "delete a cluster",
};

function staleEtag(action: string, etag: string): ServiceError {
  return new ServiceError(
    Code.ABORTED,
    `${action}: etag "${etag}" is not the cluster's current etag: get the cluster and try again`,
  );
}
