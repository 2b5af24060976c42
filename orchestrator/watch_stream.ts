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
 * come from the kubeconfig as client-node reads them (kube_fetch.ts).
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { kubeFetch } from "./kube_fetch.ts";

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
  const get = kubeFetch(kubeConfig);

  return {
    async list(path, query, signal) {
      const timeout = AbortSignal.timeout(LIST_TIMEOUT_MS);
      const response = await get(
        path,
        query,
        signal ? AbortSignal.any([timeout, signal]) : timeout,
      );
      if (response.status !== 200) throw await failure(path, response);
      return await response.json();
    },

    async ping(signal) {
      const response = await get("/version", {}, signal);
      await response.body?.cancel();
    },

    async watch(path, query, onEvent, done, signal) {
      const controller = new AbortController();
      signal?.addEventListener("abort", () => controller.abort(), {
        once: true,
      });
      const response = await get(
        path,
        { ...query, watch: "true" },
        controller.signal,
      );
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
