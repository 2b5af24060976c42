/**
 * The world of the dashboard proxy's attack tests: createApi as main.ts
 * wires it, behind the real HTTP listener, the clusters in the Kubernetes
 * stand-in read through the cache, and a recording server that plays the
 * cluster's dashboard (--cluster-access direct) or the Kubernetes API
 * server whose service proxy leads to it (apiserver-proxy), and keeps the
 * head of every request it gets.
 *
 * alice may get and proxy clusters in team-a, where "blue" is hers; erin
 * may proxy there too, her own clusters only ("erins"); bob may do
 * everything in team-b, where "blue" is his, and nothing in team-a.
 */
import assert from "node:assert/strict";
import * as k8s from "@kubernetes/client-node";
import { DashboardSessions } from "../../../api/auth/dashboard_sessions.ts";
import { createLogger, silentLogger } from "../../../api/log.ts";
import { type Api, createApi } from "../../../api/mod.ts";
import { type HttpServer, serveHttp } from "../../../api/http/server.ts";
import type { ClusterAccess } from "../../../domain/dashboard_ports.ts";
import {
  apiserverProxyAccess,
  directAccess,
} from "../../../orchestrator/cluster_access.ts";
import { DashboardJobs } from "../../../orchestrator/dashboard_jobs.ts";
import { startCorral } from "../../harness.ts";
import { RAY_CRD } from "../../orchestrator/cluster_shapes.ts";
import { kubeFetch } from "../../standin/with_standin.ts";
import {
  ALICE,
  bearer,
  BOB,
  fileAccess,
  type Person,
  person,
  tokenFileText,
} from "../auth/access_fixtures.ts";
import {
  allow,
  allowAllWithProxy,
  dashboardAccess,
  groups,
  policyText,
  users,
} from "../auth/policy_fixtures.ts";

export const ERIN = person("erin", "erin");

const POLICY = policyText([
  dashboardAccess(users("alice"), ["team-a"]),
  allow(users("erin"), ["team-a"], ["clusters"], ["get", "proxy"], {
    owners: "only",
  }),
  allowAllWithProxy(groups("team-b"), ["team-b"]),
]);

/** Sessions and sign-outs a replica remembers: few, so a flood is cheap. */
export const MAX_SESSIONS = 20;

/** More of bob's clusters in team-b than that. */
export const BOBS = Array.from(
  { length: MAX_SESSIONS + 5 },
  (_, i) => `bobs-${i}`,
);

/** Corral's own token, as its kubeconfig gives it to the API server. */
export const CORRAL_TOKEN = "corral-service-account-token";

/** The head of a request the recording server got. */
export interface Seen {
  method: string;
  path: string;
  headers: Headers;
  websocket: boolean;
}

/**
 * A server that answers every request "page" and accepts every WebSocket
 * upgrade, as a dashboard or the API server's service proxy to it would,
 * and keeps what it got.
 */
function recordingServer() {
  const seen: Seen[] = [];
  const sockets = new Set<WebSocket>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      const url = new URL(request.url);
      const websocket = request.headers.get("upgrade") === "websocket";
      seen.push({
        method: request.method,
        path: url.pathname,
        // A copy: an upgraded request's own are gone once it is answered.
        headers: new Headers(request.headers),
        websocket,
      });
      if (!websocket) return new Response("page");
      const { socket, response } = Deno.upgradeWebSocket(request);
      socket.onopen = () => sockets.add(socket);
      socket.onclose = () => sockets.delete(socket);
      return response;
    },
  );
  return {
    seen,
    base: `http://127.0.0.1:${server.addr.port}`,
    async close() {
      for (const socket of sockets) socket.close();
      await server.shutdown();
    },
  };
}

export type Recorder = ReturnType<typeof recordingServer>;

export interface World {
  base: string;
  recorder: Recorder;
}

/** A ready managed cluster in the stand-in, created by `owner`. */
async function ownedCluster(
  kubeUrl: string,
  namespace: string,
  name: string,
  owner: string,
): Promise<void> {
  const path = `/apis/ray.io/v1/namespaces/${namespace}/rayclusters`;
  const created = await kubeFetch(kubeUrl, "POST", path, {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: {
      name,
      namespace,
      labels: { "app.kubernetes.io/managed-by": "kuberay-apiserver" },
      annotations: { "ray.io/user": owner },
    },
    spec: {
      headGroupSpec: {
        rayStartParams: {},
        template: {
          spec: { containers: [{ name: "ray-head", image: "rayproject/ray" }] },
        },
      },
    },
  });
  assert.equal(created.status, 201, await created.text());
  const ready = await kubeFetch(kubeUrl, "PATCH", `${path}/${name}/status`, {
    status: { state: "ready" },
  });
  assert.equal(ready.status, 200, await ready.text());
}

/**
 * Team-a's blue (alice's) and erins (erin's); team-b's blue and more
 * clusters than a replica remembers sign-outs (bob's).
 */
async function clusters(kubeUrl: string): Promise<void> {
  await ownedCluster(kubeUrl, "team-a", "blue", "alice");
  await ownedCluster(kubeUrl, "team-a", "erins", "erin");
  await ownedCluster(kubeUrl, "team-b", "blue", "bob");
  for (const name of BOBS) {
    await ownedCluster(kubeUrl, "team-b", name, "bob");
  }
}

/** A kubeconfig whose API server is `server`, with Corral's token. */
export function kubeConfigOf(server: string): k8s.KubeConfig {
  const kubeConfig = new k8s.KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: "api", server, skipTLSVerify: true }],
    users: [{ name: "corral", token: CORRAL_TOKEN }],
    contexts: [{ name: "api", cluster: "api", user: "corral" }],
    currentContext: "api",
  });
  return kubeConfig;
}

/**
 * createApi over the stand-in (with the cache) behind a listener, its
 * dashboards reached the way `accessOf` makes of the recording server.
 */
export async function withWorld(
  accessOf: (recorder: Recorder) => ClusterAccess,
  run: (world: World) => Promise<void>,
): Promise<void> {
  const corral = await startCorral({ crds: [RAY_CRD], cache: {} });
  const files = await fileAccess({
    policy: POLICY,
    tokens: tokenFileText([ALICE, BOB, ERIN]),
  });
  const recorder = recordingServer();
  const access = accessOf(recorder);
  let api: Api | undefined;
  let listener: HttpServer | undefined;
  try {
    await clusters(corral.kubeUrl);
    api = await createApi({
      orchestrator: corral.orchestrator!,
      access: files.access,
      clusterApiVersion: "ray.io/v1",
      namespaces: [],
      maxBodyBytes: 64 * 1024,
      version: "test",
      fairUse: { rate: { perSecond: 10_000, burst: 10_000 }, maxStreams: 0 },
      log: createLogger({ format: "json", write: () => {} }),
      dashboardProxy: {
        clusterAccess: access,
        jobs: new DashboardJobs({
          access,
          timeoutMs: 10_000,
          maxResponseBytes: 1_000,
        }),
        sessions: new DashboardSessions({
          ttlMs: 60_000,
          maxSessions: MAX_SESSIONS,
        }),
        timeoutMs: 10_000,
        maxRequestBytes: 1_000,
        maxResponseBytes: 1_000,
      },
    });
    listener = await serveHttp({
      hostname: "127.0.0.1",
      port: 0,
      handler: api.http,
      log: silentLogger(),
    });
    await run({ base: `http://127.0.0.1:${listener.port}`, recorder });
  } finally {
    await listener?.shutdown(0);
    api?.grpc.forceShutdown();
    access.close();
    await recorder.close();
    await files.close();
    await corral.close();
  }
}

export function direct(recorder: Recorder): ClusterAccess {
  return directAccess({ baseUrlOf: () => recorder.base });
}

export function throughApiServer(recorder: Recorder): ClusterAccess {
  return apiserverProxyAccess(kubeConfigOf(`${recorder.base}/`));
}

export function dashboard(namespace: string, name: string, rest = ""): string {
  return `/apis/v1alpha2/namespaces/${namespace}/clusters/${name}/dashboard${rest}`;
}

/** One call; its status, code and message, or the status alone. */
export async function call(
  world: World,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<
  { status: number; code?: number; message?: string; cookie?: string }
> {
  const response = await fetch(`${world.base}${path}`, { method, headers });
  const text = await response.text();
  const setCookie = response.headers.get("set-cookie");
  const body = response.headers.get("content-type") === "application/json"
    ? JSON.parse(text)
    : {};
  return {
    status: response.status,
    ...(typeof body.code === "number"
      ? { code: body.code, message: body.message }
      : {}),
    ...(setCookie ? { cookie: setCookie.split(";")[0] } : {}),
  };
}

/** A dashboard cookie of `who` for the cluster. */
export async function opened(
  world: World,
  who: Person,
  namespace = "team-a",
  name = "blue",
): Promise<string> {
  const answer = await call(
    world,
    "POST",
    dashboard(namespace, name, ":session"),
    { authorization: bearer(who) },
  );
  assert.equal(answer.status, 200, JSON.stringify(answer));
  return answer.cookie!;
}

export function signOut(
  world: World,
  who: Person,
  namespace: string,
  name: string,
) {
  return call(world, "DELETE", dashboard(namespace, name, ":session"), {
    authorization: bearer(who),
  });
}

/** The status of the cluster's dashboard page with `cookie` alone. */
export async function withCookie(
  world: World,
  cookie: string,
  namespace = "team-a",
  name = "blue",
): Promise<number> {
  return (await call(world, "GET", dashboard(namespace, name, "/"), {
    cookie,
  })).status;
}
