/**
 * The dashboard client's bounds and error mapping, against a loopback
 * server that answers as each case says (orchestrator/dashboard_jobs.ts).
 */
import assert from "node:assert/strict";
import { ServiceError } from "../../domain/errors.ts";
import { directAccess } from "../../orchestrator/cluster_access.ts";
import { DashboardJobs } from "../../orchestrator/dashboard_jobs.ts";

const ACTION = 'Cannot proxy cluster "team-a/blue"';
const DASHBOARD = { namespace: "team-a", name: "blue-head-svc", port: 8265 };

/** [case, the dashboard's answer (or none), the code, the message's end] */
const CASES: [string, (() => Response) | "hang" | "closed", number, RegExp][] =
  [
    [
      "400",
      () => new Response("Bad entrypoint", { status: 400 }),
      3,
      /: Bad entrypoint$/,
    ],
    [
      "413",
      () => new Response("too large", { status: 413 }),
      3,
      /: too large$/,
    ],
    [
      "404",
      () => new Response("Job x does not exist.", { status: 404 }),
      5,
      /: Job x does not exist\.$/,
    ],
    [
      "500",
      () => new Response("boom", { status: 500 }),
      14,
      /dashboard answered 500: boom$/,
    ],
    ["not JSON", () => new Response("<html>"), 14, /answer is not JSON$/],
    [
      "too large",
      () => new Response("[" + "1,".repeat(600) + "1]"),
      14,
      /larger than 1000 bytes$/,
    ],
    ["no answer in time", "hang", 4, /did not answer within 200 ms$/],
    ["nothing listening", "closed", 14, /could not be reached$/],
  ];

for (const [name, answer, code, message] of CASES) {
  Deno.test(`DashboardJobs: ${name} is code ${code}`, async () => {
    const hung = Promise.withResolvers<void>();
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      async () => {
        if (answer === "hang" || answer === "closed") {
          await hung.promise;
          return new Response("[]");
        }
        return answer();
      },
    );
    const port = server.addr.port;
    if (answer === "closed") {
      hung.resolve();
      await server.shutdown();
    }
    const jobs = new DashboardJobs({
      access: directAccess({ baseUrlOf: () => `http://127.0.0.1:${port}` }),
      timeoutMs: 200,
      maxResponseBytes: 1000,
    });
    try {
      const error = await jobs.list({ dashboard: DASHBOARD, action: ACTION })
        .then(() => undefined, (e) => e);
      assert.ok(error instanceof ServiceError, String(error));
      assert.equal(error.code, code, error.message);
      assert.ok(error.message.startsWith(`${ACTION}: `), error.message);
      assert.match(error.message, message);
    } finally {
      hung.resolve();
      if (answer !== "closed") await server.shutdown();
    }
  });
}
