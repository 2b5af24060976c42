/**
 * Corral's orchestrator on Kubernetes, as main.ts builds it: the client
 * configuration (a kubeconfig or the pod's service account), and the
 * choice between the direct orchestrator (kubernetes.ts), where every read
 * asks Kubernetes, and the watch-backed cache in front of it (cache.ts).
 *
 * Imports point one way: this module -> cache.ts -> kubernetes.ts.
 */

import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  VersionApi,
} from "@kubernetes/client-node";
import type { Logger } from "../domain/log.ts";
import type { Orchestrator } from "../domain/ports.ts";
import { createCachedOrchestrator } from "./cache.ts";
import type { MissOptions } from "./cache_misses.ts";
import { kubeFetch } from "./kube_fetch.ts";
import { KubernetesOrchestrator } from "./kubernetes.ts";

export interface KubernetesOrchestratorOptions {
  kubeConfig: KubeConfig;
  group?: string;
  version?: string;
  plural?: string;
  /** Per-call time limit; DEADLINE_EXCEEDED past it. Default 10 s. */
  timeoutMs?: number;
  /** Attempts of a read while the API is unavailable; default 3. */
  readAttempts?: number;
  /**
   * Answer reads from a watch-backed cache (cache.ts) of these namespaces
   * (empty: all); without, every read asks Kubernetes.
   */
  cache?: {
    namespaces: readonly string[];
    staleAfterMs?: number;
    /** First pause after a failed list or watch; 1 s. */
    backoffMs?: number;
    /** The limits of lookups of names the cache misses (cache_misses.ts). */
    misses?: MissOptions;
    /** The API server's BOOKMARK interval (cache.ts); 60 s. */
    bookmarkIntervalMs?: number;
    log: Logger;
  };
}

/** The orchestrator on a kubeconfig's current context. */
export function createKubernetesOrchestrator(
  options: KubernetesOrchestratorOptions,
): Orchestrator {
  const clients = {
    customObjects: options.kubeConfig.makeApiClient(CustomObjectsApi),
    core: options.kubeConfig.makeApiClient(CoreV1Api),
    version: options.kubeConfig.makeApiClient(VersionApi),
  };
  const rayCluster = {
    group: options.group ?? "ray.io",
    version: options.version ?? "v1",
    plural: options.plural ?? "rayclusters",
  };
  const direct = new KubernetesOrchestrator(clients, rayCluster, {
    timeoutMs: options.timeoutMs,
    readAttempts: options.readAttempts,
  }, kubeFetch(options.kubeConfig));
  if (!options.cache) return direct;
  return createCachedOrchestrator({
    direct,
    kubeConfig: options.kubeConfig,
    rayCluster,
    ...options.cache,
  });
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
