/**
 * Nothing a client does raises an uncaught exception: every path main.ts
 * serves over HTTP (each route of the route table, the HTTP units: whoami,
 * /metrics, the dashboard proxy and its session; pages and paths it does
 * not serve) is sent a request with a JSON body that it refuses (401, 403
 * by policy and by the browser checks, 413, 429), by a client that goes
 * away early: as the answer begins, right after its headers, or halfway
 * through its body. The log of the process, read to its end, has no
 * "Uncaught exception" nor "Unhandled promise rejection".
 */
import assert from "node:assert/strict";
import net from "node:net";
import { Buffer } from "node:buffer";
import { compileRoutes, type Route } from "../api/http/rules.ts";
import { WHOAMI_PATH } from "../api/whoami.ts";
import {
  ALICE,
  bearer,
  person,
  tokenFileText,
  writeAccessFiles,
} from "./api/auth/access_fixtures.ts";
import { allowAll, policyText, users } from "./api/auth/policy_fixtures.ts";
import { sampleCluster } from "./api/cases.ts";
import { schema } from "./harness.ts";
import { EMBEDDED, NO_SHUTDOWN_DELAY, startMain } from "./main_process.ts";

/** In team-a as alice is, and held to one request (rateLimits below). */
const SLOW = person("slow", "slow", ["throttled"]);
const MAX_BODY_BYTES = 4096;

/** Who sends the request, and what gets it refused. */
const REFUSALS: {
  name: string;
  namespace: string;
  headers: Record<string, string>;
  body: string;
}[] = [
  {
    name: "no credentials (401)",
    namespace: "team-a",
    headers: {},
    body: JSON.stringify(sampleCluster({ namespace: "team-a" })),
  },
  {
    name: "alice outside her namespace (403 by policy)",
    namespace: "team-b",
    headers: { authorization: bearer(ALICE) },
    body: JSON.stringify(sampleCluster({ namespace: "team-b" })),
  },
  {
    name: "a page of another site (403 by the browser checks)",
    namespace: "team-a",
    headers: {
      authorization: bearer(ALICE),
      origin: "http://attacker.example",
    },
    body: JSON.stringify(sampleCluster({ namespace: "team-a" })),
  },
  {
    name: "a body over --max-body-bytes (413)",
    namespace: "team-a",
    headers: { authorization: bearer(ALICE) },
    body: JSON.stringify({ name: "x".repeat(4 * MAX_BODY_BYTES) }),
  },
  {
    name: "a caller over the rate limit (429)",
    namespace: "team-a",
    headers: { authorization: bearer(SLOW) },
    body: JSON.stringify(sampleCluster({ namespace: "team-a" })),
  },
];

type Abort = "at the answer" | "after the headers" | "halfway through the body";
const ABORTS: Abort[] = [
  "at the answer",
  "after the headers",
  "halfway through the body",
];

/** A path of `template`, its variables filled in. */
function pathOf(template: string, namespace: string): string {
  return template
    .replace("{namespace}", namespace)
    .replace(/\{path=\*\*\}/, "api/version")
    .replace(/\{[^}]+\}/g, "blue");
}

/** Every method and path template the HTTP port serves, and a few it does not. */
function targets(routes: Route[]): { method: string; template: string }[] {
  const cluster = "/apis/v1alpha2/namespaces/{namespace}/clusters/{name}";
  return [
    ...routes.map((r) => ({ method: r.verb, template: r.template })),
    { method: "POST", template: WHOAMI_PATH },
    { method: "POST", template: "/metrics" },
    { method: "POST", template: `${cluster}/dashboard/{path=**}` },
    { method: "PUT", template: `${cluster}/dashboard/{path=**}` },
    { method: "POST", template: `${cluster}/dashboard:session` },
    { method: "DELETE", template: `${cluster}/dashboard:session` },
    { method: "POST", template: "/healthz" },
    { method: "POST", template: "/openapi.json" },
    { method: "DELETE", template: "/no/such/path" },
  ];
}

/**
 * One request on a new connection, abandoned as `abort` says; resolves
 * with the answer's status line, if one came before the client left.
 */
function abandoned(
  port: number,
  request: { method: string; path: string; headers: Record<string, string> },
  body: string,
  abort: Abort,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let status: string | undefined;
    const leave = () => {
      socket.destroy();
      resolve(status);
    };
    socket.on("error", leave);
    socket.on("close", leave);
    socket.once("data", (data: Buffer) => {
      status = data.toString("latin1").split("\r\n")[0];
      leave();
    });
    socket.once("connect", () => {
      const head = [
        `${request.method} ${request.path} HTTP/1.1`,
        `Host: 127.0.0.1:${port}`,
        "Content-Type: application/json",
        `Content-Length: ${Buffer.byteLength(body)}`,
        ...Object.entries(request.headers).map(([n, v]) => `${n}: ${v}`),
      ].join("\r\n") + "\r\n\r\n";
      if (abort === "after the headers") {
        socket.write(head);
        return leave();
      }
      if (abort === "at the answer") return void socket.write(head + body);
      socket.write(head + body.slice(0, body.length / 2));
      // The rest never comes: the client leaves at the answer, or once
      // the server has had a moment to start on the body.
      setTimeout(leave, 20);
    });
  });
}

Deno.test("no refused request with a JSON body raises an uncaught exception, whenever its client goes away", async () => {
  const files = await writeAccessFiles({
    tokens: tokenFileText([ALICE, SLOW]),
    policy: policyText([allowAll(users("alice", "slow"), ["team-a"])], {
      rateLimits: [{ groups: ["throttled"], qps: 0.001, burst: 1 }],
    }),
  });
  const corral = await startMain({
    args: [
      ...EMBEDDED,
      ...NO_SHUTDOWN_DELAY,
      "--token-auth-file",
      files.tokenFile,
      "--authorization-policy-file",
      files.policyFile,
      "--auth-failure-rate=0",
      "--metrics-require-auth",
      "--max-body-bytes",
      String(MAX_BODY_BYTES),
    ],
    startTimeoutMs: 30_000,
  });
  const port = Number(new URL(corral.http).port);
  const statuses = new Set<string>();
  let sent = 0;
  try {
    const routes = compileRoutes((await schema()).services);
    assert.ok(routes.length >= 10, `routes: got ${routes.length}`);
    for (const { method, template } of targets(routes)) {
      for (const refusal of REFUSALS) {
        for (const abort of ABORTS) {
          const path = pathOf(template, refusal.namespace);
          const status = await abandoned(
            port,
            { method, path, headers: refusal.headers },
            refusal.body,
            abort,
          );
          sent++;
          if (status) statuses.add(status.split(" ")[1]);
        }
      }
    }
  } finally {
    await corral.stop();
    await files.remove();
  }
  const stray = corral.records.filter((r) =>
    r.msg === "Uncaught exception" || r.msg === "Unhandled promise rejection"
  );
  assert.deepEqual(
    stray.map((r) => r.cause),
    [],
    `${stray.length} of ${sent} requests raised an uncaught error`,
  );
  for (const status of ["401", "403", "404", "405", "413", "429"]) {
    assert.ok(statuses.has(status), `no ${status} among ${[...statuses]}`);
  }
});
