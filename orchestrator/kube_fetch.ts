/**
 * Requests to the Kubernetes API over Deno's own fetch, with the
 * credentials and TLS of a kubeconfig as client-node reads them (tokens,
 * exec plugins, client certificates, the cluster's CA): for what
 * client-node cannot stream or follow well (watches: watch_stream.ts; a
 * followed pod log: submitter_logs.ts).
 */
import type { KubeConfig } from "@kubernetes/client-node";

/** GETs `path` with `query`, with the kubeconfig's credentials. */
export type KubeFetch = (
  path: string,
  query: Record<string, string>,
  signal?: AbortSignal,
) => Promise<Response>;

/**
 * The fetch of `kubeConfig`'s current cluster; one HTTP client while the
 * credentials stay the same (none for a plain-http server without a CA).
 */
export function kubeFetch(kubeConfig: KubeConfig): KubeFetch {
  let client: Deno.HttpClient | undefined;
  let clientFor = "";

  async function requestInit(): Promise<
    RequestInit & { client?: Deno.HttpClient }
  > {
    const options: {
      headers?: Record<string, string>;
      ca?: unknown;
      cert?: unknown;
      key?: unknown;
      rejectUnauthorized?: boolean;
    } = {};
    await kubeConfig.applyToHTTPSOptions(options as never);
    const pem = (value: unknown) =>
      value === undefined ? undefined : String(value);
    const [ca, cert, key] = [
      pem(options.ca),
      pem(options.cert),
      pem(options.key),
    ];
    const server = kubeConfig.getCurrentCluster()?.server ?? "";
    // (client-node wants the flag for plain http:// servers too, where it
    // means nothing.)
    if (options.rejectUnauthorized === false && server.startsWith("https:")) {
      throw new Error(
        "insecure-skip-tls-verify is not supported for watches and followed logs: give the cluster's CA instead",
      );
    }
    if (ca !== undefined || cert !== undefined) {
      // One client while the credentials stay the same.
      const identity = `${ca}\0${cert}\0${key}`;
      if (identity !== clientFor) {
        client?.close();
        client = Deno.createHttpClient({
          ...(ca === undefined ? {} : { caCerts: [ca] }),
          ...(cert !== undefined && key !== undefined ? { cert, key } : {}),
        });
        clientFor = identity;
      }
    }
    return { headers: options.headers ?? {}, ...(client ? { client } : {}) };
  }

  function urlOf(path: string, query: Record<string, string>): URL {
    const server = kubeConfig.getCurrentCluster()?.server;
    if (!server) throw new Error("The kubeconfig has no current cluster");
    const url = new URL(server.replace(/\/$/, "") + path);
    for (const [name, value] of Object.entries(query)) {
      url.searchParams.set(name, value);
    }
    return url;
  }

  return async (path, query, signal) =>
    await fetch(urlOf(path, query), { ...await requestInit(), signal });
}
