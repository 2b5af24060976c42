/**
 * The one service implementation. Both transports decode their request into
 * message form (domain/codec.ts), call a handler here in-process, and encode
 * what it returns; errors are ServiceErrors.
 */
import type { Message } from "../../domain/codec.ts";
import { ConvertedClusters } from "./converted_clusters.ts";
import { pageCursor, type PageRequest } from "../../domain/pagination.ts";

/** A list request of one namespace. */
type ListRequest = PageRequest & { namespace: string };
import { Code, ServiceError } from "../../domain/errors.ts";
import {
  clusterFromResource,
  clusterToResource,
  clusterWorkload,
  computeTemplateFromConfigMap,
  computeTemplateToConfigMap,
  referencedTemplates,
} from "../../domain/conversions.ts";
import { DEFAULT_LIMITS, type Limits } from "../../domain/limits.ts";
import {
  mergeUpdate,
  updatedResource,
  updatePaths,
  type UpdateRequest,
  updateViolations,
} from "../../domain/cluster_update.ts";
import { invalidArgument } from "../../domain/errors.ts";
import type { Logger } from "../../domain/log.ts";
import type { Caller } from "../auth/caller.ts";
import {
  AuthorizationError,
  type Resource,
  type Rule,
  type Verb,
} from "../auth/policy.ts";
import type { CallOptions, Orchestrator } from "../../domain/ports.ts";
import type {
  Cluster,
  ComputeTemplate,
  WatchClustersRequest,
} from "../../domain/types.ts";
import type { ClusterWatch } from "./cluster_watch.ts";
import {
  clusterAction,
  computeTemplateAction,
  missingTemplatesError,
  templateInUseError,
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
  /** Who calls, and what the policy lets them do. */
  caller: Caller;
}

/**
 * The answers of a server-streaming method, in order; the transport ends
 * the stream with return() when the client goes away. An error thrown by
 * next() ends the stream with that error.
 */
export class MessageStream {
  constructor(readonly messages: AsyncIterableIterator<Message>) {}
}

/** A unary method answers a message; a server-streaming one a stream. */
export type Handler = (
  request: Message,
  context: CallContext,
) => Promise<Message | MessageStream>;

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
  /** Upper bounds of what a request may ask for; DEFAULT_LIMITS when unset. */
  limits?: Limits;
  /** The clusters' messages, made once (shared with `watches`). */
  converted?: ConvertedClusters;
  /** WatchClusters' fan-out; without it (no cache) the method is refused. */
  watches?: ClusterWatch;
}

/** Writes of one UpdateCluster without an etag, when others keep winning. */
const UPDATE_ATTEMPTS = 5;

interface NamespacedName {
  namespace: string;
  name: string;
}

export function createHandlers(options: ServiceOptions): Handlers {
  const { orchestrator, clusterApiVersion } = options;
  const now = options.now ?? (() => new Date());
  const limits = options.limits ?? DEFAULT_LIMITS;
  // Sorted, so a merged list-all comes in the order Kubernetes lists in.
  const served = [...new Set(options.namespaces ?? [])].sort();
  const converted = options.converted ?? new ConvertedClusters();
  const { watches } = options;
  /**
   * Whole-list answers kept with the list they answer (frozen: the gateway
   * then keeps their JSON text too), so polling an unchanged list of
   * thousands encodes nothing again.
   */
  const answers = new WeakMap<readonly unknown[], Record<string, unknown>>();
  function answer<K extends string, T>(
    field: K,
    page: { items: T[]; nextPageToken: string },
  ): Record<K, T[]> & { nextPageToken: string } {
    type Answer = Record<K, T[]> & { nextPageToken: string };
    if (page.nextPageToken !== "" || !Object.isFrozen(page.items)) {
      return {
        [field]: page.items,
        nextPageToken: page.nextPageToken,
      } as Answer;
    }
    let kept = answers.get(page.items);
    if (kept === undefined) {
      kept = Object.freeze({ [field]: page.items, nextPageToken: "" });
      answers.set(page.items, kept);
    }
    return kept as Answer;
  }

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

  /**
   * The rules that let the caller do this here; PERMISSION_DENIED if
   * `--namespaces` or the policy forbids it. An empty namespace is left to
   * validation, which comes next and says it is required.
   */
  function permit(
    caller: Caller,
    action: string,
    verb: Verb,
    resource: Resource,
    namespace: string,
  ): Rule[] {
    checkServed(namespace, action);
    if (namespace === "") return [];
    return caller.authorize(action, verb, resource, namespace);
  }

  /**
   * The namespaces a list across namespaces covers: those both the policy
   * and `--namespaces` allow (undefined: all of them, one cluster-wide
   * list); PERMISSION_DENIED when that is none.
   */
  function listScope(
    caller: Caller,
    resource: Resource,
    action: string,
    verb: "list" | "watch" = "list",
  ): string[] | undefined {
    const allowed = caller.namespaces(verb, resource);
    const namespaces = allowed === "*"
      ? (served.length > 0 ? served : undefined)
      : allowed.filter((n) => served.length === 0 || served.includes(n));
    if (namespaces?.length === 0) {
      throw new AuthorizationError(
        "no-rule",
        `${action}: user "${caller.identity.user}" may ${verb} ${resource} in no namespace${
          served.length > 0 ? " this Corral serves" : ""
        }`,
      );
    }
    return namespaces;
  }

  /**
   * The images and host paths a cluster asks for, against the policy's
   * rules; PERMISSION_DENIED naming the field that asks for what is denied.
   */
  function admitClusterWorkload(
    caller: Caller,
    action: string,
    rules: Parameters<Caller["admit"]>[1],
    cluster: Cluster,
    verb?: Parameters<Caller["admit"]>[4],
  ): void {
    const workload = clusterWorkload(cluster);
    caller.admit(
      action,
      rules,
      {
        images: workload.images.map((i) => i.image),
        hostPath: workload.hostPaths.length > 0,
      },
      (denial) =>
        denial.reason === "host-path"
          ? workload.hostPaths[0]
          : workload.images.find((i) => i.image === denial.image)?.field ??
            "cluster",
      verb,
    );
  }

  async function createCluster(
    request: { cluster?: Cluster; namespace: string },
    { log, kube, caller }: CallContext,
  ): Promise<Cluster> {
    const action = clusterAction(
      "create",
      request.namespace,
      request.cluster?.name ?? "",
    );
    const rules = permit(
      caller,
      action,
      "create",
      "clusters",
      request.namespace,
    );
    // An authenticated caller's clusters are theirs: the user is filled in
    // when left empty, and may name no one else.
    const { identity } = caller;
    if (caller.authenticated && request.cluster && !request.cluster.user) {
      request = {
        ...request,
        cluster: { ...request.cluster, user: identity.user },
      };
    }
    validateCreateCluster(request, limits);
    const namespace = request.namespace;
    const cluster = { ...request.cluster!, namespace };
    if (caller.authenticated && cluster.user !== identity.user) {
      throw new AuthorizationError(
        "no-rule",
        `${action}: cluster.user: user "${identity.user}" may not create clusters for "${cluster.user}"`,
      );
    }
    admitClusterWorkload(caller, action, rules, cluster);
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
    { kube, caller }: CallContext,
  ): Promise<Cluster> {
    const action = clusterAction("get", request.namespace, request.name);
    permit(caller, action, "get", "clusters", request.namespace);
    validateClusterKey(request, action);
    const [resource, events] = await Promise.all([
      orchestrator.getCluster(request.namespace, request.name, kube),
      orchestrator.listClusterEvents(request.namespace, request.name, kube),
    ]);
    return converted.of(resource, events);
  }

  /** The clusters of one namespace, of several, or (undefined) of all. */
  async function listClusters(
    namespace: string | string[] | undefined,
    kube: CallOptions,
  ): Promise<Cluster[]> {
    if (Array.isArray(namespace)) {
      const lists = await Promise.all(
        namespace.map((ns) => listClusters(ns, kube)),
      );
      return lists.flat();
    }
    const [resources, events] = await Promise.all([
      orchestrator.listClusters(namespace, kube),
      orchestrator.listClusterEvents(namespace, undefined, kube),
    ]);
    return converted.list(resources, events) as Cluster[];
  }

  /**
   * UpdateCluster: read, merge, validate, write back with the read's
   * resourceVersion as the precondition. With an etag, a cluster that has
   * moved on is ABORTED, before the write or by it, and nothing changes;
   * without, a write that loses a race is redone on the fresh cluster, up to
   * UPDATE_ATTEMPTS times (client-go's RetryOnConflict, bounded).
   */
  async function updateCluster(
    request: UpdateRequest,
    { log, kube, caller }: CallContext,
  ): Promise<Cluster> {
    const { namespace, name } = request;
    const action = clusterAction("update", namespace, name);
    const rules = permit(caller, action, "update", "clusters", namespace);
    validateClusterKey(request, action);
    const { paths, violations } = updatePaths(request);
    if (violations.length > 0) throw invalidArgument(action, violations);
    const update = request.cluster!;
    const workers = paths.includes("cluster_spec.worker_group_spec");
    const stale = () =>
      new ServiceError(
        Code.ABORTED,
        `${action}: etag "${update.etag}" is not the cluster's current etag: get the cluster and try again`,
      );
    let templates: Map<string, ComputeTemplate> | undefined;
    for (let attempt = 1;; attempt++) {
      const resource = await orchestrator.getCluster(namespace, name, {
        ...kube,
        fresh: true,
      })
        .catch((error) => {
          // The read is the update's: a missing cluster is its failure.
          throw error instanceof ServiceError && error.code === Code.NOT_FOUND
            ? new ServiceError(Code.NOT_FOUND, `${action}: not found`, {
              cause: error,
            })
            : error;
        });
      if (
        update.etag !== "" && update.etag !== resource.metadata.resourceVersion
      ) {
        throw stale();
      }
      const current = clusterFromResource(resource, []);
      const merged = mergeUpdate(current, update, paths);
      const problems = updateViolations(
        current,
        merged,
        paths,
        namespace,
        limits,
      );
      if (problems.length > 0) throw invalidArgument(action, problems);
      if (workers) {
        const groups = {
          ...merged,
          clusterSpec: {
            workerGroupSpec: merged.clusterSpec?.workerGroupSpec ?? [],
          },
        };
        admitClusterWorkload(caller, action, rules, groups, "update");
      }
      if (workers && templates === undefined) {
        templates = await workerTemplates(merged, namespace, kube);
      }
      const next = updatedResource(
        resource,
        current,
        merged,
        paths,
        templates ?? new Map(),
      );
      try {
        const updated = await orchestrator.updateCluster(next, kube);
        log.info("Updated cluster", { namespace, name, paths });
        return clusterFromResource(updated, []);
      } catch (error) {
        if (!(error instanceof ServiceError) || error.code !== Code.ABORTED) {
          throw error;
        }
        if (update.etag !== "") throw stale();
        if (attempt >= UPDATE_ATTEMPTS) throw error;
      }
    }
  }

  /** The compute templates the worker groups name; FAILED_PRECONDITION for a missing one. */
  async function workerTemplates(
    cluster: Cluster,
    namespace: string,
    kube: CallOptions,
  ): Promise<Map<string, ComputeTemplate>> {
    const wanted = [
      ...new Set(
        (cluster.clusterSpec?.workerGroupSpec ?? []).map((g) =>
          g.computeTemplate
        )
          .filter((t) => t !== ""),
      ),
    ];
    const templates = new Map<string, ComputeTemplate>();
    if (wanted.length === 0) return templates;
    for (
      const configMap of await orchestrator.listComputeTemplates(
        namespace,
        wanted,
        kube,
      )
    ) {
      const template = computeTemplateFromConfigMap(configMap);
      templates.set(template.name, template);
    }
    const missing = wanted.filter((t) => !templates.has(t));
    if (missing.length > 0) {
      throw missingTemplatesError(cluster, namespace, missing, "update");
    }
    return templates;
  }

  async function deleteCluster(
    request: NamespacedName,
    { log, kube, caller }: CallContext,
  ): Promise<Record<string, never>> {
    const action = clusterAction("delete", request.namespace, request.name);
    permit(caller, action, "delete", "clusters", request.namespace);
    validateClusterKey(request, action);
    await orchestrator.deleteCluster(request.namespace, request.name, kube);
    log.info("Deleted cluster", { ...request });
    return {};
  }

  async function createComputeTemplate(
    request: { computeTemplate?: ComputeTemplate; namespace: string },
    { log, kube, caller }: CallContext,
  ): Promise<ComputeTemplate> {
    permit(
      caller,
      computeTemplateAction(
        "create",
        request.namespace,
        request.computeTemplate?.name ?? "",
      ),
      "create",
      "computetemplates",
      request.namespace,
    );
    validateCreateComputeTemplate(request, limits);
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
    { kube, caller }: CallContext,
  ): Promise<ComputeTemplate> {
    const action = computeTemplateAction(
      "get",
      request.namespace,
      request.name,
    );
    permit(caller, action, "get", "computetemplates", request.namespace);
    validateComputeTemplateKey(request, action);
    return computeTemplateFromConfigMap(
      await orchestrator.getComputeTemplate(
        request.namespace,
        request.name,
        kube,
      ),
    );
  }

  /** The templates of one namespace, of several, or (undefined) of all. */
  async function listComputeTemplates(
    namespace: string | string[] | undefined,
    kube: CallOptions,
  ): Promise<ComputeTemplate[]> {
    if (Array.isArray(namespace)) {
      const lists = await Promise.all(
        namespace.map((ns) => listComputeTemplates(ns, kube)),
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
    { log, kube, caller }: CallContext,
  ): Promise<Record<string, never>> {
    const action = computeTemplateAction(
      "delete",
      request.namespace,
      request.name,
    );
    permit(caller, action, "delete", "computetemplates", request.namespace);
    validateComputeTemplateKey(request, action);
    // Clusters keep the names of their templates (pod annotation
    // ray.io/compute-template); one list of the namespace's clusters finds
    // those that use this one. Kubernetes has no transaction across
    // objects, so a cluster created between this list and the delete still
    // slips through: the guard catches the common mistake, not a race. The
    // KubeRay API server has no such guard at all.
    const users = (await orchestrator.listClusters(request.namespace, kube))
      .map((resource) => clusterFromResource(resource, []))
      .filter((cluster) => referencedTemplates(cluster).includes(request.name))
      .map((cluster) => cluster.name);
    if (users.length > 0) {
      throw templateInUseError(request.namespace, request.name, users);
    }
    await orchestrator.deleteComputeTemplate(
      request.namespace,
      request.name,
      kube,
    );
    log.info("Deleted compute template", { ...request });
    return {};
  }

  /**
   * A stream of the clusters' changes from the cache (cluster_watch.ts):
   * one namespace, or every namespace the caller may watch.
   */
  function watchClusters(
    request: WatchClustersRequest,
    { caller }: CallContext,
  ): Promise<MessageStream> {
    const { namespace, name } = request;
    const action = namespace === ""
      ? "Cannot watch clusters"
      : `Cannot watch clusters in namespace "${namespace}"`;
    let namespaces: readonly string[] | undefined;
    if (namespace === "") {
      namespaces = listScope(caller, "clusters", action, "watch");
    } else {
      permit(caller, action, "watch", "clusters", namespace);
      validateNamespace(namespace, action);
      namespaces = [namespace];
    }
    if (name !== "") {
      validateClusterKey({ namespace: namespace || undefined, name }, action);
    }
    if (!watches) {
      throw new ServiceError(
        Code.UNIMPLEMENTED,
        `${action}: watching needs the cache, and this Corral runs without it (--cache off)`,
      );
    }
    const events = watches.watch({
      namespaces,
      name,
      resourceVersion: request.resourceVersion,
    });
    return Promise.resolve(
      new MessageStream(events as AsyncIterableIterator<Message>),
    );
  }

  // The requests arrive decoded against the proto, so their shapes hold.
  // deno-lint-ignore no-explicit-any
  const as = <T>(handler: (request: any, context: CallContext) => Promise<T>) =>
    handler as unknown as Handler;

  return {
    "proto.ClusterService/CreateCluster": as(createCluster),
    "proto.ClusterService/GetCluster": as(getCluster),
    "proto.ClusterService/ListCluster": as(
      async (request: ListRequest, { kube, caller }: CallContext) => {
        const action =
          `Cannot list clusters in namespace "${request.namespace}"`;
        permit(caller, action, "list", "clusters", request.namespace);
        validateNamespace(request.namespace, action);
        const cursor = pageCursor(
          request,
          `clusters/${request.namespace}`,
          action,
        );
        return answer(
          "clusters",
          cursor.page(await listClusters(request.namespace, kube)),
        );
      },
    ),
    "proto.ClusterService/ListAllClusters": as(
      async (request: PageRequest, { kube, caller }: CallContext) => {
        const action = "Cannot list clusters";
        const scope = listScope(caller, "clusters", action);
        const cursor = pageCursor(request, "clusters", action);
        return answer("clusters", cursor.page(await listClusters(scope, kube)));
      },
    ),
    "proto.ClusterService/UpdateCluster": as(updateCluster),
    "proto.ClusterService/DeleteCluster": as(deleteCluster),
    "proto.ClusterService/WatchClusters": as(watchClusters),
    "proto.ComputeTemplateService/CreateComputeTemplate": as(
      createComputeTemplate,
    ),
    "proto.ComputeTemplateService/GetComputeTemplate": as(getComputeTemplate),
    "proto.ComputeTemplateService/ListComputeTemplates": as(
      async (request: ListRequest, { kube, caller }: CallContext) => {
        const action =
          `Cannot list compute templates in namespace "${request.namespace}"`;
        permit(caller, action, "list", "computetemplates", request.namespace);
        validateNamespace(request.namespace, action);
        const cursor = pageCursor(
          request,
          `computetemplates/${request.namespace}`,
          action,
        );
        const { items, nextPageToken } = cursor.page(
          await listComputeTemplates(request.namespace, kube),
        );
        return { computeTemplates: items, nextPageToken };
      },
    ),
    "proto.ComputeTemplateService/ListAllComputeTemplates": as(
      async (request: PageRequest, { kube, caller }: CallContext) => {
        const action = "Cannot list compute templates";
        const scope = listScope(caller, "computetemplates", action);
        const cursor = pageCursor(request, "computetemplates", action);
        const { items, nextPageToken } = cursor.page(
          await listComputeTemplates(scope, kube),
        );
        return { computeTemplates: items, nextPageToken };
      },
    ),
    "proto.ComputeTemplateService/DeleteComputeTemplate": as(
      deleteComputeTemplate,
    ),
  };
}
