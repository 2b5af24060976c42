/**
 * The start-up step that finds Kubernetes: a cluster by kubeconfig or
 * in-cluster config, or the embedded stand-in, started here; the namespace
 * of the pod Corral runs in; and --write-kubeconfig.
 *
 * startup/ holds the steps of Corral's start that main.ts, the composition
 * root, wires together, one step a file: each joins parts of several layers
 * (api/, orchestrator/), which only the composition root may, and so belongs
 * to none of them. Each takes the settings and parts it needs as parameters:
 * main.ts alone reads the environment and the command line and handles
 * signals.
 *
 * The stand-in is development tooling: this module loads it through one
 * dynamic import, on the embedded path only, and nothing loads it
 * statically (tests/standin/production_imports_test.ts).
 */
import * as k8s from "@kubernetes/client-node";
import type { Logger } from "../domain/log.ts";
import { loadKubeConfig } from "../orchestrator/mod.ts";
import type { Mode, Settings } from "../settings.ts";

/** Where Kubernetes is, and the embedded stand-in if Corral started one. */
export interface KubernetesConnection {
  kubeConfig: k8s.KubeConfig;
  /** The stand-in, to be closed with the rest, and its kubeconfig. */
  embedded?: { close(): Promise<void>; kubeconfig: string };
}

/**
 * Where Kubernetes is: the embedded stand-in, started here (and to be closed
 * with the rest), or a cluster by kubeconfig or in-cluster config.
 */
export async function connectKubernetes(
  settings: Settings,
  log: Logger,
): Promise<KubernetesConnection> {
  if (settings.orchestrator !== "embedded") {
    const path = settings.kubeconfig;
    const kubeConfig = loadKubeConfig(path ? { path } : { inCluster: true });
    checkPlainHttp(kubeConfig, path);
    return { kubeConfig };
  }
  // Development tooling, loaded only here: the production start path never
  // imports the stand-in (tests/standin/production_imports_test.ts).
  const embedded = (await importStandin()).startEmbedded({
    ...settings.cluster,
    crds: settings.crds,
    operatorDelayMs: settings.operatorDelayMs,
    // Written by writeKubeconfig() once the ports are bound, not here.
    logger: log,
  });
  const kubeConfig = new k8s.KubeConfig();
  kubeConfig.loadFromString(embedded.kubeconfig);
  return { kubeConfig, embedded };
}

/**
 * A kubeconfig whose API server is http:// without insecure-skip-tls-verify
 * fails the start, saying why: the Kubernetes client refuses every call to
 * it ("HTTP protocol is not allowed"), so Corral could only answer each
 * request "internal error". (With insecure-skip-tls-verify, as the embedded
 * stand-in's kubeconfig has, plaintext is meant and allowed; an http://
 * request to a server that wants HTTPS is then answered 400, which the
 * cache logs and /readyz gives as the reason.)
 */
export function checkPlainHttp(
  kubeConfig: k8s.KubeConfig,
  path: string,
): void {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster?.server.startsWith("http://") || cluster.skipTLSVerify) return;
  throw new Error(
    `the API server of kubeconfig "${
      path || "in-cluster"
    }" is ${cluster.server}, plain http://, which the Kubernetes client refuses: use its https:// URL (Kubernetes API servers serve HTTPS), or for a plaintext test server set insecure-skip-tls-verify: true in the kubeconfig's cluster`,
  );
}

/** The stand-in, which an installation without standin/ (the image) lacks. */
async function importStandin() {
  try {
    return await import("../standin/mod.ts");
  } catch (error) {
    throw new Error(
      "embedded mode needs the Kubernetes API stand-in (standin/), development tooling this installation does not include: run it from a source checkout with deno task dev",
      { cause: error },
    );
  }
}

/**
 * The namespace of the pod Corral runs in (its service account's), for
 * --own-namespace's default: the in-cluster config's context, which
 * client-node took from the service account's namespace file. "" with a
 * kubeconfig and in embedded mode.
 */
export function podNamespace(
  mode: Mode,
  kubeconfigPath: string,
  kubeConfig: k8s.KubeConfig,
): string {
  if (mode !== "kubernetes" || kubeconfigPath !== "") return "";
  const context = kubeConfig.getContextObject(kubeConfig.getCurrentContext());
  return context?.namespace?.trim() ?? "";
}

/** --write-kubeconfig: the stand-in's kubeconfig, for kubectl. */
export async function writeKubeconfig(
  path: string,
  kubeconfig: string,
  log: Logger,
): Promise<void> {
  try {
    await Deno.writeTextFile(path, kubeconfig);
  } catch (error) {
    throw new Error(
      `cannot write --write-kubeconfig "${path}": ${(error as Error).message}`,
      { cause: error },
    );
  }
  log.info("Wrote kubeconfig for the stand-in", { path });
}
