/**
 * The handlers of proto.RayServeService. The dispatcher has authorized
 * each call before it arrives here (its scope says where); a handler asks
 * the policy only about the cluster the service would run, which is
 * admitted exactly as a cluster's (Caller.admit on the same RayCluster
 * clusterToResource renders).
 */
import { Code, invalidArgument, ServiceError } from "../../domain/errors.ts";
import { referencedTemplates } from "../../domain/conversions.ts";
import type { PageRequest } from "../../domain/pagination.ts";
import type { CallOptions } from "../../domain/ports.ts";
import {
  serviceAsCluster,
  serviceCluster,
  serviceFromResource,
  serviceToResource,
} from "../../domain/service_conversions.ts";
import type { RayServiceResource } from "../../domain/service_resources.ts";
import {
  serviceUpdateViolations,
  serviceViolations,
  validateCreateService,
} from "../../domain/service_validation.ts";
import type {
  ComputeTemplate,
  CreateRayServiceRequest,
  DeleteRayServiceRequest,
  GetRayServiceRequest,
  ListAllRayServicesRequest,
  ListAllRayServicesResponse,
  ListRayServicesRequest,
  ListRayServicesResponse,
  RayService,
  UpdateRayServiceConfigsRequest,
  UpdateRayServiceRequest,
} from "../../domain/types.ts";
import {
  serviceConfigsViolations,
  withWorkerGroupUpdates,
} from "../../domain/service_configs.ts";
import { clusterUsage } from "../auth/quota.ts";
import { holdingOf } from "./quota_guard.ts";
import { summarizeWorkload } from "../auth/workload_summary.ts";
import { checkOwner, ownersOnly } from "../auth/owners.ts";
import { lookUpTemplates } from "./template_lookup.ts";
import { createWorkload, type WorkloadCreate } from "./workload_create.ts";
import { KINDS } from "../../domain/kinds.ts";
import type { CallContext, NamespaceScope, NamespacesScope } from "./rpcs.ts";
import {
  eachWithEvents,
  listedIn,
  listPage,
  type Namespaces,
  readToChange,
  type Service,
  withEvents,
} from "./service.ts";

type NamespaceCall = CallContext<NamespaceScope>;

export class RayServiceHandlers {
  constructor(private readonly service: Service) {}

  async createRayService(
    request: CreateRayServiceRequest,
    call: NamespaceCall,
  ): Promise<RayService> {
    return await createWorkload(
      this.service,
      this.#create,
      request.service,
      call,
    );
  }

  /** What a service's create is, of the steps every workload's goes through. */
  readonly #create: WorkloadCreate<RayService, RayServiceResource> = {
    kind: "services",
    field: "service",
    admittedAs: "service",
    what: "this service's cluster",
    validate: (service, { scope }) =>
      validateCreateService(
        { service, namespace: scope.namespace },
        this.service.limits,
      ),
    render: async (service, { kube, action }) => {
      const templates = await this.templatesOf(service, kube, action);
      const { resource, cluster } = serviceToResource(service, templates, {
        apiVersion: this.service.clusterApiVersion,
        now: this.service.now(),
      });
      // Admission sees the cluster the service runs.
      return { resource, workload: cluster };
    },
  };

  async getRayService(
    request: GetRayServiceRequest,
    { kube, scope }: NamespaceCall,
  ): Promise<RayService> {
    const [resource, events] = await withEvents(
      this.service.orchestrator.services,
      scope.namespace,
      request.name,
      kube,
    );
    return KINDS.services.message(resource, events);
  }

  listRayServices(
    request: ListRayServicesRequest,
    call: NamespaceCall,
  ): Promise<ListRayServicesResponse> {
    return this.#page(request, call);
  }

  listAllRayServices(
    request: ListAllRayServicesRequest,
    call: CallContext<NamespacesScope>,
  ): Promise<ListAllRayServicesResponse> {
    return this.#page(request, call);
  }

  /** A page of services, with how many there are in all (KubeRay's totalSize). */
  async #page(request: PageRequest, call: CallContext) {
    const page = await listPage(
      request,
      "services",
      call,
      (namespace) => this.servicesIn(namespace, call.kube),
    );
    return {
      services: page.items,
      totalSize: page.total,
      nextPageToken: page.nextPageToken,
    };
  }

  /**
   * UpdateRayService: the service sent whole (PUT), of which only the
   * Serve config and the worker groups' replicas and bounds may differ
   * from what is.
   */
  async updateRayService(
    request: UpdateRayServiceRequest,
    call: NamespaceCall,
  ): Promise<RayService> {
    const wanted = request.service;
    if (wanted == null) {
      throw invalidArgument(call.action, [{
        field: "service",
        description: "is required",
      }]);
    }
    checkKey(wanted, request, call.action);
    return await this.#update(call, request.name, () => wanted);
  }

  /**
   * UpdateRayServiceConfigs (KubeRay v0.6.0 to 1.0.0): the named worker
   * groups' replicas and bounds, changed as UpdateRayService changes them.
   */
  async updateRayServiceConfigs(
    request: UpdateRayServiceConfigsRequest,
    call: NamespaceCall,
  ): Promise<RayService> {
    const problems = serviceConfigsViolations(request);
    if (problems.length > 0) throw invalidArgument(call.action, problems);
    const updates = request.updateService?.workerGroupUpdateSpec ?? [];
    return await this.#update(call, request.name, (current) => {
      const { service, violations } = withWorkerGroupUpdates(current, updates);
      if (violations.length > 0) throw invalidArgument(call.action, violations);
      return service;
    });
  }

  /**
   * Changes the service `name` to what `want` makes of it as it stands:
   * read fresh, under the owners rule; only what the operator applies to a
   * running service may differ from what is; validated and admitted as a
   * create, then written with the read's resourceVersion as the
   * precondition (ABORTED when another write came between).
   */
  async #update(
    call: NamespaceCall,
    name: string,
    want: (current: RayService) => RayService,
  ): Promise<RayService> {
    const { log, kube, caller, scope, action, wrote } = call;
    const resource = await this.currentService(call, name);
    checkOwner(call, resource, {
      resource: "services",
      doing: "update a service",
    });
    const current = serviceFromResource(resource, []);
    const wanted = want(current);
    const problems = serviceUpdateViolations(current, wanted);
    if (problems.length > 0) throw invalidArgument(action, problems);
    const next = updatedService(resource, current, wanted);
    const merged = serviceFromResource(next, []);
    const violations = serviceViolations(
      { service: merged, namespace: scope.namespace },
      this.service.limits,
    );
    if (violations.length > 0) throw invalidArgument(action, violations);
    const cluster = serviceCluster(next);
    caller.admit(action, scope.rules, cluster, "update", "service");
    wrote?.(summarizeWorkload(cluster));
    const updated = await this.service.quotas.write(call, {
      holding: holdingOf(next),
      what: "this update",
      before: clusterUsage(resource.spec.rayClusterConfig),
      write: () => this.service.orchestrator.services.update(next, kube),
    });
    log.info("Updated service", { namespace: scope.namespace, name });
    return serviceFromResource(updated, []);
  }

  async deleteRayService(
    request: DeleteRayServiceRequest,
    call: NamespaceCall,
  ): Promise<Record<string, never>> {
    const { log, kube, scope } = call;
    if (ownersOnly(call, "services")) {
      checkOwner(call, await this.currentService(call, request.name), {
        resource: "services",
        doing: "delete a service",
      });
    }
    await this.service.orchestrator.services.delete(
      scope.namespace,
      request.name,
      kube,
    );
    log.info("Deleted service", {
      namespace: scope.namespace,
      name: request.name,
    });
    return {};
  }

  /** The service to change, read fresh; its absence is NOT_FOUND. */
  private async currentService(
    { kube, scope, action }: NamespaceCall,
    name: string,
  ): Promise<RayServiceResource> {
    return await readToChange(
      action,
      this.service.orchestrator.services.get(scope.namespace, name, {
        ...kube,
        fresh: true,
      }),
    );
  }

  /**
   * The compute templates the service's cluster names, by name, from its
   * namespace; FAILED_PRECONDITION naming those that are missing.
   */
  private async templatesOf(
    service: RayService,
    kube: CallOptions,
    action: string,
  ): Promise<Map<string, ComputeTemplate>> {
    const { templates, missing } = await lookUpTemplates(
      this.service.orchestrator,
      service.namespace,
      referencedTemplates(serviceAsCluster(service)),
      kube,
    );
    if (missing.length > 0) {
      const names = missing.map((name) => `"${name}"`).join(", ");
      const noun = missing.length === 1
        ? "compute template"
        : "compute templates";
      throw new ServiceError(
        Code.FAILED_PRECONDITION,
        `${action}: ${noun} ${names} not found in namespace "${service.namespace}"`,
      );
    }
    return templates;
  }

  /** The services of one namespace, of several, or (undefined) of all. */
  private servicesIn(namespace: Namespaces, kube: CallOptions) {
    return listedIn(
      this.service.orchestrator.services,
      namespace,
      kube,
      (resources, events) =>
        eachWithEvents(resources, events, KINDS.services.message),
    );
  }
}

/** A body's name and namespace, when set, must be the path's. */
function checkKey(
  service: RayService,
  request: UpdateRayServiceRequest,
  action: string,
): void {
  const violations = [];
  if (service.name !== "" && service.name !== request.name) {
    violations.push({
      field: "service.name",
      description:
        `must be empty or equal the request's name "${request.name}"`,
    });
  }
  if (service.namespace !== "" && service.namespace !== request.namespace) {
    violations.push({
      field: "service.namespace",
      description:
        `must be empty or equal the request's namespace "${request.namespace}"`,
    });
  }
  if (violations.length > 0) throw invalidArgument(action, violations);
}

/**
 * The RayService `resource` becomes: the wanted Serve config, and each
 * worker group's replicas and bounds (as clusterToResource writes them:
 * unset bounds are the replicas); every other field as it is.
 */
function updatedService(
  resource: RayServiceResource,
  current: RayService,
  wanted: RayService,
): RayServiceResource {
  const groups = wanted.clusterSpec?.workerGroupSpec ??
    current.clusterSpec?.workerGroupSpec ?? [];
  const config = resource.spec.rayClusterConfig;
  const workerGroupSpecs = (config.workerGroupSpecs ?? []).map((group, i) => {
    const want = groups[i];
    if (want === undefined) return group;
    return {
      ...group,
      replicas: want.replicas,
      minReplicas: want.minReplicas ?? want.replicas,
      maxReplicas: want.maxReplicas ?? want.replicas,
    };
  });
  return {
    ...resource,
    spec: {
      ...resource.spec,
      serveConfigV2: wanted.serveConfig_V2,
      rayClusterConfig: { ...config, workerGroupSpecs },
    },
  };
}
