/**
 * The one service implementation. Both transports decode their request into
 * message form (domain/codec.ts), call a handler here in-process, and encode
 * what it returns; errors are ServiceErrors.
 */
import type { Message } from "../../domain/codec.ts";
import { Code, ServiceError } from "../../domain/errors.ts";
import {
  clusterFromResource,
  clusterToResource,
  computeTemplateFromConfigMap,
  computeTemplateToConfigMap,
  eventsByCluster,
  namespacedName,
  referencedTemplates,
} from "../../domain/conversions.ts";
import type { Logger } from "../../domain/log.ts";
import type { CallOptions, Orchestrator } from "../../domain/ports.ts";
import type { Cluster, ComputeTemplate } from "../../domain/types.ts";
import {
  clusterAction,
  computeTemplateAction,
  missingTemplatesError,
  validateClusterKey,
  validateComputeTemplateKey,
  validateCreateCluster,
  validateCreateComputeTemplate,
  validateNamespace,
} from "../../domain/validation.ts";

/** What a handler knows of the call besides its request. */
export interface CallContext {
  log: Logger;
  /** Handed to every Kubernetes call the request causes. */
  kube: CallOptions;
}

export type Handler = (
  request: Message,
  context: CallContext,
) => Promise<Message>;

/** Handlers by method key, "proto.ClusterService/CreateCluster". */
export type Handlers = Record<string, Handler>;

export interface ServiceOptions {
  orchestrator: Orchestrator;
  /** apiVersion of the RayClusters written, e.g. "ray.io/v1". */
  clusterApiVersion: string;
  now?: () => Date;
  /**
   * The namespaces this Corral serves (a namespaced install); empty or
   * undefined serves every namespace. A request naming another namespace is
   * PERMISSION_DENIED before any Kubernetes call, and list-all lists each
   * served namespace (a namespaced Role forbids cluster-wide lists).
   */
  namespaces?: readonly string[];
}

interface NamespacedName {
  namespace: string;
  name: string;
}

export function createHandlers(options: ServiceOptions): Handlers {
  const { orchestrator, clusterApiVersion } = options;
  const now = options.now ?? (() => new Date());
  // Sorted, so a merged list-all comes in the order Kubernetes lists in.
  const served = [...new Set(options.namespaces ?? [])].sort();

  /**
   * PERMISSION_DENIED when `namespace` is not served. An empty namespace is
   * left to validation, which says it is required.
   */
  function checkServed(namespace: string, action: string): void {
    if (served.length === 0 || namespace === "") return;
    if (served.includes(namespace)) return;
    throw new ServiceError(
      Code.PERMISSION_DENIED,
      `${action}: namespace "${namespace}" is not served by this Corral (it serves ${
        served.map((n) => `"${n}"`).join(", ")
      })`,
    );
  }

  async function createCluster(
    request: { cluster?: Cluster; namespace: string },
    { log, kube }: CallContext,
  ): Promise<Cluster> {
    checkServed(
      request.namespace,
      clusterAction("create", request.namespace, request.cluster?.name ?? ""),
    );
    validateCreateCluster(request);
    const namespace = request.namespace;
    const cluster = { ...request.cluster!, namespace };
    const wanted = referencedTemplates(cluster);
    const templates = new Map<string, ComputeTemplate>();
    if (wanted.length > 0) {
      const found = await orchestrator.listComputeTemplates(
        namespace,
        wanted,
        kube,
      );
      for (const configMap of found) {
        const template = computeTemplateFromConfigMap(configMap);
        templates.set(template.name, template);
      }
      const missing = wanted.filter((name) => !templates.has(name));
      if (missing.length > 0) {
        throw missingTemplatesError(cluster, namespace, missing);
      }
    }
    const resource = clusterToResource(cluster, templates, {
      apiVersion: clusterApiVersion,
      now: now(),
    });
    const created = await orchestrator.createCluster(resource, kube);
    log.info("Created cluster", { namespace, name: cluster.name });
    return clusterFromResource(created, []);
  }

  async function getCluster(
    request: NamespacedName,
    { kube }: CallContext,
  ): Promise<Cluster> {
    const action = clusterAction("get", request.namespace, request.name);
    checkServed(request.namespace, action);
    validateClusterKey(request, action);
    const [resource, events] = await Promise.all([
      orchestrator.getCluster(request.namespace, request.name, kube),
      orchestrator.listClusterEvents(request.namespace, request.name, kube),
    ]);
    return clusterFromResource(resource, events);
  }

  async function listClusters(
    namespace: string | undefined,
    kube: CallOptions,
  ): Promise<Cluster[]> {
    if (namespace === undefined && served.length > 0) {
      const lists = await Promise.all(
        served.map((ns) => listClusters(ns, kube)),
      );
      return lists.flat();
    }
    const [resources, events] = await Promise.all([
      orchestrator.listClusters(namespace, kube),
      orchestrator.listClusterEvents(namespace, undefined, kube),
    ]);
    const byCluster = eventsByCluster(events);
    return resources.map((resource) =>
      clusterFromResource(
        resource,
        byCluster.get(
          namespacedName(
            resource.metadata.namespace ?? "",
            resource.metadata.name,
          ),
        ) ?? [],
      )
    );
  }

  async function deleteCluster(
    request: NamespacedName,
    { log, kube }: CallContext,
  ): Promise<Record<string, never>> {
    const action = clusterAction("delete", request.namespace, request.name);
    checkServed(request.namespace, action);
    validateClusterKey(request, action);
    await orchestrator.deleteCluster(request.namespace, request.name, kube);
    log.info("Deleted cluster", { ...request });
    return {};
  }

  async function createComputeTemplate(
    request: { computeTemplate?: ComputeTemplate; namespace: string },
    { log, kube }: CallContext,
  ): Promise<ComputeTemplate> {
    checkServed(
      request.namespace,
      computeTemplateAction(
        "create",
        request.namespace,
        request.computeTemplate?.name ?? "",
      ),
    );
    validateCreateComputeTemplate(request);
    const template = {
      ...request.computeTemplate!,
      namespace: request.namespace,
    };
    const created = await orchestrator.createComputeTemplate(
      computeTemplateToConfigMap(template),
      kube,
    );
    log.info("Created compute template", {
      namespace: template.namespace,
      name: template.name,
    });
    return computeTemplateFromConfigMap(created);
  }

  async function getComputeTemplate(
    request: NamespacedName,
    { kube }: CallContext,
  ): Promise<ComputeTemplate> {
    const action = computeTemplateAction(
      "get",
      request.namespace,
      request.name,
    );
    checkServed(request.namespace, action);
    validateComputeTemplateKey(request, action);
    return computeTemplateFromConfigMap(
      await orchestrator.getComputeTemplate(
        request.namespace,
        request.name,
        kube,
      ),
    );
  }

  async function listComputeTemplates(
    namespace: string | undefined,
    kube: CallOptions,
  ): Promise<ComputeTemplate[]> {
    if (namespace === undefined && served.length > 0) {
      const lists = await Promise.all(
        served.map((ns) => listComputeTemplates(ns, kube)),
      );
      return lists.flat();
    }
    const configMaps = await orchestrator.listComputeTemplates(
      namespace,
      undefined,
      kube,
    );
    return configMaps.map(computeTemplateFromConfigMap);
  }

  async function deleteComputeTemplate(
    request: NamespacedName,
    { log, kube }: CallContext,
  ): Promise<Record<string, never>> {
    const action = computeTemplateAction(
      "delete",
      request.namespace,
      request.name,
    );
    checkServed(request.namespace, action);
    validateComputeTemplateKey(request, action);
    await orchestrator.deleteComputeTemplate(
      request.namespace,
      request.name,
      kube,
    );
    log.info("Deleted compute template", { ...request });
    return {};
  }

  // The requests arrive decoded against the proto, so their shapes hold.
  // deno-lint-ignore no-explicit-any
  const as = <T>(handler: (request: any, context: CallContext) => Promise<T>) =>
    handler as unknown as Handler;

  return {
    "proto.ClusterService/CreateCluster": as(createCluster),
    "proto.ClusterService/GetCluster": as(getCluster),
    "proto.ClusterService/ListCluster": as(
      async (request: { namespace: string }, { kube }: CallContext) => {
        checkServed(
          request.namespace,
          `Cannot list clusters in namespace "${request.namespace}"`,
        );
        validateNamespace(
          request.namespace,
          `Cannot list clusters in namespace "${request.namespace}"`,
        );
        return { clusters: await listClusters(request.namespace, kube) };
      },
    ),
    "proto.ClusterService/ListAllClusters": as(
      async (_: unknown, { kube }: CallContext) => ({
        clusters: await listClusters(undefined, kube),
      }),
    ),
    "proto.ClusterService/DeleteCluster": as(deleteCluster),
    "proto.ComputeTemplateService/CreateComputeTemplate": as(
      createComputeTemplate,
    ),
    "proto.ComputeTemplateService/GetComputeTemplate": as(getComputeTemplate),
    "proto.ComputeTemplateService/ListComputeTemplates": as(
      async (request: { namespace: string }, { kube }: CallContext) => {
        checkServed(
          request.namespace,
          `Cannot list compute templates in namespace "${request.namespace}"`,
        );
        validateNamespace(
          request.namespace,
          `Cannot list compute templates in namespace "${request.namespace}"`,
        );
        return {
          computeTemplates: await listComputeTemplates(request.namespace, kube),
        };
      },
    ),
    "proto.ComputeTemplateService/ListAllComputeTemplates": as(
      async (_: unknown, { kube }: CallContext) => ({
        computeTemplates: await listComputeTemplates(undefined, kube),
      }),
    ),
    "proto.ComputeTemplateService/DeleteComputeTemplate": as(
      deleteComputeTemplate,
    ),
  };
}
