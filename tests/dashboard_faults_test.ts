/**
 * The dashboard proxy while the Kubernetes API server is away, as
 * deployed with --cluster-access apiserver-proxy (the default with a
 * kubeconfig): main.ts in kubernetes mode, with its cache, against a
 * fault-injecting proxy in front of the stand-in, and the simulated
 * operator running the ready cluster's dashboard behind the stand-in's
 * service proxy. The API server hangs (its connections stay open, nothing
 * answers) or refuses connections, in turns, and comes back.
 *
 * While it is away, a request or a WebSocket upgrade through the proxy is
 * refused the way the API's other reads are when the API server does not
 * answer, 503 code 14 "Kubernetes API unavailable", and never waits out
 * --dashboard-proxy-timeout for a 504, nor is taken for the dashboard's
 * 502. The assertions are on that answer, which only the fast path gives:
 * waiting, the proxy would answer 504 code 4 after its 20 s, a hang being
 * a delay of 60 s.
 */
import assert from "node:assert/strict";
import {
  kubeconfigFor,
  type SimulatedOperator,
  startSimulatedOperator,
  startStandin,
} from "../standin/mod.ts";
import { type FaultProxy, startFaultProxy } from "./fault_proxy.ts";
import {
  ANONYMOUS,
  FREE_PORTS,
  type MainProcess,
  NO_SHUTDOWN_DELAY,
  startMain,
} from "./main_process.ts";
import { until } from "./eventually.ts";

const DASHBOARD = "/apis/v1alpha2/namespaces/team-a/clusters/blue/dashboard";

/**
 * The proxy's own words, or those of the read of the cluster it makes first
 * (from Kubernetes once a lost watch has taken the cache out of step).
 */
const UNAVAILABLE =
  /^Cannot (proxy to|get) cluster "team-a\/blue": Kubernetes API unavailable: /;

interface Rig {
  main: MainProcess;
  proxy: FaultProxy;
}

async function withRig(run: (rig: Rig) => Promise<void>): Promise<void> {
  const standin = startStandin({ hostname: "127.0.0.1", port: 0 });
  let operator: SimulatedOperator | undefined;
  let proxy: FaultProxy | undefined;
  let main: MainProcess | undefined;
  const kubeconfig = await Deno.makeTempFile({ suffix: ".kubeconfig" });
  try {
    operator = startSimulatedOperator({
      server: standin.url,
      delayMs: 0,
      retryIntervalMs: 10,
    });
    proxy = await startFaultProxy(standin.url);
    await Deno.writeTextFile(kubeconfig, kubeconfigFor(proxy.url));
    main = await startMain({
      startTimeoutMs: 60_000,
      args: [
        "--orchestrator",
        "kubernetes",
        "--kubeconfig",
        kubeconfig,
        ...FREE_PORTS,
        ...NO_SHUTDOWN_DELAY,
        ...ANONYMOUS,
        "--cluster-access",
        "apiserver-proxy",
        "--dashboard-proxy-timeout",
        "20s",
      ],
    });
    await run({ main, proxy });
  } finally {
    await main?.stop();
    await proxy?.close();
    await operator?.stop();
    await standin.close();
    await Deno.remove(kubeconfig);
  }
}

/** A JSON call to Corral: its status and body. */
async function send(
  main: MainProcess,
  method: string,
  path: string,
  init: { json?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${main.http}${path}`, {
    method,
    headers: {
      ...(init.json === undefined
        ? {}
        : { "content-type": "application/json" }),
      ...init.headers,
    },
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
  });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text);
  } catch {
    body = { text };
  }
  return { status: response.status, body };
}

/** Template "small" and cluster team-a/blue, ready. */
async function readyCluster(main: MainProcess): Promise<void> {
  const template = await send(
    main,
    "POST",
    "/apis/v1/namespaces/team-a/compute_templates",
    {
      json: { name: "small", namespace: "team-a", cpu: 1, memory: 1 },
    },
  );
  assert.equal(template.status, 200, JSON.stringify(template.body));
  const created = await send(
    main,
    "POST",
    "/apis/v1alpha2/namespaces/team-a/clusters",
    {
      json: {
        name: "blue",
        namespace: "team-a",
        user: "alice",
        version: "2.9.0",
        clusterSpec: { headGroupSpec: { computeTemplate: "small" } },
      },
    },
  );
  assert.equal(created.status, 200, JSON.stringify(created.body));
  await until(
    "cluster blue to be ready",
    async () =>
      (await send(
        main,
        "GET",
        "/apis/v1alpha2/namespaces/team-a/clusters/blue",
      ))
        .body.clusterState === "ready",
    30_000,
  );
}

/** A request through the proxy, or the handshake of a WebSocket upgrade. */
function throughProxy(main: MainProcess, upgrade: boolean) {
  return send(main, "GET", `${DASHBOARD}/api/version`, {
    headers: upgrade
      ? {
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
      }
      : {},
  });
}

/** Whether /readyz answered that its ping of the API server got no answer. */
function apiServerSilent(
  answer: { status: number; body: Record<string, unknown> },
): boolean {
  const reasons = (answer.body.reasons ?? []) as string[];
  return answer.status === 503 &&
    reasons.some((reason) => /did not answer within/.test(reason));
}

function assertUnavailable(
  answer: { status: number; body: Record<string, unknown> },
  what: string,
): void {
  assert.deepEqual(
    [answer.status, answer.body.code],
    [503, 14],
    `${what}: ${JSON.stringify(answer.body)}`,
  );
  assert.match(
    String(answer.body.message),
    UNAVAILABLE,
    `${what}: ${answer.body.message}`,
  );
}

Deno.test("dashboard proxy through the API server: while it hangs or refuses connections, requests and WebSocket upgrades are refused 503 code 14 as other reads are, at once, and pass again once it is back (20 rounds)", async () => {
  await withRig(async ({ main, proxy }) => {
    await readyCluster(main);
    const page = await throughProxy(main, false);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    for (let round = 0; round < 20; round++) {
      const hangs = round % 7 === 0;
      const what = `round ${round} (${hangs ? "hanging" : "refusing"})`;
      if (hangs) {
        proxy.inject({ kind: "delay", ms: 60_000 });
        // As the finding had it: readiness says so first, its ping having
        // got no answer.
        await until(
          `${what}: readiness to say the API server does not answer`,
          async () => apiServerSilent(await send(main, "GET", "/readyz")),
          20_000,
        );
      } else {
        await proxy.refuse();
      }
      // A few calls in a row, the first at once after the fault, varied
      // between a request and an upgrade.
      for (let call = 0; call < 1 + round % 3; call++) {
        const upgrade = (round + call) % 2 === 1;
        assertUnavailable(
          await throughProxy(main, upgrade),
          `${what}, ${upgrade ? "upgrade" : "request"} ${call}`,
        );
      }
      await proxy.heal();
      await until(
        `${what}: the dashboard to answer again`,
        async () => (await throughProxy(main, false)).status === 200,
        20_000,
      );
    }
  });
});
