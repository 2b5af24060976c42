import assert from "node:assert/strict";
/**
 * Corral as main.ts wires it (createApi, the cache on, access read from
 * real files) behind the real HTTP listener, over the stand-in with the
 * operator's RayCluster CRD, for the tests of the Kubernetes-shaped routes
 * (ray_objects_test.ts, ray_objects_access_test.ts): what a client written
 * against the CRDs sends, and what it gets back.
 *
 * alice may do everything in team-a and team-q (where a quota of 2 CPUs
 * holds), bob everything in team-b, carol only get and list clusters in
 * team-a; root may do everything anywhere, host paths included.
 */
import { type Api, createApi } from "../../../api/mod.ts";
import { type HttpServer, serveHttp } from "../../../api/http/server.ts";
import { silentLogger } from "../../../api/log.ts";
import { startCorral } from "../../harness.ts";
import { RAY_CRD } from "../../orchestrator/cluster_shapes.ts";
import { kubeFetch } from "../../standin/with_standin.ts";
import {
  ALICE,
  auditLines,
  bearer,
  fileAccess,
  type Person,
} from "../auth/access_fixtures.ts";
import {
  allow,
  allowAll,
  groups,
  policyText,
  users,
} from "../auth/policy_fixtures.ts";

export const POLICY = policyText([
  allowAll(users("alice"), ["team-a", "team-q"]),
  allowAll(groups("team-b"), ["team-b"]),
  allow(users("carol"), ["team-a"], ["clusters"], ["get", "list"]),
  allowAll(groups("admins"), ["*"], { allowHostPath: true }),
], {
  quotas: [{ namespaces: ["team-q"], cpu: 2 }],
  expiry: [{ namespaces: ["team-a"], default: "8h", max: "24h" }],
});

export interface World {
  /** Corral's HTTP port: http://127.0.0.1:PORT */
  base: string;
  /** The stand-in, to write what Corral did not and see what it wrote. */
  kubeUrl: string;
  /** The audit trail's records so far. */
  audit(): Promise<Record<string, unknown>[]>;
}

/** Runs `run` against a new world, closed after it whatever happens. */
export async function withWorld(
  run: (world: World) => Promise<void>,
): Promise<void> {
  const corral = await startCorral({ crds: [RAY_CRD], cache: {} });
  const files = await fileAccess({ policy: POLICY });
  let api: Api | undefined;
  let listener: HttpServer | undefined;
  try {
    api = await createApi({
      orchestrator: corral.orchestrator!,
      access: files.access,
      clusterApiVersion: "ray.io/v1",
      namespaces: [],
      maxBodyBytes: 256 * 1024,
      version: "test",
      log: silentLogger(),
    });
    listener = await serveHttp({
      hostname: "127.0.0.1",
      port: 0,
      handler: api.http,
      log: silentLogger(),
    });
    await run({
      base: `http://127.0.0.1:${listener.port}`,
      kubeUrl: corral.kubeUrl,
      audit: () => auditLines(files.auditLog),
    });
  } finally {
    api?.objectWatches?.close();
    api?.watches?.close();
    api?.jobWatches?.close();
    await listener?.shutdown(0);
    api?.grpc.forceShutdown();
    await files.close();
    await corral.close();
  }
}

/** A request as a CRD client sends it: a JSON body, a bearer token. */
export function call(
  world: World,
  who: Person | undefined,
  method: string,
  path: string,
  body?: unknown,
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (who) headers.authorization = bearer(who);
  if (body !== undefined) headers["content-type"] = "application/json";
  return fetch(`${world.base}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** The answer's status and JSON body. */
export async function answer(
  response: Response,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return { status: response.status, body: await response.json() };
}

/** `/apis/ray.io/v1/namespaces/{namespace}/{plural}[/{name}]` */
export function pathOf(
  namespace: string,
  plural = "rayclusters",
  name?: string,
): string {
  return `/apis/ray.io/v1/namespaces/${namespace}/${plural}${
    name === undefined ? "" : `/${name}`
  }`;
}

/** A pod template of one container of `image` asking for `cpu` CPUs. */
function pod(container: string, cpu: string, extra: Record<string, unknown>) {
  const resources = { cpu, memory: "1Gi" };
  return {
    spec: {
      containers: [{
        name: container,
        image: "rayproject/ray:2.9.0",
        resources: { requests: resources, limits: { ...resources } },
      }],
      ...extra,
    },
  };
}

/**
 * A RayCluster as KubeRay's samples write it: a head and one worker, of
 * one CPU each; `pods` adds to each pod spec (volumes, say).
 */
export function rayCluster(
  name: string,
  options: {
    metadata?: Record<string, unknown>;
    pods?: Record<string, unknown>;
  } = {},
) {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: { name, ...options.metadata },
    spec: {
      rayVersion: "2.9.0",
      headGroupSpec: {
        rayStartParams: { "dashboard-host": "0.0.0.0" },
        template: pod("ray-head", "1", options.pods ?? {}),
      },
      workerGroupSpecs: [{
        groupName: "small",
        replicas: 1,
        minReplicas: 1,
        maxReplicas: 1,
        rayStartParams: {},
        template: pod("ray-worker", "1", options.pods ?? {}),
      }],
    },
  };
}

/**
 * Creates the RayCluster `name` in team-a through Corral as alice, asserting
 * it was created; its answer's body.
 */
export async function createdCluster(
  world: World,
  name: string,
): Promise<Record<string, unknown>> {
  const created = await answer(
    await call(world, ALICE, "POST", pathOf("team-a"), rayCluster(name)),
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

/** A RayCluster written straight to the stand-in, not by Corral. */
export async function foreignCluster(
  world: World,
  namespace: string,
  name: string,
): Promise<void> {
  const created = await kubeFetch(
    world.kubeUrl,
    "POST",
    pathOf(namespace, "rayclusters"),
    rayCluster(name),
  );
  if (created.status !== 201) throw new Error(await created.text());
}

/** The events of a watch answer, read one line at a time. */
export interface WatchReader {
  /** The next event; undefined once the watch has ended. */
  next(): Promise<Record<string, unknown> | undefined>;
  /** Stops reading: the client goes away. */
  close(): Promise<void>;
}

export function watchEvents(response: Response): WatchReader {
  const reader = response.body!.pipeThrough(new TextDecoderStream())
    .getReader();
  let buffered = "";
  return {
    async next() {
      for (;;) {
        const newline = buffered.indexOf("\n");
        if (newline >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          return JSON.parse(line);
        }
        const { done, value } = await reader.read();
        if (done) return undefined;
        buffered += value;
      }
    },
    close: () => reader.cancel(),
  };
}
