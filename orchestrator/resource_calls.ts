/**
 * Where Kubernetes serves each kind (domain/kinds.ts) and the client-node
 * calls that reach it: custom objects (RayClusters, RayJobs, RayServices)
 * through CustomObjectsApi, ConfigMaps through CoreV1Api. The same five
 * calls on either, so that the reads and writes of a kind
 * (managed_objects.ts) are written once; answers come back as client-node
 * gives them (json.ts: objectOf makes them the domain's).
 */
import type { ConfigurationOptions } from "@kubernetes/client-node";
import type { Kind, KindObject, KindResource } from "../domain/kinds.ts";
import type { ConfigMap } from "../domain/resources.ts";
import type {
  CoreV1Port,
  CustomObjectsPort,
  RayClusterCoordinates,
} from "./client_ports.ts";
import { configMapBody } from "./json.ts";

/** A resource's coordinates: its group ("" for core), version and plural. */
export interface ServedAt {
  group: string;
  version: string;
  plural: string;
}

/**
 * Where `resource` is served: at its own group and version, else at the
 * RayClusters' (the configured plural when it is the configurable one).
 */
export function servedAt(
  resource: KindResource,
  rayCluster: RayClusterCoordinates,
): ServedAt {
  return {
    group: resource.group ?? rayCluster.group,
    version: resource.version ?? rayCluster.version,
    plural: resource.configurablePlural ? rayCluster.plural : resource.plural,
  };
}

/** The collection's path, of one namespace or ("") of all. */
export function collectionPath(where: ServedAt, namespace: string): string {
  const api = where.group === ""
    ? `/api/${where.version}`
    : `/apis/${where.group}/${where.version}`;
  const inNamespace = namespace === ""
    ? ""
    : `/namespaces/${encodeURIComponent(namespace)}`;
  return `${api}${inNamespace}/${where.plural}`;
}

/** What a list asks for. */
export interface ListQuery {
  labelSelector: string;
  limit?: number;
  _continue?: string;
}

/** A page of a list answer. */
export interface ListPage<T> {
  items?: T[];
  metadata?: { continue?: string };
}

/** One resource's calls, whichever API serves it. */
export interface ResourceCalls {
  /** The plural, as calls are observed (KubernetesCallRecord.resource). */
  readonly plural: string;
  create(
    namespace: string,
    body: KindObject,
    config: ConfigurationOptions,
  ): Promise<unknown>;
  read(
    namespace: string,
    name: string,
    config: ConfigurationOptions,
  ): Promise<unknown>;
  /** Of `namespace`, or of every namespace when undefined. */
  list(
    namespace: string | undefined,
    query: ListQuery,
    config: ConfigurationOptions,
  ): Promise<ListPage<unknown>>;
  replace(
    namespace: string,
    name: string,
    body: KindObject,
    config: ConfigurationOptions,
  ): Promise<unknown>;
  /** Deletes the object of `uid` (a namesake is refused: 409). */
  delete(
    namespace: string,
    name: string,
    uid: string | undefined,
    config: ConfigurationOptions,
  ): Promise<unknown>;
}

/** The client-node APIs the calls are made through. */
export interface ResourceClients {
  customObjects: CustomObjectsPort;
  core: CoreV1Port;
}

/** The calls of `kind`'s resource, through the API that serves it. */
export function resourceCalls<T extends KindObject>(
  kind: Kind<T>,
  clients: ResourceClients,
  rayCluster: RayClusterCoordinates,
): ResourceCalls {
  const where = servedAt(kind.resource, rayCluster);
  if (where.group !== "") {
    return customObjectCalls(clients.customObjects, where);
  }
  if (where.plural === "configmaps") return configMapCalls(clients.core);
  throw new Error(`No calls for the core resource "${where.plural}"`);
}

/** A custom resource's calls through CustomObjectsApi. */
export function customObjectCalls(
  api: CustomObjectsPort,
  where: ServedAt,
): ResourceCalls {
  const { group, version, plural } = where;
  return {
    plural,
    create: (namespace, body, config) =>
      api.createNamespacedCustomObject(
        { group, version, plural, namespace, body },
        config,
      ),
    read: (namespace, name, config) =>
      api.getNamespacedCustomObject(
        { group, version, plural, namespace, name },
        config,
      ),
    list: (namespace, query, config) =>
      namespace === undefined
        ? api.listClusterCustomObject(
          { group, version, plural, ...query },
          config,
        )
        : api.listNamespacedCustomObject(
          { group, version, plural, namespace, ...query },
          config,
        ),
    replace: (namespace, name, body, config) =>
      api.replaceNamespacedCustomObject(
        { group, version, plural, namespace, name, body },
        config,
      ),
    delete: (namespace, name, uid, config) =>
      api.deleteNamespacedCustomObject(
        {
          group,
          version,
          plural,
          namespace,
          name,
          body: { preconditions: { uid } },
        },
        config,
      ),
  };
}

/** ConfigMaps' calls through CoreV1Api; a create sends no server-set metadata. */
function configMapCalls(core: CoreV1Port): ResourceCalls {
  return {
    plural: "configmaps",
    create: (namespace, body, config) =>
      core.createNamespacedConfigMap(
        { namespace, body: configMapBody(body as ConfigMap) },
        config,
      ),
    read: (namespace, name, config) =>
      core.readNamespacedConfigMap({ namespace, name }, config),
    list: async (namespace, query, config) => {
      const { items, metadata } = namespace === undefined
        ? await core.listConfigMapForAllNamespaces(query, config)
        : await core.listNamespacedConfigMap({ namespace, ...query }, config);
      // client-node's typed list names the continue token `_continue`.
      return { items, metadata: { continue: metadata?._continue } };
    },
    replace: (namespace, name, body, config) =>
      core.replaceNamespacedConfigMap(
        { namespace, name, body: configMapBody(body as ConfigMap, "update") },
        config,
      ),
    delete: (namespace, name, uid, config) =>
      core.deleteNamespacedConfigMap(
        { namespace, name, body: { preconditions: { uid } } },
        config,
      ),
  };
}
