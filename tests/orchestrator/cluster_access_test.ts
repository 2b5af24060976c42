/**
 * The ways to a head service (orchestrator/cluster_access.ts): the direct
 * address, and the API server's service proxy with Corral's own
 * credentials, played here by a small API server on a loopback port.
 */
import assert from "node:assert/strict";
import * as k8s from "@kubernetes/client-node";
import {
  apiserverProxyAccess,
  directAccess,
} from "../../orchestrator/cluster_access.ts";
import { rewriteLocation } from "../../api/http/dashboard_headers.ts";

const SERVICE = { namespace: "team-a", name: "blue-head-svc", port: 8265 };

Deno.test("directAccess() addresses the service by its cluster DNS name", () => {
  assert.equal(
    directAccess().baseUrl(SERVICE),
    "http://blue-head-svc.team-a.svc:8265",
  );
});

Deno.test("apiserverProxyAccess() goes through the service proxy with the kubeconfig's token, and never follows redirects", async () => {
  const seen: { path: string; authorization: string | null }[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      const url = new URL(request.url);
      seen.push({
        path: url.pathname + url.search,
        authorization: request.headers.get("authorization"),
      });
      // As kube-apiserver's proxy answers a redirect of the service: under
      // its own proxy path.
      return url.pathname.endsWith("/moved")
        ? new Response(null, {
          status: 302,
          headers: {
            location:
              "/api/v1/namespaces/team-a/services/blue-head-svc:8265/proxy/jobs/",
          },
        })
        : Response.json({ ok: true });
    },
  );
  const kubeConfig = new k8s.KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{
      name: "test",
      server: `http://127.0.0.1:${server.addr.port}/`,
      // client-node wants it for a plain http:// server, as the stand-in's.
      skipTLSVerify: true,
    }],
    users: [{ name: "corral", token: "corral-service-account-token" }],
    contexts: [{ name: "test", cluster: "test", user: "corral" }],
    currentContext: "test",
  });
  const access = apiserverProxyAccess(kubeConfig);
  try {
    const base = access.baseUrl(SERVICE);
    assert.equal(
      base,
      `http://127.0.0.1:${server.addr.port}/api/v1/namespaces/team-a/services/blue-head-svc:8265/proxy`,
    );
    const answer = await access.fetch(`${base}/api/jobs/?a=1`, {
      headers: { "x-kept": "1" },
    });
    assert.deepEqual(await answer.json(), { ok: true });
    const moved = await access.fetch(`${base}/moved`, {});
    assert.equal(moved.status, 302);
    await moved.body?.cancel();
    assert.equal(
      rewriteLocation(
        moved.headers.get("location")!,
        `${base}/moved`,
        base,
        "/apis/v1alpha2/namespaces/team-a/clusters/blue/dashboard",
      ),
      "/apis/v1alpha2/namespaces/team-a/clusters/blue/dashboard/jobs/",
    );
    assert.deepEqual(seen, [
      {
        path:
          "/api/v1/namespaces/team-a/services/blue-head-svc:8265/proxy/api/jobs/?a=1",
        authorization: "Bearer corral-service-account-token",
      },
      {
        path:
          "/api/v1/namespaces/team-a/services/blue-head-svc:8265/proxy/moved",
        authorization: "Bearer corral-service-account-token",
      },
    ]);
  } finally {
    access.close();
    await server.shutdown();
  }
});
