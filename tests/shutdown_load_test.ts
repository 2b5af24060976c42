/**
 * SIGTERM under load, with no load balancer to stop sending: clients go on
 * through the shutdown delay and past the listeners' close, each sending
 * its next request as soon as the last is answered (HTTP on keep-alive
 * connections, moving to a new one when told Connection: close; gRPC on a
 * channel each). Every request is answered, or refused before it is sent
 * (connection refused once the listener has closed); none is reset. Over
 * 20 runs whose delay, number of clients and moment of the signal vary.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { EMBEDDED, startMain } from "./main_process.ts";
import { grpcCaller } from "./api/grpc/client.ts";
import { schema } from "./harness.ts";

/** How one request ended. */
type Outcome = "answered" | "refused" | string;

/** One GET over `agent`: answered, refused before it was sent, or else. */
function get(url: string, agent: http.Agent): Promise<Outcome> {
  return new Promise((resolve) => {
    const request = http.get(url, { agent }, (response) => {
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
      response.on("error", (error) => resolve(`answer cut: ${error}`));
    });
    request.on("error", (error: NodeJS.ErrnoException) =>
      resolve(
        error.code === "ECONNREFUSED" && !request.reusedSocket
          ? "refused"
          : `${error.code ?? error} on a ${
            request.reusedSocket ? "reused" : "new"
          } connection`,
      ));
  });
}

/** One run: its shutdown delay, its clients, when SIGTERM comes. */
interface Run {
  delayMs: number;
  httpClients: number;
  grpcClients: number;
  signalAfterMs: number;
}

const RUNS: Run[] = Array.from({ length: 20 }, (_, i) => ({
  delayMs: [0, 150, 400, 700][i % 4],
  httpClients: [8, 16, 24][i % 3],
  grpcClients: [2, 4][i % 2],
  signalAfterMs: 100 + (i * 37) % 300,
}));

/**
 * Every outcome of a run's requests, by transport; when each was sent, and
 * when it ended.
 */
interface Tally {
  outcomes: { transport: string; outcome: Outcome; at: number; end: number }[];
}

async function loadThroughShutdown(run: Run): Promise<
  Tally & {
    signalledAt: number;
    status: Deno.CommandStatus;
    logs: string;
  }
> {
  const corral = await startMain({
    args: [...EMBEDDED, "--shutdown-delay", `${run.delayMs}ms`],
  });
  const api = await schema();
  const tally: Tally = { outcomes: [] };
  const agent = new http.Agent({
    keepAlive: true,
    maxSockets: run.httpClients,
  });
  const httpClient = async () => {
    for (;;) {
      const at = performance.now();
      const outcome = await get(`${corral.http}/healthz`, agent);
      const end = performance.now();
      tally.outcomes.push({ transport: "http", outcome, at, end });
      if (outcome !== "answered") return;
    }
  };
  const callers = Array.from(
    { length: run.grpcClients },
    () => grpcCaller(api, corral.grpc),
  );
  const grpcClient = async (caller: (typeof callers)[number]) => {
    for (;;) {
      const at = performance.now();
      const { code, message } = await caller.call(
        "proto.ClusterService/ListCluster",
        { namespace: "default" },
      );
      // grpc-js's words for a call it could not send: no connection.
      const outcome = code === 0
        ? "answered"
        : code === 14 && message.startsWith("No connection established")
        ? "refused"
        : `code ${code}: ${message}`;
      const end = performance.now();
      tally.outcomes.push({ transport: "grpc", outcome, at, end });
      if (outcome !== "answered") return;
    }
  };
  const clients = [
    ...Array.from({ length: run.httpClients }, httpClient),
    ...callers.map(grpcClient),
  ];
  let signalledAt = Infinity;
  try {
    // Under load before the signal: the first answers are in.
    while (tally.outcomes.length < 2 * run.httpClients) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await new Promise((resolve) => setTimeout(resolve, run.signalAfterMs));
    signalledAt = performance.now();
    const status = await corral.stop();
    // Each client ends on its first request that is not answered: once
    // the listeners have closed, refused.
    await Promise.all(clients);
    return { ...tally, signalledAt, status, logs: corral.logs.join("\n") };
  } finally {
    agent.destroy();
    for (const caller of callers) caller.close();
    await corral.stop();
  }
}

Deno.test("SIGTERM under load answers every request or refuses it before it is sent, over HTTP keep-alive and gRPC, over 20 runs", async (t) => {
  for (const [i, run] of RUNS.entries()) {
    await t.step(
      `run ${
        i + 1
      }: delay ${run.delayMs} ms, ${run.httpClients} HTTP and ${run.grpcClients} gRPC clients, SIGTERM after ${run.signalAfterMs} ms`,
      async () => {
        const { outcomes, signalledAt, status, logs } =
          await loadThroughShutdown(run);
        assert.equal(status.code, 0, logs);
        const failed = outcomes.filter((o) =>
          o.outcome !== "answered" && o.outcome !== "refused"
        ).map((o) => ({
          ...o,
          at: Math.round(o.at - signalledAt),
          end: Math.round(o.end - signalledAt),
        }));
        assert.deepEqual(failed, [], "reset, cut or refused after sending");
        // Every client was sending when its listener closed: each ended
        // on a refusal.
        for (
          const [transport, clients] of [
            ["http", run.httpClients],
            ["grpc", run.grpcClients],
          ] as const
        ) {
          const refused = outcomes.filter((o) =>
            o.transport === transport && o.outcome === "refused"
          );
          assert.equal(refused.length, clients, `${transport} refusals`);
        }
        const answeredAfter = outcomes.filter((o) =>
          o.transport === "http" && o.outcome === "answered" &&
          o.end > signalledAt
        );
        assert.ok(answeredAfter.length > 0, "no answer after SIGTERM");
      },
    );
  }
});
