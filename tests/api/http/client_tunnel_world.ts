/**
 * The world of the Ray client tunnel's tests (client_tunnel_test.ts, and
 * the command line's tests/cli/clusters_connect_test.ts): the dashboard
 * proxy's units behind the real HTTP listener, clusters in the Kubernetes
 * stand-in, tokens and policy from files (alice has `proxy` alone, bob
 * `get`, carol "*"), a TCP echo server standing in for the Ray client
 * server, reached straight (direct mode) or through the stand-in's port
 * forwarding to the cluster's head pod (apiserver-proxy mode).
 */
import assert from "node:assert/strict";
import { createServer, type Server, type Socket } from "node:net";
import * as k8s from "@kubernetes/client-node";
import { createAccess } from "../../../api/auth/access.ts";
import { DashboardSessions } from "../../../api/auth/dashboard_sessions.ts";
import { DashboardProxy } from "../../../api/http/dashboard_proxy.ts";
import { type HttpServer, serveHttp } from "../../../api/http/server.ts";
import { silentLogger } from "../../../api/log.ts";
import type { ClusterAccess } from "../../../domain/dashboard_ports.ts";
import {
  apiserverProxyAccess,
  directAccess,
} from "../../../orchestrator/cluster_access.ts";
import { kubeconfigFor } from "../../../standin/mod.ts";
import { SIMULATED_POD_PORT_ANNOTATION_PREFIX } from "../../../standin/pod_port_forward.ts";
import { startCorral } from "../../harness.ts";
import { unitRouter } from "../../unit_router.ts";
import { RAY_CRD } from "../../orchestrator/cluster_shapes.ts";
import {
  kubeFetch,
  managedCluster,
  readyCluster,
} from "../../standin/with_standin.ts";
import {
  PEOPLE,
  tokenFileText,
  writeAccessFiles,
} from "../auth/access_fixtures.ts";
import { allow, allowAll, policyText, users } from "../auth/policy_fixtures.ts";

export const POLICY = policyText([
  allow(users("alice"), ["team-a", "team-b"], ["clusters"], ["proxy"]),
  allow(users("bob"), ["team-a"], ["clusters"], ["get"]),
  allowAll(users("carol"), ["team-a"]),
]);

/** The tunnel's path for cluster blue of team-a. */
export const CLIENT = "/apis/v1alpha2/namespaces/team-a/clusters/blue/client";

/**
 * A TCP echo server: the sockets it holds, each echoing what it reads,
 * and its caller's end.
 */
export function echoServer() {
  const sockets = new Set<Socket>();
  /** Sockets whose caller has half-closed (ended its writing side). */
  const ended = new Set<Socket>();
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.on("data", (chunk) => socket.write(chunk));
    // A half-close echoed too: the server ends once its caller has.
    socket.on("end", () => {
      ended.add(socket);
      socket.end();
    });
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  });
  const listening = new Promise<void>((resolve) =>
    server.listen(0, "127.0.0.1", resolve)
  );
  return {
    sockets,
    ended,
    listening,
    port: () => (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface World {
  listener: HttpServer;
  /** The audit log's path. */
  auditLog: string;
  echo: ReturnType<typeof echoServer>;
}

export type Mode = "direct" | "apiserver-proxy";

/**
 * The running head pod of `blue` in the stand-in, its port 10001 served
 * at 127.0.0.1:`port` (the stand-in's port forwarding follows it).
 */
async function headPod(kubeUrl: string, port: number): Promise<void> {
  const pods = "/api/v1/namespaces/team-a/pods";
  const created = await kubeFetch(kubeUrl, "POST", pods, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "blue-head-x7k2p",
      namespace: "team-a",
      labels: { "ray.io/cluster": "blue", "ray.io/node-type": "head" },
      annotations: {
        [`${SIMULATED_POD_PORT_ANNOTATION_PREFIX}10001`]: String(port),
      },
    },
    spec: { containers: [{ name: "ray-head", image: "rayproject/ray" }] },
  });
  assert.equal(created.status, 201, await created.text());
  const running = await kubeFetch(
    kubeUrl,
    "PATCH",
    `${pods}/blue-head-x7k2p/status`,
    { status: { phase: "Running" } },
  );
  assert.equal(running.status, 200, await running.text());
}

export async function withWorld(
  mode: Mode,
  run: (world: World) => Promise<void>,
  streamMaxDurationMs = 60_000,
) {
  const corral = await startCorral({ crds: [RAY_CRD] });
  const files = await writeAccessFiles({
    policy: POLICY,
    tokens: tokenFileText(PEOPLE),
  });
  const access = await createAccess({
    tokenAuthFile: files.tokenFile,
    tokenReview: false,
    anonymous: false,
    policyFile: files.policyFile,
    auditLogPath: files.auditLog,
    metricsRequireAuth: false,
  }, { log: silentLogger(), reloadIntervalMs: 100 });
  const echo = echoServer();
  let clusterAccess: ClusterAccess | undefined;
  let listener: HttpServer | undefined;
  try {
    await echo.listening;
    await readyCluster(corral.kubeUrl, "blue");
    await readyCluster(corral.kubeUrl, "lone");
    await managedCluster(corral.kubeUrl, "slow", { state: "pending" });
    await headPod(corral.kubeUrl, echo.port());
    if (mode === "direct") {
      clusterAccess = directAccess({
        baseUrlOf: () => `http://127.0.0.1:${echo.port()}`,
      });
    } else {
      const kubeConfig = new k8s.KubeConfig();
      kubeConfig.loadFromString(kubeconfigFor(corral.kubeUrl));
      clusterAccess = apiserverProxyAccess(kubeConfig);
    }
    const proxy = new DashboardProxy({
      orchestrator: corral.orchestrator!,
      clusterAccess,
      sessions: new DashboardSessions({ ttlMs: 60_000 }),
      timeoutMs: 10_000,
      maxRequestBytes: 1_000,
      maxResponseBytes: 1_000,
      secure: false,
      log: silentLogger(),
    });
    listener = await serveHttp({
      hostname: "127.0.0.1",
      port: 0,
      handler: await unitRouter(proxy.units(), {
        access,
        orchestrator: corral.orchestrator!,
        streamMaxDurationMs,
      }),
      log: silentLogger(),
    });
    await run({ listener, echo, auditLog: files.auditLog });
  } finally {
    await listener?.shutdown(0);
    clusterAccess?.close();
    await echo.close();
    await access.close();
    await files.remove();
    await corral.close();
  }
}
