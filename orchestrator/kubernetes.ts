/**
 * The Orchestrator (domain/ports.ts) on @kubernetes/client-node: RayClusters
 * through CustomObjectsApi, compute-template ConfigMaps and Events through
 * CoreV1Api. Every method makes O(1) calls; lists select on the server with
 * label and field selectors. Kubernetes failures are translated here, once,
 * into ServiceError (translateKubernetesError); client-node's ApiException
 * (whose message dumps response headers) is kept only as the cause.
 */

import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  Observable,
} from "@kubernetes/client-node";
import type {
  ConfigurationOptions,
  RequestContext,
  ResponseContext,
  V1ConfigMap,
} from "@kubernetes/client-node";
import { Code, ServiceError } from "../domain/errors.ts";
import type { ErrorDetail, FieldViolation } from "../domain/errors.ts";
import type { Orchestrator } from "../domain/ports.ts";
import {
  COMPUTE_TEMPLATE_SELECTOR,
  isComputeTemplate,
  isManagedCluster,
  LABEL,
  MANAGED_CLUSTER_SELECTOR,
} from "../domain/resources.ts";
import type { ConfigMap, KubeEvent, RayCluster } from "../domain/resources.ts";

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

export interface KubernetesClients {
  customObjects: CustomObjectsPort;
  core: CoreV1Port;
}

/** Where RayClusters live; DESIGN.md makes these configurable. */
export interface RayClusterCoordinates {
  group: string;
  version: string;
  plural: string;
}

export interface KubernetesOrchestratorOptions {
  kubeConfig: KubeConfig;
  group?: string;
  version?: string;
  plural?: string;
  /** Per-call time limit; DEADLINE_EXCEEDED past it. Default 10 s. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/** The orchestrator on a kubeconfig's current context. */
export function createKubernetesOrchestrator(
  options: KubernetesOrchestratorOptions,
): Orchestrator {
  return orchestratorOnClients(
    {
      customObjects: options.kubeConfig.makeApiClient(CustomObjectsApi),
      core: options.kubeConfig.makeApiClient(CoreV1Api),
    },
    {
      group: options.group ?? "ray.io",
      version: options.version ?? "v1",
      plural: options.plural ?? "rayclusters",
    },
    options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  );
}

/**
 * Kubernetes client configuration: the kubeconfig file at `path` (from
 * `--kubeconfig` or KUBECONFIG, as main.ts resolves it), else the pod's
 * service account (`inCluster`, or when no path is given).
 */
export function loadKubeConfig(
  options: { path?: string; inCluster?: boolean },
): KubeConfig {
  const kubeConfig = new KubeConfig();
  if (options.path && !options.inCluster) {
    try {
      kubeConfig.loadFromFile(options.path);
    } catch (error) {
      throw new Error(
        `Cannot load kubeconfig "${options.path}": ${
          error instanceof Error ? error.message : String(error)
        }`,
        { cause: error },
      );
    }
    if (!kubeConfig.getCurrentCluster()) {
      throw new Error(
        `Cannot load kubeconfig "${options.path}": no current context with a cluster`,
      );
    }
    return kubeConfig;
  }
  kubeConfig.loadFromCluster();
  const server = kubeConfig.getCurrentCluster()?.server ?? "";
  if (server === "" || server.includes("undefined")) {
    throw new Error(
      "Cannot load in-cluster Kubernetes config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set; run in a pod or pass a kubeconfig",
    );
  }
  return kubeConfig;
}

// ---------------------------------------------------------------------------
// Error translation

/** A Kubernetes call, as error messages describe it. */
export interface KubernetesCall {
  /** The failed action as the caller sees it: `Cannot create cluster "a/b"`. */
  action: string;
  verb: "create" | "get" | "list" | "delete" | "update";
  /** What the object is called: "cluster", "compute template". */
  noun: string;
}

/** A client-side time-out of one call. */
export class KubernetesTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = "KubernetesTimeoutError";
  }
}

interface StatusLike {
  message?: string;
  reason?: string;
  details?: {
    name?: string;
    kind?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
  };
}

function parseStatus(body: unknown): StatusLike {
  let value = body;
  if (typeof body === "string") {
    try {
      value = JSON.parse(body);
    } catch {
      return {};
    }
  }
  return typeof value === "object" && value !== null ? value as StatusLike : {};
}

const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EPIPE: "connection reset",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host not found",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  UND_ERR_SOCKET: "connection closed",
  UND_ERR_CLOSED: "connection closed",
  CERT_HAS_EXPIRED: "TLS certificate expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "TLS certificate not trusted",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "TLS certificate not trusted",
  SELF_SIGNED_CERT_IN_CHAIN: "TLS certificate not trusted",
};

/** The network failure behind a fetch error, in a few words, if it is one. */
function networkFailure(error: unknown): string | undefined {
  for (let e = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && NETWORK_ERRORS[code]) {
      return NETWORK_ERRORS[code];
    }
    e = (e as { cause?: unknown }).cause;
  }
  if (error instanceof TypeError && /fetch failed/i.test(error.message)) {
    return "network error";
  }
  return undefined;
}

function retryDelay(headers: Record<string, string> | undefined): string {
  const seconds = Number(headers?.["retry-after"]);
  return Number.isFinite(seconds) && seconds > 0 ? `${seconds}s` : "1s";
}

/**
 * A Kubernetes failure as a ServiceError. Pure: the table in the tests is
 * its specification.
 */
export function translateKubernetesError(
  error: unknown,
  call: KubernetesCall,
): ServiceError {
  if (error instanceof ServiceError) return error;
  const { action, verb, noun } = call;
  const make = (code: Code, detail: string, details?: ErrorDetail[]) =>
    new ServiceError(code, `${action}: ${detail}`, { cause: error, details });

  if (error instanceof KubernetesTimeoutError) {
    return make(
      Code.DEADLINE_EXCEEDED,
      `Kubernetes API did not answer in time`,
    );
  }
  if (!(error instanceof ApiException)) {
    const network = networkFailure(error);
    if (network) {
      return make(Code.UNAVAILABLE, `Kubernetes API unavailable: ${network}`);
    }
    return make(Code.INTERNAL, "internal error");
  }

  const status = parseStatus(error.body);
  const statusMessage = status.message ?? `HTTP ${error.code}`;
  switch (error.code) {
    case 400:
      return make(Code.INVALID_ARGUMENT, statusMessage);
    case 401:
      return make(
        Code.UNAUTHENTICATED,
        "Kubernetes API rejected the service's credentials",
      );
    case 403:
      return make(Code.PERMISSION_DENIED, "Kubernetes API denied access");
    case 404: {
      if (verb === "create" && status.details?.kind === "namespaces") {
        return make(
          Code.NOT_FOUND,
          `namespace "${status.details.name ?? ""}" not found`,
        );
      }
      if (verb === "get" || verb === "delete" || verb === "update") {
        return make(Code.NOT_FOUND, "not found");
      }
      return make(Code.NOT_FOUND, statusMessage);
    }
    case 409:
      return verb === "create"
        ? make(
          Code.ALREADY_EXISTS,
          `a ${noun} with that name already exists`,
        )
        : make(
          Code.ABORTED,
          `the ${noun} was changed concurrently; try again`,
        );
    case 422: {
      const violations: FieldViolation[] = (status.details?.causes ?? []).map(
        (cause) => ({
          field: cause.field ?? "",
          description: cause.message ?? cause.reason ?? "invalid",
        }),
      );
      if (violations.length === 0) {
        return make(Code.INVALID_ARGUMENT, statusMessage);
      }
      return make(
        Code.INVALID_ARGUMENT,
        violations.map((v) =>
          v.field ? `${v.field}: ${v.description}` : v.description
        ).join("; "),
        [{
          "@type": "type.googleapis.com/google.rpc.BadRequest",
          fieldViolations: violations,
        }],
      );
    }
    case 429:
      return make(
        Code.UNAVAILABLE,
        "Kubernetes API unavailable: too many requests",
        [{
          "@type": "type.googleapis.com/google.rpc.RetryInfo",
          retryDelay: retryDelay(error.headers),
        }],
      );
    case 504:
      return make(Code.DEADLINE_EXCEEDED, "Kubernetes API timed out");
  }
  if (error.code >= 500) {
    if (status.reason === "Timeout") {
      return make(Code.DEADLINE_EXCEEDED, "Kubernetes API timed out");
    }
    return make(
      Code.UNAVAILABLE,
      `Kubernetes API unavailable: HTTP ${error.code}`,
    );
  }
  return make(
    Code.INTERNAL,
    `unexpected answer from the Kubernetes API: HTTP ${error.code}`,
  );
}

// ---------------------------------------------------------------------------
// Implementation

/**
 * client-node's typed models hold timestamps as Date; the domain works on
 * the JSON shapes, so objects go back to JSON with RFC 3339 timestamps
 * (second precision when that is all there is, as the API server writes).
 */
function toJson<T>(value: unknown): T {
  return JSON.parse(
    JSON.stringify(value, function (this: Record<string, unknown>, key, v) {
      const raw = this[key];
      if (raw instanceof Date) {
        return raw.getUTCMilliseconds() === 0
          ? raw.toISOString().replace(/\.000Z$/, "Z")
          : raw.toISOString();
      }
      return v;
    }),
  ) as T;
}

function asConfigMap(value: unknown): ConfigMap {
  const configMap = toJson<ConfigMap>(value);
  return { ...configMap, apiVersion: "v1", kind: "ConfigMap" };
}

function asEvent(value: unknown): KubeEvent {
  return { ...toJson<KubeEvent>(value), apiVersion: "v1", kind: "Event" };
}

/** What a create sends: no server-set metadata. */
function configMapBody(configMap: ConfigMap): V1ConfigMap {
  const { name, namespace, labels, annotations } = configMap.metadata;
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace, labels, annotations },
    data: configMap.data,
  };
}

function qualified(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** Label values are restricted; a name that is not one matches no template. */
function isLabelValue(value: string): boolean {
  return value.length <= 63 &&
    /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(value);
}

/**
 * Per-call options for client-node carrying an AbortSignal. client-node's
 * generated clients take middleware returning its Observable stub.
 */
function signalOptions(signal: AbortSignal): ConfigurationOptions {
  return {
    middleware: [{
      pre: (context: RequestContext) => {
        context.setSignal(signal);
        return new Observable(Promise.resolve(context));
      },
      post: (context: ResponseContext) =>
        new Observable(Promise.resolve(context)),
    }],
    middlewareMergeStrategy: "append",
  };
}

/** The orchestrator on the given clients: the seam the tests exercise. */
export function orchestratorOnClients(
  clients: KubernetesClients,
  rayCluster: RayClusterCoordinates,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Orchestrator {
  const { customObjects, core } = clients;
  const { group, version, plural } = rayCluster;

  /** One Kubernetes call, time-limited, its failure translated. */
  async function call<T>(
    description: KubernetesCall,
    run: (options: ConfigurationOptions) => Promise<T>,
  ): Promise<T> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    try {
      return await run(signalOptions(controller.signal));
    } catch (error) {
      const failure = timedOut ? new KubernetesTimeoutError(timeoutMs) : error;
      if (timedOut) (failure as Error).cause = error;
      throw translateKubernetesError(failure, description);
    } finally {
      clearTimeout(timer);
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
  ): Promise<RayCluster> {
    const cluster: RayCluster = await call(
      description,
      (options) =>
        customObjects.getNamespacedCustomObject(
          { group, version, namespace, plural, name },
          options,
        ),
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
  ): Promise<ConfigMap> {
    const configMap = asConfigMap(
      await call(
        description,
        (options) => core.readNamespacedConfigMap({ namespace, name }, options),
      ),
    );
    if (!isComputeTemplate(configMap)) throw notFound(description);
    return configMap;
  }

  return {
    createCluster(cluster) {
      const namespace = cluster.metadata.namespace ?? "";
      return call(
        clusterCall("create", namespace, cluster.metadata.name),
        (options) =>
          customObjects.createNamespacedCustomObject(
            { group, version, namespace, plural, body: cluster },
            options,
          ),
      );
    },

    getCluster(namespace, name) {
      return readManagedCluster(
        clusterCall("get", namespace, name),
        namespace,
        name,
      );
    },

    async listClusters(namespace) {
      const description: KubernetesCall = {
        action: namespace === undefined
          ? "Cannot list clusters"
          : `Cannot list clusters in namespace "${namespace}"`,
        verb: "list",
        noun: "cluster",
      };
      const list: { items?: RayCluster[] } = await call(
        description,
        (options) =>
          namespace === undefined
            ? customObjects.listClusterCustomObject(
              {
                group,
                version,
                plural,
                labelSelector: MANAGED_CLUSTER_SELECTOR,
              },
              options,
            )
            : customObjects.listNamespacedCustomObject(
              {
                group,
                version,
                namespace,
                plural,
                labelSelector: MANAGED_CLUSTER_SELECTOR,
              },
              options,
            ),
      );
      return list.items ?? [];
    },

    async deleteCluster(namespace, name) {
      const description = clusterCall("delete", namespace, name);
      const cluster = await readManagedCluster(description, namespace, name);
      // The uid precondition makes the delete miss a namesake created
      // between the read and the delete (answered 409 -> ABORTED).
      await call(
        description,
        (options) =>
          customObjects.deleteNamespacedCustomObject(
            {
              group,
              version,
              namespace,
              plural,
              name,
              body: { preconditions: { uid: cluster.metadata.uid } },
            },
            options,
          ),
      );
    },

    async listClusterEvents(namespace, name) {
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
        (options) =>
          namespace === undefined
            ? core.listEventForAllNamespaces({ fieldSelector }, options)
            : core.listNamespacedEvent({ namespace, fieldSelector }, options),
      );
      return list.items.map(asEvent);
    },

    async createComputeTemplate(configMap) {
      const namespace = configMap.metadata.namespace ?? "";
      const name = configMap.metadata.name;
      const description = templateCall("create", namespace, name);
      try {
        return asConfigMap(
          await call(
            description,
            (options) =>
              core.createNamespacedConfigMap(
                { namespace, body: configMapBody(configMap) },
                options,
              ),
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
          (options) =>
            core.readNamespacedConfigMap({ namespace, name }, options),
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

    getComputeTemplate(namespace, name) {
      return readTemplate(
        templateCall("get", namespace, name),
        namespace,
        name,
      );
    },

    async listComputeTemplates(namespace, names) {
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
        (options) =>
          namespace === undefined
            ? core.listConfigMapForAllNamespaces({ labelSelector }, options)
            : core.listNamespacedConfigMap(
              { namespace, labelSelector },
              options,
            ),
      );
      return list.items.map(asConfigMap);
    },

    async deleteComputeTemplate(namespace, name) {
      const description = templateCall("delete", namespace, name);
      const configMap = await readTemplate(description, namespace, name);
      await call(
        description,
        (options) =>
          core.deleteNamespacedConfigMap(
            {
              namespace,
              name,
              body: { preconditions: { uid: configMap.metadata.uid } },
            },
            options,
          ),
      );
    },
  };
}
