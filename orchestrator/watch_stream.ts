/**
 * Kubernetes lists and watches over Deno's own fetch: the reflector's
 * transport.
 *
 * client-node's Watch (2.0.1) reads the stream through undici's fetch,
 * which under Deno does not notice a connection the server side dropped
 * (an API server restart, a load balancer): the watch then hangs until its
 * inactivity timer, deaf to every change meanwhile (and a list on a pooled
 * connection that died can hang for good). Deno's fetch fails the body at
 * once, so the reflector lists again at once. Credentials and TLS
 * come from the kubeconfig as client-node reads them (tokens, exec plugins,
 * client certificates, the cluster's CA).
 */
import type { KubeConfig } from "@kubernetes/client-node";

/** A list of 10,000 objects takes a few seconds; a hung one ends here. */
const LIST_TIMEOUT_MS = 60_000;

export type WatchEventHandler = (type: string, object: never) => void;

/** How the reflector lists and watches: client-node's Watch.watch, and a list. */
export interface WatchTransport {
  /**
   * GETs a collection; its JSON. Fails with `statusCode` on a non-200, and
   * when `signal` aborts.
   */
  list(
    path: string,
    query: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<unknown>;
  /**
   * Starts a watch; its controller once the API server answered. `signal`
   * ends it, also while the answer is awaited (a hung API server).
   */
  watch(
    path: string,
    query: Record<string, string>,
    onEvent: WatchEventHandler,
    done: (error: unknown) => void,
    signal?: AbortSignal,
  ): Promise<AbortController>;
  /**
   * Resolves when the API server answers at all (GET /version), within
   * `signal`; fails otherwise. The cache asks it while down, to notice the
   * API server's return.
   */
  ping?(signal: AbortSignal): Promise<void>;
}

export function fetchWatch(kubeConfig: KubeConfig): WatchTransport {
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
        "insecure-skip-tls-verify is not supported for watches: give the cluster's CA instead",
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

  return {
    async list(path, query, signal) {
      const timeout = AbortSignal.timeout(LIST_TIMEOUT_MS);
      const response = await fetch(urlOf(path, query), {
        ...await requestInit(),
        signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
      });
      if (response.status !== 200) throw await failure(path, response);
      return await response.json();
    },

    async ping(signal) {
      const response = await fetch(urlOf("/version", {}), {
        ...await requestInit(),
        signal,
      });
      await response.body?.cancel();
    },

    async watch(path, query, onEvent, done, signal) {
      const url = urlOf(path, { ...query, watch: "true" });
      const controller = new AbortController();
      signal?.addEventListener("abort", () => controller.abort(), {
        once: true,
      });
      const response = await fetch(url, {
        ...await requestInit(),
        signal: controller.signal,
      });
      if (response.status !== 200) throw await failure(path, response);
      (async () => {
        const decoder = new TextDecoder();
        let pending = "";
        try {
          for await (const chunk of response.body!) {
            pending += decoder.decode(chunk, { stream: true });
            let newline;
            while ((newline = pending.indexOf("\n")) >= 0) {
              const line = pending.slice(0, newline).trim();
              pending = pending.slice(newline + 1);
              if (line === "") continue;
              const event = JSON.parse(line) as { type: string; object: never };
              onEvent(event.type, event.object);
            }
          }
          done(null);
        } catch (error) {
          done(controller.signal.aborted ? null : error);
        }
      })();
      return controller;
    },
  };
}

/**
 * A non-200 answer as an error: its status, and the causes of its
 * Kubernetes Status (which tell "Too large resource version" apart).
 */
async function failure(path: string, response: Response): Promise<Error> {
  const text = await response.text().catch(() => "");
  let causes: unknown[] = [];
  let said = "";
  try {
    causes = JSON.parse(text)?.details?.causes ?? [];
  } catch {
    // Not a Status: its first line may say what happened ("Client sent an
    // HTTP request to an HTTPS server." from an http:// kubeconfig).
    said = text.trim().split("\n")[0].slice(0, 200);
  }
  return Object.assign(
    new Error(`${path} answered ${response.status}${said ? `: ${said}` : ""}`),
    { statusCode: response.status, causes },
  );
}
