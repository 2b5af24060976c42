/**
 * The Orchestrator (domain/ports.ts) on @kubernetes/client-node: RayClusters
 * through CustomObjectsApi, compute-template ConfigMaps and Events through
 * CoreV1Api. Every method makes O(1) calls; lists select on the server with
 * label and field selectors. Kubernetes failures are translated here, once,
 * into ServiceError (translateKubernetesError); client-node's ApiException
 * (whose message dumps response headers) is kept only as the cause.
 */

import type {
  ConfigurationOptions,
  CoreV1Api,
  CustomObjectsApi,
  VersionApi,
} from "@kubernetes/client-node";
import { Code, ServiceError } from "../domain/errors.ts";
import { isLabelValue } from "../domain/kubernetes_names.ts";
import type {
  CallOptions,
  KubernetesCallRecord,
  Orchestrator,
} from "../domain/ports.ts";
import {
  COMPUTE_TEMPLATE_SELECTOR,
  isComputeTemplate,
  isManagedCluster,
  LABEL,
  MANAGED_CLUSTER_SELECTOR,
} from "../domain/resources.ts";
import type { ConfigMap, RayCluster } from "../domain/resources.ts";
import { callOptionsFactory } from "./client_options.ts";
import {
  type KubernetesCall,
  KubernetesTimeoutError,
  translateKubernetesError,
} from "./errors.ts";
import { asConfigMap, asEvent, configMapBody } from "./json.ts";

// ---------------------------------------------------------------------------
// The narrow port to client-node

/** The CustomObjectsApi methods the orchestrator calls. */
export type CustomObjectsPort = Pick<
  CustomObjectsApi,
  | "createNamespacedCustomObject"
  | "getNamespacedCustomObject"
  | "listNamespacedCustomObject"
  | "listClusterCustomObject"
  | "deleteNamespacedCustomObject"
  | "replaceNamespacedCustomObject"
>;

/** The CoreV1Api methods the orchestrator calls. */
export type CoreV1Port = Pick<
  CoreV1Api,
  | "createNamespacedConfigMap"
  | "readNamespacedConfigMap"
  | "listNamespacedConfigMap"
  | "listConfigMapForAllNamespaces"
  | "deleteNamespacedConfigMap"
  | "listNamespacedEvent"
  | "listEventForAllNamespaces"
>;

/** The VersionApi method the readiness ping calls. */
export type VersionPort = Pick<VersionApi, "getCode">;

export interface KubernetesClients {
  customObjects: CustomObjectsPort;
  core: CoreV1Port;
  version: VersionPort;
}

/**
 * Where RayClusters live: settings, for operators that serve the resource
 * under another group or version (docs/design.md, "Kubernetes mapping").
 */
export interface RayClusterCoordinates {
  group: string;
  version: string;
  plural: string;
}

const DEFAULT_TIMEOUT_MS = 10_000;

// ---------------------------------------------------------------------------
// Implementation

const CODE_NAMES = new Map<number, string>(
  Object.entries(Code).map(([name, code]) => [code, name]),
);

function codeName(code: number | undefined): string {
  return CODE_NAMES.get(code ?? Code.UNKNOWN) ?? "UNKNOWN";
}

/**
 * How long to wait before retry `attempt` + 1: the Retry-After Kubernetes
 * asked for (RetryInfo), else a growing delay with jitter; undefined when
 * the wait would be too long to be worth it.
 */
function retryWait(
  error: ServiceError,
  attempt: number,
  baseMs: number,
): number | undefined {
  for (const detail of error.details ?? []) {
    if (detail["@type"] === "type.googleapis.com/google.rpc.RetryInfo") {
      const ms = parseFloat(detail.retryDelay) * 1000;
      return ms <= MAX_RETRY_WAIT_MS ? ms : undefined;
    }
  }
  const delay = baseMs * 3 ** (attempt - 1);
  return delay / 2 + Math.random() * delay / 2;
}

/** Resolves after `ms`, or rejects with the signal's reason when aborted. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function observe(
  options: CallOptions,
  description: KubernetesCall,
  resource: string,
  outcome: string,
  started: number,
): void {
  const record: KubernetesCallRecord = {
    verb: description.verb,
    resource,
    outcome,
    seconds: (performance.now() - started) / 1000,
  };
  options.observe?.(record);
}

function qualified(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** How the orchestrator calls: time limit per attempt, read attempts. */
export interface CallPolicy {
  timeoutMs?: number;
  readAttempts?: number;
  /** First retry delay; later ones grow threefold, with jitter. */
  retryDelayMs?: number;
}

const DEFAULT_READ_ATTEMPTS = 3;
const DEFAULT_RETRY_DELAY_MS = 100;
/** A Retry-After longer than this is not waited for: the caller is told. */
const MAX_RETRY_WAIT_MS = 2_000;

/** The orchestrator on the given clients: the seam the tests exercise. */
export function orchestratorOnClients(
  clients: KubernetesClients,
  rayCluster: RayClusterCoordinates,
  policy: CallPolicy = {},
): Orchestrator {
  const { customObjects, core } = clients;
  const { group, version, plural } = rayCluster;
  const timeoutMs = policy.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const readAttempts = Math.max(
    1,
    policy.readAttempts ?? DEFAULT_READ_ATTEMPTS,
  );
  const retryDelayMs = policy.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  const callOptions = callOptionsFactory();

  /**
   * One Kubernetes call: time-limited, cancelled with the caller, observed,
   * its failure translated. Reads (get, list) are retried while the API is
   * unavailable (network, 5xx, 429), a bounded number of times with a
   * growing delay; creates, deletes and updates never are, since a lost
   * answer does not say whether the write happened.
   */
  async function call<T>(
    description: KubernetesCall,
    resource: string,
    run: (options: ConfigurationOptions) => Promise<T>,
    options: CallOptions = {},
  ): Promise<T> {
    const retryable = description.verb === "get" || description.verb === "list";
    for (let attempt = 1;; attempt++) {
      const started = performance.now();
      let outcome = "ok";
      try {
        return await attemptOnce(description, run, options.signal);
      } catch (error) {
        const failure = error as ServiceError;
        outcome = codeName(failure.code);
        const delay = retryWait(failure, attempt, retryDelayMs);
        if (
          !retryable || attempt >= readAttempts ||
          failure.code !== Code.UNAVAILABLE || delay === undefined ||
          options.signal?.aborted
        ) throw failure;
        observe(options, description, resource, outcome, started);
        outcome = "";
        await sleep(delay, options.signal).catch((reason) => {
          throw reason instanceof ServiceError ? reason : new ServiceError(
            Code.CANCELLED,
            `${description.action}: the request was cancelled`,
          );
        });
      } finally {
        if (outcome) observe(options, description, resource, outcome, started);
      }
    }
  }

  async function attemptOnce<T>(
    description: KubernetesCall,
    run: (options: ConfigurationOptions) => Promise<T>,
    callerSignal: AbortSignal | undefined,
  ): Promise<T> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = callerSignal
      ? AbortSignal.any([timeout, callerSignal])
      : timeout;
    try {
      callerSignal?.throwIfAborted();
      return await run(callOptions(signal));
    } catch (error) {
      if (callerSignal?.aborted) {
        throw callerSignal.reason instanceof ServiceError
          ? callerSignal.reason
          : new ServiceError(
            Code.CANCELLED,
            `${description.action}: the request was cancelled`,
            { cause: error },
          );
      }
      const failure = timeout.aborted
        ? Object.assign(new KubernetesTimeoutError(timeoutMs), { cause: error })
        : error;
      throw translateKubernetesError(failure, description);
    }
  }

  const clusterCall = (
    verb: KubernetesCall["verb"],
    namespace: string,
    name: string,
  ): KubernetesCall => ({
    action: `Cannot ${verb} cluster "${qualified(namespace, name)}"`,
    verb,
    noun: "cluster",
  });
  const templateCall = (
    verb: KubernetesCall["verb"],
    namespace: string,
    name: string,
  ): KubernetesCall => ({
    action: `Cannot ${verb} compute template "${qualified(namespace, name)}"`,
    verb,
    noun: "compute template",
  });
  const notFound = (description: KubernetesCall) =>
    new ServiceError(Code.NOT_FOUND, `${description.action}: not found`);

  async function readManagedCluster(
    description: KubernetesCall,
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<RayCluster> {
    // A read, whatever the caller's action: observed and retried as a get.
    const cluster: RayCluster = await call(
      { ...description, verb: "get" },
      plural,
      (config) =>
        customObjects.getNamespacedCustomObject(
          { group, version, namespace, plural, name },
          config,
        ),
      options,
    );
    // A RayCluster Corral (or the KubeRay API server) does not manage is
    // someone else's: as far as callers can tell, it does not exist.
    if (!isManagedCluster(cluster)) throw notFound(description);
    return cluster;
  }

  async function readTemplate(
    description: KubernetesCall,
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<ConfigMap> {
    const configMap = asConfigMap(
      await call(
        { ...description, verb: "get" },
        "configmaps",
        (config) => core.readNamespacedConfigMap({ namespace, name }, config),
        options,
      ),
    );
    if (!isComputeTemplate(configMap)) throw notFound(description);
    return configMap;
  }

  return {
    createCluster(cluster, options) {
      const namespace = cluster.metadata.namespace ?? "";
      return call(
        clusterCall("create", namespace, cluster.metadata.name),
        plural,
        (config) =>
          customObjects.createNamespacedCustomObject(
            { group, version, namespace, plural, body: cluster },
            config,
          ),
        options,
      );
    },

    getCluster(namespace, name, options) {
      return readManagedCluster(
        clusterCall("get", namespace, name),
        namespace,
        name,
        options,
      );
    },

    async listClusters(namespace, options) {
      const description: KubernetesCall = {
        action: namespace === undefined
          ? "Cannot list clusters"
          : `Cannot list clusters in namespace "${namespace}"`,
        verb: "list",
        noun: "cluster",
      };
      const labelSelector = MANAGED_CLUSTER_SELECTOR;
      const list: { items?: RayCluster[] } = await call(
        description,
        plural,
        (config) =>
          namespace === undefined
            ? customObjects.listClusterCustomObject(
              { group, version, plural, labelSelector },
              config,
            )
            : customObjects.listNamespacedCustomObject(
              { group, version, namespace, plural, labelSelector },
              config,
            ),
        options,
      );
      return list.items ?? [];
    },

    updateCluster(cluster, options) {
      const namespace = cluster.metadata.namespace ?? "";
      const name = cluster.metadata.name;
      // An update (PUT) of the whole object rather than a patch: its
      // metadata.resourceVersion is a precondition the API server checks
      // atomically (409 Conflict -> ABORTED when another write came
      // between), which is the etag check of UpdateCluster for free, and
      // the object sent is exactly the one validated and converted from
      // what was read, with every label, annotation and field others set
      // kept. A JSON merge patch would replace the container lists whole
      // anyway (envs live in every container's env list), and a strategic
      // merge patch is not served for custom resources.
      return call(
        clusterCall("update", namespace, name),
        plural,
        (config) =>
          customObjects.replaceNamespacedCustomObject(
            { group, version, namespace, plural, name, body: cluster },
            config,
          ),
        options,
      );
    },

    async deleteCluster(namespace, name, options) {
      const description = clusterCall("delete", namespace, name);
      const cluster = await readManagedCluster(
        description,
        namespace,
        name,
        options,
      );
      // The uid precondition makes the delete miss a namesake created
      // between the read and the delete (answered 409 -> ABORTED).
      await call(
        description,
        plural,
        (config) =>
          customObjects.deleteNamespacedCustomObject(
            {
              group,
              version,
              namespace,
              plural,
              name,
              body: { preconditions: { uid: cluster.metadata.uid } },
            },
            config,
          ),
        options,
      );
    },

    async listClusterEvents(namespace, name, options) {
      const fieldSelector = [
        "involvedObject.kind=RayCluster",
        ...(name === undefined ? [] : [`involvedObject.name=${name}`]),
      ].join(",");
      const description: KubernetesCall = {
        action: name === undefined
          ? "Cannot list cluster events"
          : `Cannot list events of cluster "${
            qualified(namespace ?? "", name)
          }"`,
        verb: "list",
        noun: "event",
      };
      const list = await call(
        description,
        "events",
        (config) =>
          namespace === undefined
            ? core.listEventForAllNamespaces({ fieldSelector }, config)
            : core.listNamespacedEvent({ namespace, fieldSelector }, config),
        options,
      );
      return list.items.map(asEvent);
    },

    async createComputeTemplate(configMap, options) {
      const namespace = configMap.metadata.namespace ?? "";
      const name = configMap.metadata.name;
      const description = templateCall("create", namespace, name);
      try {
        return asConfigMap(
          await call(
            description,
            "configmaps",
            (config) =>
              core.createNamespacedConfigMap(
                { namespace, body: configMapBody(configMap) },
                config,
              ),
            options,
          ),
        );
      } catch (error) {
        if (
          !(error instanceof ServiceError) || error.code !== Code.ALREADY_EXISTS
        ) throw error;
        // Say whether the name is taken by a template or by another
        // ConfigMap; the extra read happens only on this failure path.
        const taken = await call(
          templateCall("get", namespace, name),
          "configmaps",
          (config) => core.readNamespacedConfigMap({ namespace, name }, config),
          options,
        ).catch(() => undefined);
        if (taken && !isComputeTemplate(asConfigMap(taken))) {
          throw new ServiceError(
            Code.ALREADY_EXISTS,
            `${description.action}: a ConfigMap that is not a compute template already has that name`,
            { cause: error.cause },
          );
        }
        throw error;
      }
    },

    getComputeTemplate(namespace, name, options) {
      return readTemplate(
        templateCall("get", namespace, name),
        namespace,
        name,
        options,
      );
    },

    async listComputeTemplates(namespace, names, options) {
      let labelSelector = COMPUTE_TEMPLATE_SELECTOR;
      if (names !== undefined) {
        // Template names are label values; a name that cannot be one cannot
        // match, and would make the selector invalid.
        const wanted = [...new Set(names)].filter(isLabelValue);
        if (wanted.length === 0) return [];
        labelSelector += `,${LABEL.computeTemplate} in (${wanted.join(",")})`;
      }
      const description: KubernetesCall = {
        action: namespace === undefined
          ? "Cannot list compute templates"
          : `Cannot list compute templates in namespace "${namespace}"`,
        verb: "list",
        noun: "compute template",
      };
      const list = await call(
        description,
        "configmaps",
        (config) =>
          namespace === undefined
            ? core.listConfigMapForAllNamespaces({ labelSelector }, config)
            : core.listNamespacedConfigMap(
              { namespace, labelSelector },
              config,
            ),
        options,
      );
      return list.items.map(asConfigMap);
    },

    async deleteComputeTemplate(namespace, name, options) {
      const description = templateCall("delete", namespace, name);
      const configMap = await readTemplate(
        description,
        namespace,
        name,
        options,
      );
      await call(
        description,
        "configmaps",
        (config) =>
          core.deleteNamespacedConfigMap(
            {
              namespace,
              name,
              body: { preconditions: { uid: configMap.metadata.uid } },
            },
            config,
          ),
        options,
      );
    },

    async ping(options) {
      await call(
        { action: "Cannot reach Kubernetes", verb: "get", noun: "version" },
        "version",
        (config) => clients.version.getCode({}, config),
        options,
      );
    },
  };
}
