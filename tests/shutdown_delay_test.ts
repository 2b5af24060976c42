/**
 * --shutdown-delay as a load balancer sees it: after SIGTERM, main.ts says
 * it is not ready but keeps answering new connections until the balancer
 * has noticed and stopped sending; only then do its listeners close, and a
 * new connection is refused, never accepted and then reset.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { EMBEDDED, startMain } from "./main_process.ts";

type Outcome = "answered" | "refused" | string;

/** One GET on a new TCP connection: how it ended. */
function getOnNewConnection(url: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const request = http.get(url, { agent: false }, (response) => {
      response.resume();
      response.on(
        "end",
        () =>
          resolve(
            response.statusCode === 200
              ? "answered"
              : `status ${response.statusCode}`,
          ),
      );
      response.on("error", (error) => resolve(String(error)));
    });
    request.on(
      "error",
      (error: NodeJS.ErrnoException) =>
        resolve(
          error.code === "ECONNREFUSED"
            ? "refused"
            : error.code ?? String(error),
        ),
    );
  });
}

Deno.test("after SIGTERM, new connections are answered until the load balancer has stopped sending, then refused, never reset", async () => {
  const delayMs = 2000;
  const corral = await startMain({
    args: [...EMBEDDED, "--shutdown-delay", `${delayMs}ms`],
  });
  // A load balancer: polls /readyz as deploy/'s probe does (faster), and
  // stops sending a while after the first failed probe.
  const probePeriodMs = 100;
  const propagationMs = 300;
  let sending = true;
  let noticedAt: number | undefined;
  const prober = (async () => {
    while (sending) {
      const outcome = await fetch(`${corral.http}/readyz`).then(
        async (r) => (await r.body?.cancel(), r.status),
        () => 0,
      );
      if (outcome !== 200 && noticedAt === undefined) {
        noticedAt = performance.now();
        setTimeout(() => sending = false, propagationMs);
      }
      await new Promise((r) => setTimeout(r, probePeriodMs));
    }
  })();
  const outcomes: { at: number; outcome: Outcome }[] = [];
  const client = async () => {
    while (sending) {
      const at = performance.now();
      outcomes.push({
        at,
        outcome: await getOnNewConnection(`${corral.http}/healthz`),
      });
    }
  };
  const clients = Array.from({ length: 4 }, client);
  await new Promise((r) => setTimeout(r, 300));
  const signalledAt = performance.now();
  const stopped = corral.stop();
  await Promise.all([prober, ...clients]);
  const status = await stopped;

  assert.ok(noticedAt !== undefined, "the load balancer saw /readyz fail");
  assert.ok(
    noticedAt - signalledAt < delayMs / 2,
    `/readyz failed ${Math.round(noticedAt - signalledAt)} ms after SIGTERM`,
  );
  const afterSignal = outcomes.filter((o) => o.at > signalledAt);
  assert.ok(
    afterSignal.length > 10,
    `${afterSignal.length} requests after SIGTERM`,
  );
  const notAnswered = outcomes.filter((o) => o.outcome !== "answered");
  assert.deepEqual(
    notAnswered,
    [],
    "every connection made while the balancer still sent was answered",
  );
  assert.equal(status.code, 0, corral.logs.join("\n"));
  assert.equal(await getOnNewConnection(`${corral.http}/healthz`), "refused");
  const stopping = corral.records.find((r) => r.msg === "Stopping");
  assert.equal(stopping?.delayMs, delayMs);
});

/** One GET over a keep-alive agent: how it ended, and its Connection. */
function getKeptAlive(
  url: string,
  agent: http.Agent,
): Promise<{ outcome: Outcome; connection?: string }> {
  return new Promise((resolve) => {
    const request = http.get(url, { agent }, (response) => {
      response.resume();
      response.on("end", () =>
        resolve({
          outcome: response.statusCode === 200
            ? "answered"
            : `status ${response.statusCode}`,
          connection: response.headers.connection,
        }));
      response.on("error", (error) => resolve({ outcome: String(error) }));
    });
    request.on(
      "error",
      (error: NodeJS.ErrnoException) =>
        resolve({ outcome: error.code ?? String(error) }),
    );
  });
}

Deno.test("after SIGTERM, keep-alive clients are told Connection: close and none is reset, over repeated runs", async (t) => {
  for (let run = 1; run <= 3; run++) {
    await t.step(`run ${run}`, async () => {
      const corral = await startMain({
        args: [...EMBEDDED, "--shutdown-delay", "1s"],
      });
      const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
      let sending = true;
      let signalledAt = Infinity;
      const results: { at: number; outcome: Outcome; connection?: string }[] =
        [];
      const client = async () => {
        while (sending) {
          const at = performance.now();
          results.push({
            at,
            ...await getKeptAlive(`${corral.http}/healthz`, agent),
          });
        }
      };
      const clients = Array.from({ length: 4 }, client);
      await new Promise((r) => setTimeout(r, 200));
      signalledAt = performance.now();
      const stopped = corral.stop();
      // The load balancer stops sending well within the delay.
      await new Promise((r) => setTimeout(r, 500));
      sending = false;
      await Promise.all(clients);
      const status = await stopped;
      agent.destroy();

      const failed = results.filter((r) => r.outcome !== "answered");
      assert.deepEqual(failed, [], "no request reset or refused");
      const after = results.filter((r) => r.at > signalledAt + 200);
      assert.ok(after.length > 10, `${after.length} requests after SIGTERM`);
      const kept = after.filter((r) => r.connection !== "close");
      assert.deepEqual(kept, [], "every answer after SIGTERM says close");
      assert.equal(status.code, 0, corral.logs.join("\n"));
    });
  }
});
