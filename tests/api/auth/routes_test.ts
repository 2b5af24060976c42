/**
 * No credentials, no API: every route the http rules compile to and every
 * gRPC method of the API definition, asked without valid credentials,
 * answers 401 / UNAUTHENTICATED before it reads the request (an invalid
 * body is still 401, and the body stream is never pulled); what is meant to
 * be open (health, readiness, the docs and their assets, the OpenAPI
 * document, gRPC health and reflection, and /metrics unless
 * --metrics-require-auth) answers without any. The API as main.ts wires it
 * (createApi), over the stand-in, with access read from real files.
 */
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import * as k8s from "@kubernetes/client-node";
import { type Api, createApi } from "../../../api/mod.ts";
import { silentLogger } from "../../../api/log.ts";
import { compileRoutes, type Route } from "../../../api/http/rules.ts";
import { methodKey } from "../../../api/schema.ts";
import { createKubernetesOrchestrator } from "../../../orchestrator/mod.ts";
import { kubeconfigFor, startStandin } from "../../../standin/mod.ts";
import { bindFreePort, schema } from "../../harness.ts";
import { grpcCaller } from "../grpc/client.ts";
import { discoveryClient } from "../grpc/discovery_client.ts";
import { ALICE, bearer, fileAccess } from "./access_fixtures.ts";
import { DashboardSessions } from "../../../api/auth/dashboard_sessions.ts";
import { directAccess } from "../../../orchestrator/cluster_access.ts";
import type { HttpUnit } from "../../../api/http/units.ts";
import type { DashboardJobApi } from "../../../domain/dashboard_ports.ts";

interface Running {
  api: Api;
  /** 127.0.0.1:PORT of the gRPC server. */
  grpc: string;
  /** The orchestrator's methods called, in order. */
  kubernetesRequests: string[];
  close(): Promise<void>;
}

/**
 * The orchestrator, noting the name of every method called, its kinds'
 * ports' included ("clusters.get").
 */
function recording<T extends object>(
  orchestrator: T,
  calls: string[],
  prefix = "",
): T {
  return new Proxy(orchestrator, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      const name = `${prefix}${String(property)}`;
      const port = typeof value === "object" && value !== null &&
        !(value instanceof Promise);
      if (port && !prefix) {
        return recording(value, calls, `${name}.`);
      }
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.push(name);
        return value.apply(target, args);
      };
    },
  });
}

/** createApi() as main.ts calls it, its gRPC server on 127.0.0.1:0. */
async function startApi(metricsRequireAuth: boolean): Promise<Running> {
  const kubernetesRequests: string[] = [];
  const standin = await startStandin({ hostname: "127.0.0.1", port: 0 });
  const files = await fileAccess();
  const kubeConfig = new k8s.KubeConfig();
  kubeConfig.loadFromString(kubeconfigFor(standin.url));
  const orchestrator = recording(
    createKubernetesOrchestrator({ kubeConfig }),
    kubernetesRequests,
  );
  const api = await createApi({
    orchestrator,
    access: files.access,
    metricsRequireAuth,
    clusterApiVersion: "ray.io/v1",
    namespaces: [],
    maxBodyBytes: 64 * 1024,
    version: "test",
    log: silentLogger(),
    // The dashboard proxy's units too; nothing may reach this address.
    dashboardProxy: {
      clusterAccess: directAccess({ baseUrlOf: () => "http://127.0.0.1:9" }),
      sessions: new DashboardSessions({ ttlMs: 60_000 }),
      timeoutMs: 1_000,
      maxRequestBytes: 1024,
      maxResponseBytes: 1024,
      // Job submission's calls are RPCs, refused before they reach it.
      jobs: {} as DashboardJobApi,
    },
  });
  const port = await bindFreePort(api.grpc);
  api.health.listeners.grpc = true;
  api.health.listeners.http = true;
  return {
    api,
    grpc: `127.0.0.1:${port}`,
    kubernetesRequests,
    async close() {
      api.grpcHealth.shutdown();
      await new Promise<void>((resolve) =>
        api.grpc.tryShutdown(() => resolve())
      );
      await files.close();
      await standin.close();
    },
  };
}

/** What a caller without valid credentials may present. */
const BAD_CREDENTIALS: { name: string; authorization?: string }[] = [
  { name: "no credentials" },
  { name: "a malformed header", authorization: "Bearer" },
  { name: "Basic", authorization: "Basic YWxpY2U6c2VjcmV0" },
  {
    name: "an unknown token",
    authorization: "Bearer unknown-0123456789abcdef0123456789abcdef",
  },
];

/** A path of the route, its variables filled in. */
function pathOf(route: Route): string {
  return "/" +
    route.segments.map((s) =>
      "literal" in s
        ? s.literal
        : s.variable === "namespace"
        ? "team-a"
        : "blue"
    ).join("/");
}

/** A body whose stream says whether anyone pulled it. */
function watchedBody(text: string): {
  body: ReadableStream<Uint8Array>;
  pulled: () => boolean;
} {
  let pulled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled = true;
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  }, { highWaterMark: 0 });
  return { body, pulled: () => pulled };
}

const BODIES = [
  { name: "a valid body", text: '{"name":"blue","cpu":1,"memory":1}' },
  { name: "an invalid body", text: "{not json" },
  { name: "a body over the size limit", text: "x".repeat(128 * 1024) },
];

Deno.test("every API route answers 401 without valid credentials, before reading the body", async (t) => {
  const running = await startApi(true);
  try {
    const routes = compileRoutes((await schema()).services);
    assert.ok(routes.length >= 10, `routes: got ${routes.length}`);
    const statuses: number[] = [];
    for (const route of routes) {
      for (const credentials of BAD_CREDENTIALS) {
        const bodies = route.body ? BODIES : [undefined];
        for (const body of bodies) {
          const what = `${route.verb} ${route.template}, ${credentials.name}${
            body ? `, ${body.name}` : ""
          }`;
          await t.step(what, async () => {
            const headers = new Headers();
            if (credentials.authorization !== undefined) {
              headers.set("authorization", credentials.authorization);
            }
            const watched = body ? watchedBody(body.text) : undefined;
            if (watched) headers.set("content-type", "application/json");
            const response = await running.api.http(
              new Request(`http://corral.test${pathOf(route)}`, {
                method: route.verb,
                headers,
                body: watched?.body,
                // @ts-ignore: a streaming body needs half duplex (fetch spec)
                duplex: "half",
              }),
            );
            statuses.push(response.status);
            const got = await response.json();
            assert.equal(response.status, 401, JSON.stringify(got));
            assert.equal(got.code, 16);
            assert.match(got.message, /^Unauthorized: /);
            assert.equal(
              response.headers.get("www-authenticate"),
              'Bearer realm="corral"',
            );
            assert.equal(watched?.pulled() ?? false, false, "body pulled");
          });
        }
      }
    }
    await t.step(
      "with valid credentials the body is read: the probe sees reads",
      async () => {
        const route = routes.find((r) => r.body)!;
        const watched = watchedBody(BODIES[1].text);
        const response = await running.api.http(
          new Request(`http://corral.test${pathOf(route)}`, {
            method: route.verb,
            headers: {
              authorization: bearer(ALICE),
              "content-type": "application/json",
            },
            body: watched.body,
            // @ts-ignore: a streaming body needs half duplex (fetch spec)
            duplex: "half",
          }),
        );
        assert.equal(response.status, 400, await response.text());
        assert.equal(watched.pulled(), true);
      },
    );
    assert.deepEqual(
      statuses.filter((status) => status !== 401),
      [],
      `of ${statuses.length} requests, those answered otherwise than 401`,
    );
    assert.deepEqual(running.kubernetesRequests, [], "Kubernetes calls");
  } finally {
    await running.close();
  }
});

/**
 * A path of the unit, its variables filled in: `{path=**}` a subpath, a
 * service the head service of cluster "blue".
 */
function unitPathOf(unit: HttpUnit): string {
  return unit.path.replace(
    /\{([^}=]+)(=[^}]*)?\}/g,
    (_, name: string) =>
      name === "namespace"
        ? "team-a"
        : name === "service"
        ? "blue-head-svc"
        : name === "path"
        ? "api/jobs"
        : "blue",
  );
}

Deno.test("every HTTP unit (dashboard and service proxies, Kubernetes-shaped routes, Events, discovery, whoami, /metrics) answers 401 without valid credentials, before reading the body", async (t) => {
  const running = await startApi(true);
  try {
    const units = running.api.httpUnits;
    assert.ok(units.length >= 40, `units: got ${units.length}`);
    for (const unit of units) {
      for (const method of unit.methods) {
        for (const credentials of BAD_CREDENTIALS) {
          const path = unitPathOf(unit);
          await t.step(
            `${unit.key}: ${method} ${path}, ${credentials.name}`,
            async () => {
              const headers = new Headers();
              if (credentials.authorization !== undefined) {
                headers.set("authorization", credentials.authorization);
              }
              const hasBody = method !== "GET" && method !== "DELETE";
              const watched = hasBody ? watchedBody(BODIES[0].text) : undefined;
              if (watched) headers.set("content-type", "application/json");
              const response = await running.api.http(
                new Request(`http://corral.test${path}`, {
                  method,
                  headers,
                  body: watched?.body,
                  // @ts-ignore: a streaming body needs half duplex (fetch spec)
                  duplex: "half",
                }),
              );
              const text = await response.text();
              assert.equal(response.status, 401, `${response.status} ${text}`);
              assert.equal(watched?.pulled() ?? false, false, "body read");
            },
          );
        }
      }
    }
    assert.deepEqual(running.kubernetesRequests, [], "Kubernetes calls");
  } finally {
    await running.close();
  }
});

Deno.test("every gRPC method answers UNAUTHENTICATED without valid credentials, before decoding the message", async (t) => {
  const running = await startApi(true);
  const api = await schema();
  const client = grpcCaller(api, running.grpc);
  try {
    const keys = api.services.flatMap((s) => s.methodsArray.map(methodKey));
    assert.deepEqual(
      new Set(keys),
      new Set(compileRoutes(api.services).map((r) => r.key)),
      "every method has an HTTP route, and no route is without a method",
    );
    for (const key of keys) {
      for (const credentials of BAD_CREDENTIALS) {
        await t.step(`${key}, ${credentials.name}`, async () => {
          const metadata = new grpc.Metadata();
          if (credentials.authorization !== undefined) {
            metadata.set("authorization", credentials.authorization);
          }
          const got = await client.call(key, {}, metadata);
          assert.equal(got.code, 16, `code: got ${got.code} (${got.message})`);
          assert.match(got.message, /^Unauthorized: /);
        });
      }
      await t.step(`${key}, no credentials, a malformed message`, async () => {
        const got = await client.callRaw(key, new Uint8Array([0x0a, 0xff]));
        assert.equal(got.code, 16, `code: got ${got.code} (${got.message})`);
      });
    }
    assert.deepEqual(running.kubernetesRequests, [], "Kubernetes calls");
  } finally {
    client.close();
    await running.close();
  }
});

Deno.test("health, readiness, the docs, the OpenAPI document, gRPC health and reflection need no credentials", async (t) => {
  const running = await startApi(true);
  const client = await discoveryClient(running.grpc, (await schema()).root);
  try {
    const get = async (path: string) => {
      const response = await running.api.http(
        new Request(`http://corral.test${path}`),
      );
      return { status: response.status, text: await response.text() };
    };
    for (
      const path of [
        "/healthz",
        "/readyz",
        "/docs",
        "/openapi.json",
        "/openapi.yaml",
      ]
    ) {
      await t.step(path, async () => {
        const got = await get(path);
        assert.equal(got.status, 200, got.text.slice(0, 200));
      });
    }
    await t.step("the docs' scripts", async () => {
      const html = (await get("/docs")).text;
      const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) =>
        m[1]
      );
      assert.ok(scripts.length > 0, "the page names its scripts");
      for (const src of scripts) {
        const got = await get(new URL(src, "http://corral.test/docs").pathname);
        assert.equal(got.status, 200, src);
      }
    });
    await t.step("gRPC health", async () => {
      assert.equal(await client.check(""), "SERVING");
      assert.equal(await client.check("proto.ClusterService"), "SERVING");
    });
    await t.step("gRPC reflection", async () => {
      const services = await client.listServices();
      assert.ok(services.includes("proto.ClusterService"), `${services}`);
      const files = await client.fileContainingSymbol("proto.ClusterService");
      assert.ok(files.length > 0);
    });
  } finally {
    client.close();
    await running.close();
  }
});

Deno.test("/metrics is open unless --metrics-require-auth", async (t) => {
  const cases: {
    requireAuth: boolean;
    authorization?: string;
    status: number;
  }[] = [
    { requireAuth: false, status: 200 },
    {
      requireAuth: false,
      authorization: "Bearer unknown-0123456789abcdef",
      status: 200,
    },
    { requireAuth: true, status: 401 },
    {
      requireAuth: true,
      authorization: "Bearer unknown-0123456789abcdef",
      status: 401,
    },
    { requireAuth: true, authorization: "Bearer", status: 401 },
    { requireAuth: true, authorization: bearer(ALICE), status: 200 },
  ];
  for (const requireAuth of [false, true]) {
    const running = await startApi(requireAuth);
    try {
      for (const c of cases.filter((c) => c.requireAuth === requireAuth)) {
        const name = `${
          requireAuth ? "with" : "without"
        } --metrics-require-auth, ${
          c.authorization === undefined
            ? "no credentials"
            : c.authorization === bearer(ALICE)
            ? "a valid token"
            : JSON.stringify(c.authorization)
        }: ${c.status}`;
        await t.step(name, async () => {
          const response = await running.api.http(
            new Request("http://corral.test/metrics", {
              headers: c.authorization === undefined
                ? {}
                : { authorization: c.authorization },
            }),
          );
          const text = await response.text();
          assert.equal(response.status, c.status, text.slice(0, 200));
          if (c.status === 401) {
            assert.equal(JSON.parse(text).code, 16);
            assert.equal(
              response.headers.get("www-authenticate"),
              'Bearer realm="corral"',
            );
          } else {
            assert.match(text, /corral_requests_total/);
          }
        });
      }
    } finally {
      await running.close();
    }
  }
});
