/**
 * Kueue's queues in the stand-in: LocalQueue and ClusterQueue
 * (kueue.x-k8s.io/v1beta1) served from our own minimal CRDs
 * (kueue_crds.yaml), and, for dev mode, a ClusterQueue with a small
 * capacity and a LocalQueue "default" in every namespace there is or comes
 * to be (what a platform team would set up for its tenants). The admission
 * itself is the simulated Kueue's (standin/operator/kueue.ts).
 */

import { decodeObject } from "../bodies.ts";
import { installCrdFiles } from "../crd_files.ts";
import type { State } from "../state.ts";
import type { StoreEvent } from "../store.ts";
import type { KubeObject, ResourceType } from "../types.ts";
import { create } from "../verbs.ts";

export const KUEUE_GROUP = "kueue.x-k8s.io";
export const KUEUE_VERSION = "v1beta1";
export const KUEUE_API_VERSION = `${KUEUE_GROUP}/${KUEUE_VERSION}`;

/** The CRD file of LocalQueue and ClusterQueue. */
export const KUEUE_CRDS_PATH =
  new URL("./kueue_crds.yaml", import.meta.url).pathname;

/** Dev mode's queue: its ClusterQueue's name and nominal quotas. */
export interface DevQueue {
  /** The ClusterQueue; "dev" by default. */
  clusterQueue?: string;
  /** The LocalQueue each namespace gets; "default" by default. */
  localQueue?: string;
  /** Nominal quotas by resource: cpu, memory, nvidia.com/gpu. */
  nominalQuota: Record<string, string | number>;
}

/** What a dev-mode stand-in gets: 8 CPUs, 32 GiB and 2 GPUs. */
export const DEV_QUEUE: DevQueue = {
  nominalQuota: { cpu: 8, memory: "32Gi", "nvidia.com/gpu": 2 },
};

/** The stand-in's Kueue: the CRDs, and the dev queues when `dev` is given. */
export interface KueueOptions {
  dev?: DevQueue;
}

/**
 * Installs LocalQueue and ClusterQueue; with `options.dev`, creates its
 * ClusterQueue and a LocalQueue in every namespace, now and as namespaces
 * are added (a store listener, as the default ServiceAccount's).
 */
export function installKueue(state: State, options: KueueOptions): void {
  installCrdFiles(state, [KUEUE_CRDS_PATH]);
  const dev = options.dev;
  if (!dev) return;
  const clusterQueue = dev.clusterQueue ?? "dev";
  const localQueue = dev.localQueue ?? "default";
  const served = (plural: string) =>
    state.resources.find((r) =>
      r.group === KUEUE_GROUP && r.version === KUEUE_VERSION &&
      r.plural === plural
    );
  const clusterQueues = served("clusterqueues");
  const localQueues = served("localqueues");
  if (!clusterQueues || !localQueues) return;
  put(state, clusterQueues, "", {
    apiVersion: KUEUE_API_VERSION,
    kind: "ClusterQueue",
    metadata: { name: clusterQueue },
    spec: {
      namespaceSelector: {},
      queueingStrategy: "BestEffortFIFO",
      resourceGroups: [{
        coveredResources: Object.keys(dev.nominalQuota),
        flavors: [{
          name: "default-flavor",
          resources: Object.entries(dev.nominalQuota).map((
            [name, nominalQuota],
          ) => ({ name, nominalQuota })),
        }],
      }],
    },
  });
  const addLocalQueue = (namespace: string) =>
    put(state, localQueues, namespace, {
      apiVersion: KUEUE_API_VERSION,
      kind: "LocalQueue",
      metadata: { name: localQueue, namespace },
      spec: { clusterQueue },
    });
  const namespaces = state.namespaceResource;
  if (!namespaces) return;
  for (const namespace of state.store.list(namespaces)) {
    if (isTenant(namespace.metadata.name)) {
      addLocalQueue(namespace.metadata.name!);
    }
  }
  state.store.subscribe((event: StoreEvent) => {
    if (
      event.type === "ADDED" && event.resource === namespaces &&
      isTenant(event.object.metadata.name)
    ) addLocalQueue(event.object.metadata.name!);
  });
}

/** A namespace people's workloads go to: not kube-system and the like. */
function isTenant(name: string | undefined): boolean {
  return name !== undefined && !name.startsWith("kube-");
}

/** Creates `object` unless its name is taken. */
function put(
  state: State,
  resource: ResourceType,
  namespace: string,
  object: Record<string, unknown>,
): void {
  const { name } = object.metadata as { name: string };
  if (state.store.get(resource, namespace, name)) return;
  create(
    state,
    resource,
    namespace,
    decodeObject(object, resource) as KubeObject,
  );
}
