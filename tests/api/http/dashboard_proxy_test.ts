/**
 * The dashboard proxy (api/http/dashboard_proxy.ts) as an attacker and a
 * browser meet it: real token and policy files re-read every 100 ms, the
 * clusters in the Kubernetes stand-in, and a fake Ray dashboard on a
 * loopback port that records every request it gets.
 */
import assert from "node:assert/strict";
import { createAccess } from "../../../api/auth/access.ts";
import { DashboardSessions } from "../../../api/auth/dashboard_sessions.ts";
import { DashboardProxy } from "../../../api/http/dashboard_proxy.ts";
import type { Router } from "../../../api/http/router.ts";
import { silentLogger } from "../../../api/log.ts";
import { serveHttp } from "../../../api/http/server.ts";
import { directAccess } from "../../../orchestrator/cluster_access.ts";
import type { ServicePort } from "../../../domain/dashboard_ports.ts";
import { startCorral } from "../../harness.ts";
import { unitRouter } from "../../unit_router.ts";
import { until } from "../../eventually.ts";
import { RAY_CRD } from "../../orchestrator/cluster_shapes.ts";
import { kubeFetch } from "../../standin/with_standin.ts";
import {
  ALICE,
  auditLines,
  bearer,
  BOB,
  CAROL,
  DAVE,
  PEOPLE,
  person,
  tokenFileText,
  writeAccessFiles,
} from "../auth/access_fixtures.ts";
import {
  allow,
  allowAll,
  dashboardAccess,
  policyText,
  users,
} from "../auth/policy_fixtures.ts";

/**
 * alice may get and proxy clusters in team-a; carol may do "*" there, which
 * does not include proxy; bob may proxy in team-b only; dave has no rule.
 */
const OTHERS = [
  allowAll(users("carol"), ["team-a"]),
  allow(users("bob"), ["team-b"], ["clusters"], ["proxy"]),
  allow(users("erin"), ["team-a"], ["clusters"], ["proxy"], { owners: "only" }),
];
const POLICY = policyText([
  dashboardAccess(users("alice"), ["team-a"]),
  ...OTHERS,
]);

/** May proxy in team-a, to her own clusters only. */
const ERIN = person("erin", "erin");
/** The policy with alice's proxy taken away. */
const WITHOUT_ALICE = policyText([
  allow(users("alice"), ["team-a"], ["clusters"], ["get"]),
  ...OTHERS,
]);

const LIMIT = 1000;
const TIMEOUT_MS = 500;

interface Seen {
  method: string;
  url: string;
  headers: Headers;
  body: string;
}

/** A Ray dashboard stand-in: a few pages, and what it was sent. */
function fakeDashboard() {
  const seen: Seen[] = [];
  const hanging = Promise.withResolvers<void>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      const url = new URL(request.url);
      seen.push({
        method: request.method,
        url: url.pathname + url.search,
        headers: request.headers,
        body: await request.text(),
      });
      switch (url.pathname) {
        case "/":
          return new Response("<title>Ray Dashboard</title>", {
            headers: { "content-type": "text/html" },
          });
        case "/moved":
          return new Response(null, {
            status: 302,
            headers: { location: "/jobs/7?x=1" },
          });
        case "/moved-absolute":
          return new Response(null, {
            status: 301,
            headers: { location: `${url.origin}/api/jobs/` },
          });
        case "/moved-away":
          return new Response(null, {
            status: 302,
            headers: { location: "https://example.com/elsewhere" },
          });
        case "/hop":
          return new Response("ok", {
            headers: {
              connection: "x-private-hop",
              "x-private-hop": "secret",
              "keep-alive": "timeout=5",
              "set-cookie": "planted=1; Path=/",
              "service-worker-allowed": "/",
              "x-kept": "yes",
            },
          });
        case "/huge":
          return new Response("x".repeat(LIMIT * 2));
        case "/huge-stream":
          return new Response(
            new ReadableStream({
              start(controller) {
                for (let i = 0; i < 4; i++) {
                  controller.enqueue(
                    new TextEncoder().encode("y".repeat(LIMIT)),
                  );
                }
                controller.close();
              },
            }),
          );
        case "/slow":
          await Promise.race([hanging.promise, timeout(5_000)]);
          return new Response("late");
        default:
          return Response.json({ path: url.pathname, method: request.method });
      }
    },
  );
  return {
    seen,
    base: `http://127.0.0.1:${server.addr.port}`,
    async close() {
      hanging.resolve();
      await server.shutdown();
    },
  };
}

function timeout(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const id = setTimeout(resolve, ms);
    Deno.unrefTimer(id);
  });
}

interface World {
  proxy: Router;
  dashboard: ReturnType<typeof fakeDashboard>;
  /** The services the proxy asked for. */
  services: ServicePort[];
  auditLog: string;
  policyFile: string;
  tokenFile: string;
}

/** A managed RayCluster in the stand-in, with `status`. */
async function rayCluster(
  kubeUrl: string,
  namespace: string,
  name: string,
  status?: Record<string, unknown>,
  owner?: string,
): Promise<void> {
  const path = `/apis/ray.io/v1/namespaces/${namespace}/rayclusters`;
  const created = await kubeFetch(kubeUrl, "POST", path, {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: {
      name,
      namespace,
      labels: { "app.kubernetes.io/managed-by": "kuberay-apiserver" },
      ...(owner ? { annotations: { "ray.io/user": owner } } : {}),
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
  if (!status) return;
  const patched = await kubeFetch(
    kubeUrl,
    "PATCH",
    `${path}/${name}/status`,
    { status },
  );
  assert.equal(patched.status, 200, await patched.text());
}

async function withWorld(run: (world: World) => Promise<void>): Promise<void> {
  const corral = await startCorral({ crds: [RAY_CRD] });
  const files = await writeAccessFiles({
    policy: POLICY,
    tokens: tokenFileText([...PEOPLE, ERIN]),
  });
  const access = await createAccess({
    tokenAuthFile: files.tokenFile,
    tokenReview: false,
    anonymous: false,
    policyFile: files.policyFile,
    auditLogPath: files.auditLog,
    metricsRequireAuth: false,
  }, { log: silentLogger(), reloadIntervalMs: 100 });
  const dashboard = fakeDashboard();
  const services: ServicePort[] = [];
  try {
    await rayCluster(corral.kubeUrl, "team-a", "blue", {
      state: "ready",
      head: { serviceName: "blue-head" },
    });
    await rayCluster(corral.kubeUrl, "team-a", "green", { state: "ready" });
    await rayCluster(corral.kubeUrl, "team-a", "red", { state: "unhealthy" });
    await rayCluster(corral.kubeUrl, "team-a", "new");
    await rayCluster(corral.kubeUrl, "team-a", "far", { state: "ready" });
    await rayCluster(corral.kubeUrl, "team-b", "blue", { state: "ready" });
    await rayCluster(
      corral.kubeUrl,
      "team-a",
      "erins",
      { state: "ready" },
      "erin",
    );
    const proxy = new DashboardProxy({
      orchestrator: corral.orchestrator!,
      clusterAccess: directAccess({
        baseUrlOf(service) {
          services.push(service);
          // Cluster "far"'s head answers on no port: nothing listens on 9.
          return service.name === "far-head-svc"
            ? "http://127.0.0.1:9"
            : dashboard.base;
        },
      }),
      sessions: new DashboardSessions({ ttlMs: 60_000 }),
      timeoutMs: TIMEOUT_MS,
      maxRequestBytes: LIMIT,
      maxResponseBytes: LIMIT,
      secure: false,
      log: silentLogger(),
    });
    await run({
      proxy: await unitRouter(proxy.units(), {
        access,
        orchestrator: corral.orchestrator!,
      }),
      dashboard,
      services,
      auditLog: files.auditLog,
      policyFile: files.policyFile,
      tokenFile: files.tokenFile,
    });
  } finally {
    await dashboard.close();
    await access.close();
    await files.remove();
    await corral.close();
  }
}

const ORIGIN = "http://corral.test";

function path(cluster: string, rest = "", namespace = "team-a"): string {
  return `/apis/v1alpha2/namespaces/${namespace}/clusters/${cluster}/dashboard${rest}`;
}

async function send(
  world: World,
  target: string,
  init: RequestInit = {},
): Promise<Response> {
  return await world.proxy(new Request(`${ORIGIN}${target}`, init));
}

async function errorOf(
  response: Response,
): Promise<{ status: number; code: number; message: string }> {
  assert.equal(response.headers.get("content-type"), "application/json");
  const body = await response.json();
  return { status: response.status, code: body.code, message: body.message };
}

/** A dashboard cookie for `cluster`, opened with `person`'s token. */
async function sessionCookie(
  world: World,
  person: typeof ALICE,
  cluster = "blue",
  namespace = "team-a",
): Promise<{ cookie: string; setCookie: string }> {
  const opened = await send(
    world,
    path(cluster, ":session", namespace),
    { method: "POST", headers: { authorization: bearer(person) } },
  );
  assert.equal(opened.status, 200, await opened.clone().text());
  const setCookie = opened.headers.get("set-cookie")!;
  await opened.body?.cancel();
  return { cookie: setCookie.split(";")[0], setCookie };
}

Deno.test("dashboard proxy: only callers granted proxy in the namespace get through, by bearer token", async () => {
  await withWorld(async (world) => {
    const cases: [string, string | undefined, number, string][] = [
      ["alice (get, proxy)", bearer(ALICE), 200, ""],
      [
        'carol ("*" does not grant proxy)',
        bearer(CAROL),
        403,
        'Cannot proxy to cluster "team-a/blue": user "carol" may not proxy clusters in namespace "team-a"',
      ],
      ["bob (proxy in team-b only)", bearer(BOB), 403, 'user "bob"'],
      ["dave (no rule)", bearer(DAVE), 403, 'user "dave"'],
      ["no credentials", undefined, 401, "Unauthorized"],
      ["an unknown token", "Bearer nobody-0123456789", 401, "Unauthorized"],
    ];
    for (const [who, authorization, status, message] of cases) {
      const before = world.dashboard.seen.length;
      const response = await send(world, path("blue", "/api/jobs/"), {
        headers: authorization ? { authorization } : {},
      });
      if (status === 200) {
        assert.equal(response.status, 200, who);
        assert.deepEqual(await response.json(), {
          path: "/api/jobs/",
          method: "GET",
        });
        continue;
      }
      const error = await errorOf(response);
      assert.equal(error.status, status, `${who}: ${error.message}`);
      assert.ok(error.message.includes(message), `${who}: ${error.message}`);
      assert.equal(world.dashboard.seen.length, before, `${who} reached it`);
    }
    // bob may proxy team-b's cluster of the same name.
    const bobs = await send(world, path("blue", "/", "team-b"), {
      headers: { authorization: bearer(BOB) },
    });
    assert.equal(bobs.status, 200);
    await bobs.body?.cancel();
  });
});

Deno.test("dashboard proxy: under owners: only, a caller reaches only the dashboards of its own clusters", async () => {
  await withWorld(async (world) => {
    const own = await send(world, path("erins", "/"), {
      headers: { authorization: bearer(ERIN) },
    });
    assert.equal(own.status, 200);
    await own.body?.cancel();
    const error = await errorOf(
      await send(world, path("blue", "/"), {
        headers: { authorization: bearer(ERIN) },
      }),
    );
    assert.equal(error.status, 403);
    assert.match(
      error.message,
      /user "erin" may not proxy to a cluster of no recorded owner/,
    );
  });
});

Deno.test("dashboard proxy: the head service is status.head.serviceName, else <name>-head-svc, on port 8265", async () => {
  await withWorld(async (world) => {
    for (const cluster of ["blue", "green"]) {
      const response = await send(world, path(cluster, "/"), {
        headers: { authorization: bearer(ALICE) },
      });
      assert.equal(await response.text(), "<title>Ray Dashboard</title>");
    }
    assert.deepEqual(world.services, [
      { namespace: "team-a", name: "blue-head", port: 8265 },
      { namespace: "team-a", name: "green-head-svc", port: 8265 },
    ]);
  });
});

Deno.test("dashboard proxy: the caller's Authorization and cookies never reach the dashboard", async () => {
  await withWorld(async (world) => {
    const { cookie } = await sessionCookie(world, ALICE);
    const sets: Record<string, string>[] = [
      { authorization: bearer(ALICE), cookie: "console=secret; other=1" },
      { cookie: `${cookie}; console=secret` },
    ];
    for (const headers of sets) {
      const response = await send(world, path("blue", "/api/jobs/?limit=2"), {
        method: "POST",
        headers: {
          ...headers,
          "proxy-authorization": "Basic c2VjcmV0",
          "content-type": "application/json",
          "x-forwarded-for": "6.6.6.6",
        },
        body: '{"entrypoint":"echo hi"}',
      });
      assert.equal(response.status, 200);
      await response.body?.cancel();
      const got = world.dashboard.seen.at(-1)!;
      assert.equal(got.url, "/api/jobs/?limit=2");
      assert.equal(got.method, "POST");
      assert.equal(got.body, '{"entrypoint":"echo hi"}');
      assert.equal(got.headers.get("content-type"), "application/json");
      for (const name of ["authorization", "cookie", "proxy-authorization"]) {
        assert.equal(got.headers.get(name), null, name);
      }
      assert.notEqual(got.headers.get("x-forwarded-for"), "6.6.6.6");
      assert.equal(
        got.headers.get("x-forwarded-prefix"),
        "/apis/v1alpha2/namespaces/team-a/clusters/blue/dashboard",
      );
    }
  });
});

Deno.test("dashboard proxy: a session cookie is HttpOnly, SameSite=Strict, for that one cluster's path, and opens only that cluster", async () => {
  await withWorld(async (world) => {
    const { cookie, setCookie } = await sessionCookie(world, ALICE);
    assert.match(setCookie, /^corral-dashboard=[^;]+; /);
    const attributes = setCookie.split("; ").slice(1);
    assert.deepEqual(attributes, [
      "Path=/apis/v1alpha2/namespaces/team-a/clusters/blue/dashboard/",
      "Max-Age=60",
      "HttpOnly",
      "SameSite=Strict",
    ]);
    const opened = await send(world, path("blue", "/"), {
      headers: { cookie },
    });
    assert.equal(opened.status, 200);
    await opened.body?.cancel();
    // The same cookie sent to cluster green, or to team-b's blue.
    for (const other of [path("green", "/"), path("blue", "/", "team-b")]) {
      const error = await errorOf(
        await send(world, other, { headers: { cookie } }),
      );
      assert.equal(error.status, 401, other);
      assert.match(error.message, /dashboard cookie is not valid/);
    }
    // A cookie value altered by one character.
    const forged = cookie.slice(0, -1) + (cookie.endsWith("A") ? "B" : "A");
    const refused = await send(world, path("blue", "/"), {
      headers: { cookie: forged },
    });
    assert.equal(refused.status, 401);
    await refused.body?.cancel();
  });
});

Deno.test("dashboard proxy: a session is only opened for a caller granted proxy, with its own credentials", async () => {
  await withWorld(async (world) => {
    const carol = await send(world, path("blue", ":session"), {
      method: "POST",
      headers: { authorization: bearer(CAROL) },
    });
    const error = await errorOf(carol);
    assert.equal(error.status, 403);
    assert.equal(carol.headers.get("set-cookie"), null);
    // A cookie does not open another session.
    const { cookie } = await sessionCookie(world, ALICE);
    const again = await send(world, path("blue", ":session"), {
      method: "POST",
      headers: { cookie },
    });
    assert.equal(again.status, 401);
    await again.body?.cancel();
  });
});

Deno.test("dashboard proxy: a revoked caller's cookie stops working within 2 s, and sign-out ends it", async () => {
  await withWorld(async (world) => {
    const { cookie } = await sessionCookie(world, ALICE);
    const status = async () => {
      const response = await send(world, path("blue", "/"), {
        headers: { cookie },
      });
      await response.body?.cancel();
      return response.status;
    };
    assert.equal(await status(), 200);
    await Deno.writeTextFile(world.policyFile, WITHOUT_ALICE);
    await until(
      "the policy change to refuse alice's cookie",
      async () => await status() === 403,
      2_000,
    );

    // Her token taken out of the token file.
    await Deno.writeTextFile(world.policyFile, POLICY);
    await until(
      "alice's cookie to work again",
      async () => await status() === 200,
      2_000,
    );
    await Deno.writeTextFile(
      world.tokenFile,
      tokenFileText([BOB, CAROL, DAVE]),
    );
    await until(
      "the token file change to refuse alice's cookie",
      async () => await status() === 401,
      2_000,
    );

    // bob signs out: his cookie ends, and the answer clears it.
    const bobs = await sessionCookie(world, BOB, "blue", "team-b");
    const signedOut = await send(world, path("blue", ":session", "team-b"), {
      method: "DELETE",
      headers: { authorization: bearer(BOB) },
    });
    assert.equal(signedOut.status, 200);
    assert.deepEqual(await signedOut.json(), { ended: 1 });
    assert.match(signedOut.headers.get("set-cookie")!, /Max-Age=0/);
    const after = await send(world, path("blue", "/", "team-b"), {
      headers: { cookie: bobs.cookie },
    });
    assert.equal(after.status, 401);
    await after.body?.cancel();
  });
});

Deno.test("dashboard proxy: a cluster that is not ready answers code 9 naming its state", async () => {
  await withWorld(async (world) => {
    const cases: [string, string][] = [
      ["red", 'its state is "unhealthy"'],
      ["new", "its state is not reported yet"],
    ];
    for (const [cluster, state] of cases) {
      const error = await errorOf(
        await send(world, path(cluster, "/"), {
          headers: { authorization: bearer(ALICE) },
        }),
      );
      assert.deepEqual(
        [error.status, error.code, error.message],
        [
          400,
          9,
          `Cannot proxy to cluster "team-a/${cluster}": the cluster is not ready: ${state}`,
        ],
      );
    }
    const missing = await errorOf(
      await send(world, path("gone", "/"), {
        headers: { authorization: bearer(ALICE) },
      }),
    );
    assert.deepEqual([missing.status, missing.code], [404, 5]);
    assert.equal(world.dashboard.seen.length, 0);
  });
});

Deno.test("dashboard proxy: a bad key or an escaping path is code 3, naming it, before anything is sent", async () => {
  await withWorld(async (world) => {
    const cases: [string, RegExp][] = [
      [path("Blue!", "/"), /name/],
      [path("blue", "/a%2F..%2F..%2Fsecrets"), /may not have segments/],
      [path("blue", "/a/..%5C..%5Csecrets"), /may not have segments/],
    ];
    for (const [target, message] of cases) {
      const error = await errorOf(
        await send(world, target, {
          headers: { authorization: bearer(ALICE) },
        }),
      );
      assert.deepEqual([error.status, error.code], [400, 3], target);
      assert.match(error.message, message);
    }
    // Dot segments, even encoded, are resolved when the URL is parsed: out
    // of the proxy path, so to no cluster's dashboard.
    const dots = await send(world, path("blue", "/a/%2e%2e/%2e%2e/secrets"), {
      headers: { authorization: bearer(ALICE) },
    });
    assert.equal(dots.status, 404);
    await dots.body?.cancel();
    assert.equal(world.dashboard.seen.length, 0);
  });
});

Deno.test("dashboard proxy: hop-by-hop headers are dropped both ways, and Location is rewritten under the proxy path", async () => {
  await withWorld(async (world) => {
    const auth = { authorization: bearer(ALICE) };
    const hop = await send(world, path("blue", "/hop"), {
      headers: {
        ...auth,
        connection: "x-client-hop",
        "x-client-hop": "1",
        te: "trailers",
      },
    });
    assert.equal(await hop.text(), "ok");
    for (
      const name of [
        "x-private-hop",
        "keep-alive",
        "set-cookie",
        "service-worker-allowed",
      ]
    ) {
      assert.equal(hop.headers.get(name), null, name);
    }
    assert.equal(hop.headers.get("x-kept"), "yes");
    const sent = world.dashboard.seen.at(-1)!.headers;
    assert.equal(sent.get("x-client-hop"), null);
    assert.equal(sent.get("te"), null);

    const prefix = path("blue");
    const cases: [string, string][] = [
      ["/moved", `${prefix}/jobs/7?x=1`],
      ["/moved-absolute", `${prefix}/api/jobs/`],
      ["/moved-away", "https://example.com/elsewhere"],
    ];
    for (const [from, want] of cases) {
      const response = await send(world, path("blue", from), { headers: auth });
      assert.equal(response.headers.get("location"), want, from);
      await response.body?.cancel();
    }
    // The bare dashboard path goes to its root, where relative links work.
    const bare = await send(world, path("blue", "?a=1"), { headers: auth });
    assert.equal(bare.status, 308);
    assert.equal(bare.headers.get("location"), `${prefix}/?a=1`);
  });
});

Deno.test("dashboard proxy: answers too large or too slow and requests too large are cut with a JSON error, never hang", async () => {
  await withWorld(async (world) => {
    const auth = { authorization: bearer(ALICE) };
    const huge = await errorOf(
      await send(world, path("blue", "/huge"), { headers: auth }),
    );
    assert.deepEqual([huge.status, huge.code], [502, 14]);
    assert.match(huge.message, /larger than 1000 bytes/);

    const started = Date.now();
    const slow = await errorOf(
      await send(world, path("blue", "/slow"), { headers: auth }),
    );
    assert.deepEqual([slow.status, slow.code], [504, 4]);
    assert.match(slow.message, /did not answer within 500 ms/);
    assert.ok(Date.now() - started < 3_000);

    // Without a Content-Length, the answer is cut where it passes the limit.
    const streamed = await send(world, path("blue", "/huge-stream"), {
      headers: auth,
    });
    assert.equal(streamed.status, 200);
    await assert.rejects(streamed.text());

    const far = await errorOf(
      await send(world, path("far", "/"), { headers: auth }),
    );
    assert.deepEqual([far.status, far.code, far.message], [
      502,
      14,
      'Cannot proxy to cluster "team-a/far": the dashboard cannot be reached',
    ]);

    const big = await errorOf(
      await send(world, path("blue", "/upload"), {
        method: "PUT",
        headers: auth,
        body: "z".repeat(LIMIT + 1),
      }),
    );
    assert.deepEqual([big.status, big.code], [413, 8]);
  });
});

Deno.test("dashboard proxy: every request is audited with who, which cluster, method, path and status", async () => {
  await withWorld(async (world) => {
    const ok = await send(world, path("blue", "/api/jobs/"), {
      headers: { authorization: bearer(ALICE) },
    });
    await ok.body?.cancel();
    const refused = await send(world, path("blue", "/"), {
      method: "DELETE",
      headers: { authorization: bearer(CAROL) },
    });
    await refused.body?.cancel();
    const lines = await auditLines(world.auditLog);
    const proxied = lines.filter((line) => line.verb === "proxy");
    assert.deepEqual(
      proxied.map((line) => [
        line.user,
        line.namespace,
        line.name,
        line.method,
        line.path,
        line.status,
        line.code,
      ]),
      [
        ["alice", "team-a", "blue", "GET", path("blue", "/api/jobs/"), 200, 0],
        ["carol", "team-a", "blue", "DELETE", path("blue", "/"), 403, 7],
      ],
    );
  });
});

Deno.test("dashboard proxy behind the HTTP listener: a cut answer ends its connection, and the listener serves on", async () => {
  await withWorld(async (world) => {
    const server = await serveHttp({
      hostname: "127.0.0.1",
      port: 0,
      handler: world.proxy,
      log: silentLogger(),
    });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const auth = { authorization: bearer(ALICE) };
      // Cut before or after its headers, as the listener had written them.
      await assert.rejects(async () => {
        const cut = await fetch(`${base}${path("blue", "/huge-stream")}`, {
          headers: auth,
        });
        await cut.text();
      });
      const head = await fetch(`${base}${path("blue", "/")}`, {
        method: "HEAD",
        headers: auth,
      });
      assert.equal(head.status, 200);
      assert.equal(await head.text(), "");
      const page = await fetch(`${base}${path("blue", "/")}`, {
        headers: auth,
      });
      assert.equal(await page.text(), "<title>Ray Dashboard</title>");
    } finally {
      await server.shutdown(1_000);
    }
  });
});

/** KubeRay's service proxy path of `service` ("green-head-svc:8265"). */
function servicePath(service: string, rest = "", namespace = "team-a") {
  return `/api/v1/namespaces/${namespace}/services/${service}/proxy${rest}`;
}

Deno.test("KubeRay's service proxy reaches a head service's dashboard, by each way Kubernetes names its port, for callers granted proxy only", async () => {
  await withWorld(async (world) => {
    for (
      const service of [
        "green-head-svc",
        "green-head-svc:8265",
        "green-head-svc:dashboard",
        "http:green-head-svc:8265",
      ]
    ) {
      const response = await send(world, servicePath(service, "/api/jobs/"), {
        headers: { authorization: bearer(ALICE) },
      });
      assert.equal(response.status, 200, service);
      assert.deepEqual(await response.json(), {
        path: "/api/jobs/",
        method: "GET",
      });
    }
    assert.deepEqual(world.services.at(-1), {
      namespace: "team-a",
      name: "green-head-svc",
      port: 8265,
    });
    const cases: [string | undefined, number, string][] = [
      [
        bearer(CAROL),
        403,
        'Cannot proxy to cluster "team-a/green": user "carol" may not proxy clusters in namespace "team-a"',
      ],
      [bearer(BOB), 403, 'user "bob"'],
      [undefined, 401, "Unauthorized"],
    ];
    for (const [authorization, status, message] of cases) {
      const before = world.dashboard.seen.length;
      const error = await errorOf(
        await send(world, servicePath("green-head-svc", "/"), {
          headers: authorization ? { authorization } : {},
        }),
      );
      assert.equal(error.status, status, error.message);
      assert.ok(error.message.includes(message), error.message);
      assert.equal(world.dashboard.seen.length, before);
    }
  });
});

Deno.test("KubeRay's service proxy serves only the dashboard's port of the head services of Corral's clusters, and rewrites Location under its own path", async () => {
  await withWorld(async (world) => {
    const auth = { authorization: bearer(ALICE) };
    const before = world.dashboard.seen.length;
    const port = await errorOf(
      await send(world, servicePath("green-head-svc:8000", "/"), {
        headers: auth,
      }),
    );
    assert.equal(port.status, 404);
    assert.match(port.message, /only the dashboard's port .* not "8000"/);
    // blue's head service is "blue-head" (status.head.serviceName).
    const renamed = await errorOf(
      await send(world, servicePath("blue-head-svc", "/"), { headers: auth }),
    );
    assert.equal(renamed.status, 404);
    assert.match(renamed.message, /its head service is "blue-head"/);
    for (const other of ["kube-dns", "green-head-svc:8265:x"]) {
      const response = await send(world, servicePath(other, "/"), {
        headers: auth,
      });
      assert.equal(response.status, 404, other);
      await response.body?.cancel();
    }
    assert.equal(world.dashboard.seen.length, before, "nothing reached it");

    const prefix = servicePath("green-head-svc:8265");
    const moved = await send(
      world,
      servicePath("green-head-svc:8265", "/moved"),
      {
        headers: auth,
      },
    );
    assert.equal(moved.headers.get("location"), `${prefix}/jobs/7?x=1`);
    await moved.body?.cancel();
    const bare = await send(world, prefix, { headers: auth });
    assert.equal(bare.status, 308);
    assert.equal(bare.headers.get("location"), `${prefix}/`);
  });
});
