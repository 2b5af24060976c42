/**
 * Where a cluster is (domain/cluster_addresses.ts): a ready cluster's
 * answer carries its Ray client and dashboard addresses inside Kubernetes
 * and its dashboard path through Corral, on both transports; a cluster not
 * ready carries none. And the API as main.ts wires it (createApi) routes
 * the dashboard paths to the proxy, the rest to the gateway.
 */
import assert from "node:assert/strict";
import * as k8s from "@kubernetes/client-node";
import { DashboardSessions } from "../../api/auth/dashboard_sessions.ts";
import { silentLogger } from "../../api/log.ts";
import { createApi } from "../../api/mod.ts";
import { directAccess } from "../../orchestrator/cluster_access.ts";
import { DashboardJobs } from "../../orchestrator/dashboard_jobs.ts";
import { createKubernetesOrchestrator } from "../../orchestrator/mod.ts";
import { kubeconfigFor } from "../../standin/mod.ts";
import { startCorral, TRANSPORTS } from "../harness.ts";
import { RAY_CRD } from "../orchestrator/cluster_shapes.ts";
import { ALICE, bearer, fileAccess } from "./auth/access_fixtures.ts";
import { managedCluster } from "../standin/with_standin.ts";

const ADDRESSES = ["clientUrl", "dashboardUrl", "dashboardProxyUrl"];

Deno.test("GetCluster answers a ready cluster's addresses, and none while it is not ready, on both transports", async (t) => {
  const corral = await startCorral({ crds: [RAY_CRD] });
  try {
    await managedCluster(corral.kubeUrl, "blue", {
      state: "ready",
      head: { serviceName: "blue-head" },
    });
    await managedCluster(corral.kubeUrl, "green", { state: "ready" });
    await managedCluster(corral.kubeUrl, "red", { state: "unhealthy" });
    const want: Record<string, string[]> = {
      blue: [
        "ray://blue-head.team-a.svc:10001",
        "http://blue-head.team-a.svc:8265",
        "/apis/v1alpha2/namespaces/team-a/clusters/blue/dashboard/",
      ],
      green: [
        "ray://green-head-svc.team-a.svc:10001",
        "http://green-head-svc.team-a.svc:8265",
        "/apis/v1alpha2/namespaces/team-a/clusters/green/dashboard/",
      ],
      red: ["", "", ""],
    };
    for (const [transport, call] of TRANSPORTS) {
      await t.step(transport, async () => {
        for (const [name, addresses] of Object.entries(want)) {
          const outcome = await call(
            corral,
            "proto.ClusterService/GetCluster",
            {
              namespace: "team-a",
              name,
            },
          );
          assert.equal(outcome.code, 0, outcome.message);
          assert.deepEqual(
            ADDRESSES.map((key) => outcome.result?.[key]),
            addresses,
            `${transport} ${name}`,
          );
        }
      });
    }
  } finally {
    await corral.close();
  }
});

Deno.test("createApi() with the dashboard proxy: its paths go to the proxy, the API's to the gateway", async () => {
  const corral = await startCorral({ crds: [RAY_CRD] });
  const files = await fileAccess();
  const kubeConfig = new k8s.KubeConfig();
  kubeConfig.loadFromString(kubeconfigFor(corral.kubeUrl));
  const orchestrator = createKubernetesOrchestrator({ kubeConfig });
  const api = await createApi({
    orchestrator,
    access: files.access,
    clusterApiVersion: "ray.io/v1",
    namespaces: [],
    maxBodyBytes: 64 * 1024,
    version: "test",
    log: silentLogger(),
    dashboardProxy: {
      clusterAccess: directAccess({ baseUrlOf: () => "http://127.0.0.1:9" }),
      jobs: new DashboardJobs({
        access: directAccess({ baseUrlOf: () => "http://127.0.0.1:9" }),
        timeoutMs: 1_000,
        maxResponseBytes: 1024,
      }),
      sessions: new DashboardSessions({ ttlMs: 60_000 }),
      timeoutMs: 1_000,
      maxRequestBytes: 1024,
      maxResponseBytes: 1024,
    },
  });
  try {
    await managedCluster(corral.kubeUrl, "red", { state: "unhealthy" });
    const cluster = "/apis/v1alpha2/namespaces/team-a/clusters/red";
    const ask = async (path: string, init: RequestInit = {}) => {
      const response = await api.http(
        new Request(`http://127.0.0.1${path}`, init),
      );
      return { status: response.status, body: await response.json() };
    };
    const anonymous = await ask(`${cluster}/dashboard/`);
    assert.equal(anonymous.status, 401);
    // alice's policy rule grants "*" in team-a, which does not grant proxy.
    const alice = await ask(`${cluster}/dashboard/`, {
      headers: { authorization: bearer(ALICE) },
    });
    assert.equal(alice.status, 403);
    assert.match(alice.body.message, /may not proxy clusters/);
    const got = await ask(cluster, {
      headers: { authorization: bearer(ALICE) },
    });
    assert.equal(got.status, 200);
    assert.equal(got.body.clusterState, "unhealthy");
  } finally {
    api.grpcHealth.shutdown();
    api.grpc.forceShutdown();
    await orchestrator.close?.();
    await files.close();
    await corral.close();
  }
});
