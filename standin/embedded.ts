/**
 * Embedded mode (`--orchestrator embedded`, `deno task dev`): the stand-in on
 * a free port of 127.0.0.1 and the simulated operator watching it, serving
 * and watching the cluster resource at the coordinates Corral is configured
 * with, and a kubeconfig that points Corral's orchestrator (or kubectl) at
 * them. Corral's start (startup/kubernetes.ts) loads this module only in
 * embedded mode.
 */

import type { Logger } from "../domain/log.ts";
import { kubeconfigFor, startStandin } from "./server.ts";
import { startSimulatedOperator } from "./simulated_operator.ts";
import { DEV_QUEUE } from "./kueue/queues.ts";

export interface EmbeddedOptions {
  /** Group, version and plural of the cluster resource; kind is RayCluster. */
  group: string;
  version: string;
  plural: string;
  /** CustomResourceDefinition files installed into the stand-in. */
  crds: string[];
  /** How long the simulated operator waits before a cluster turns ready. */
  operatorDelayMs: number;
  /** Where to write a kubeconfig for the stand-in, for kubectl; none if "". */
  writeKubeconfig?: string;
  logger: Logger;
}

export interface Embedded {
  /** The stand-in's base URL. */
  readonly url: string;
  /** A kubeconfig for the stand-in (namespace default). */
  readonly kubeconfig: string;
  /** Stops the operator, then the stand-in it talks to. */
  close(): Promise<void>;
}

/**
 * Starts the stand-in and the simulated operator; both run when this
 * returns. Throws, with nothing left running, when a CRD file cannot be
 * read or is refused.
 */
export function startEmbedded(options: EmbeddedOptions): Embedded {
  const { group, version, plural, crds, logger } = options;
  const standin = startStandin({
    hostname: "127.0.0.1",
    port: 0,
    crds,
    rayCluster: { group, version, plural },
    // Kueue's queues, with a LocalQueue "default" in every namespace.
    kueue: { dev: DEV_QUEUE },
  });
  if (crds.length > 0) {
    logger.info("Installed CRDs into the stand-in", { files: crds });
  }
  const operator = startSimulatedOperator({
    server: standin.url,
    delayMs: options.operatorDelayMs,
    group,
    version,
    plural,
    kueue: true,
    logger: logger.with({ component: "simulated-operator" }),
  });
  logger.debug("Started Kubernetes API stand-in", {
    url: standin.url,
    resource: `${plural}.${group}/${version}`,
  });
  const kubeconfig = kubeconfigFor(standin.url);
  if (options.writeKubeconfig) {
    try {
      Deno.writeTextFileSync(options.writeKubeconfig, kubeconfig);
    } catch (error) {
      // Nothing left running; the caller gets the error at once.
      void operator.stop().then(() => standin.close());
      throw new Error(
        `cannot write --write-kubeconfig "${options.writeKubeconfig}": ${
          (error as Error).message
        }`,
        { cause: error },
      );
    }
    logger.info("Wrote kubeconfig for the stand-in", {
      path: options.writeKubeconfig,
    });
  }
  return {
    url: standin.url,
    kubeconfig,
    async close() {
      await operator.stop();
      await standin.close();
    },
  };
}
