/**
 * The stand-in's HTTP server: start-up (resource types, initial namespaces,
 * CRD files), one handler that turns StatusErrors into Status answers and
 * adds Warning headers, close(), and a kubeconfig pointing at it.
 */

import type { Logger } from "../domain/log.ts";
import { isCrdResource, syncCrd } from "./crd.ts";
import { installCrdFiles } from "./crd_files.ts";
import { collectGarbage } from "./garbage_collector.ts";
import { DEFAULT_EVENT_TTL_MS, EventTtl } from "./event_ttl.ts";
import { json } from "./json.ts";
import { defaultResources, findResource } from "./registry.ts";
import { route } from "./routing.ts";
import { createDefaultServiceAccount } from "./service_accounts.ts";
import type { RequestContext, State } from "./state.ts";
import { StatusError } from "./status.ts";
import { ObjectStore } from "./store.ts";
import type { RayClusterResourceOptions, ResourceType } from "./types.ts";
import { createNamespace } from "./verbs.ts";
import { installKueue, type KueueOptions } from "./kueue/queues.ts";

export interface StandinOptions {
  /** Defaults to 127.0.0.1. */
  hostname?: string;
  /** Defaults to 0 (a free port). */
  port?: number;
  /** The served resource types; defaults to `defaultResources()`. */
  resources?: ResourceType[];
  /** Group, version and plural of RayCluster when `resources` is not given. */
  rayCluster?: RayClusterResourceOptions;
  /** Create namespaces on first write (default true); see the module doc. */
  implicitNamespaces?: boolean;
  /** Largest accepted request body; the real server's limit is 3 MiB. */
  maxBodyBytes?: number;
  /**
   * CustomResourceDefinition files (YAML or JSON, any number of documents)
   * installed at start, as if POSTed; startStandin throws when one cannot
   * be read or is refused.
   */
  crds?: string[];
  /** Serve Kueue's queues (kueue/queues.ts), with dev mode's if `dev`. */
  kueue?: KueueOptions;
  /**
   * Changes retained per resource type for watches and continue tokens
   * (default 1000); older resourceVersions are answered 410 Expired.
   */
  watchHistory?: number;
  /** How often a watch with allowWatchBookmarks gets a BOOKMARK (60 s). */
  bookmarkIntervalMs?: number;
  /**
   * How long an Event lives after its last write, as kube-apiserver's
   * --event-ttl (1 hour), on the `now` clock (event_ttl.ts).
   */
  eventTtlMs?: number;
  /**
   * The clock of service-account token lifetimes and of Events' expiry, in
   * milliseconds since the epoch; Date.now by default. Tests move it to
   * expire tokens and Events.
   */
  now?: () => number;
  logger?: Logger;
}

export interface Standin {
  /** Base URL, e.g. `http://127.0.0.1:43123`. */
  readonly url: string;
  readonly port: number;
  /** The served resource types (CRDs add and remove some). */
  readonly resources: readonly ResourceType[];
  /** Ends open watches, stops listening and waits for open requests. */
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;

const DEFAULT_WATCH_HISTORY = 1000;

const DEFAULT_BOOKMARK_INTERVAL_MS = 60_000;

const INITIAL_NAMESPACES = [
  "default",
  "kube-node-lease",
  "kube-public",
  "kube-system",
];

/** Starts the stand-in; it is listening when this returns. */
export function startStandin(options: StandinOptions = {}): Standin {
  const resources = [
    ...(options.resources ?? defaultResources(options.rayCluster)),
  ];
  const state: State = {
    resources,
    shadowed: new Map(),
    store: new ObjectStore(options.watchHistory ?? DEFAULT_WATCH_HISTORY),
    implicitNamespaces: options.implicitNamespaces ?? true,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    bookmarkIntervalMs: options.bookmarkIntervalMs ??
      DEFAULT_BOOKMARK_INTERVAL_MS,
    watches: new Set(),
    logger: options.logger,
    namespaceResource: findResource(resources, "", "v1", "namespaces"),
    tokens: new Map(),
    now: options.now ?? Date.now,
  };
  const eventTtl = new EventTtl(
    state,
    options.eventTtlMs ?? DEFAULT_EVENT_TTL_MS,
  );
  state.store.subscribe((event) => {
    if (isCrdResource(event.resource)) syncCrd(state, event);
    createDefaultServiceAccount(state, event);
    collectGarbage(state, event);
    eventTtl.observe(event);
  });
  if (state.namespaceResource) {
    for (const name of INITIAL_NAMESPACES) {
      createNamespace(state, state.namespaceResource, name);
    }
  }
  if (options.crds?.length) installCrdFiles(state, options.crds);
  if (options.kueue) installKueue(state, options.kueue);
  const hostname = options.hostname ?? "127.0.0.1";
  const server = Deno.serve(
    { hostname, port: options.port ?? 0, onListen() {} },
    (request) => handle(state, request),
  );
  const port = server.addr.port;
  const url = `http://${hostname}:${port}`;
  state.logger?.info("Started Kubernetes API stand-in", { url });
  return {
    url,
    port,
    get resources() {
      return state.resources;
    },
    async close() {
      for (const watch of [...state.watches]) watch.end();
      await server.shutdown();
    },
  };
}

export function kubeconfigFor(url: string, namespace = "default"): string {
  const quoted = (s: string) => JSON.stringify(s);
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: corral-standin",
    "  cluster:",
    `    server: ${quoted(url)}`,
    "    insecure-skip-tls-verify: true",
    "users:",
    "- name: corral-standin",
    "  user: {}",
    "contexts:",
    "- name: corral-standin",
    "  context:",
    "    cluster: corral-standin",
    "    user: corral-standin",
    `    namespace: ${quoted(namespace)}`,
    "current-context: corral-standin",
    "preferences: {}",
    "",
  ].join("\n");
}

/** `299 - "text"`: a Warning header value (RFC 7234). */
function warningHeader(text: string): string {
  return `299 - "${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

async function handle(state: State, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const context: RequestContext = { warnings: [], fieldValidation: "Warn" };
  let response: Response;
  try {
    response = await route(state, request, url, context);
  } catch (error) {
    if (error instanceof StatusError) {
      response = json(error.toStatus(), error.code);
    } else {
      state.logger?.error("Failed to serve request", {
        method: request.method,
        path: url.pathname,
        error: error instanceof Error ? error.message : String(error),
      });
      response = json(
        new StatusError(
          500,
          "InternalError",
          "Internal error occurred: the stand-in failed to serve the request",
        ).toStatus(),
        500,
      );
    }
  }
  for (const text of new Set(context.warnings)) {
    response.headers.append("warning", warningHeader(text));
  }
  return response;
}
