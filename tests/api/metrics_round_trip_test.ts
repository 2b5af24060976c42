/**
 * Metrics: what a request through either transport adds to Corral's
 * metrics, and its Kubernetes calls against the stand-in.
 */
import assert from "node:assert/strict";
import { Metrics } from "../../api/metrics.ts";
import { startCorral } from "../harness.ts";
import { assertTextFormat } from "./metrics_format.ts";

/** A sample's value; 0 when the metric has no such series. */
async function value(
  metric: { get(): Promise<{ values: { labels: object; value: number }[] }> },
  labels: Record<string, string>,
): Promise<number> {
  const { values } = await metric.get();
  const same = (got: object) =>
    JSON.stringify(Object.entries(got).sort()) ===
      JSON.stringify(Object.entries(labels).sort());
  return values.find((v) => same(v.labels))?.value ?? 0;
}

Deno.test("a request through the dispatcher counts in corral_requests_total and its Kubernetes calls in corral_kubernetes_requests_total", async () => {
  const metrics = new Metrics();
  const corral = await startCorral({ metrics });
  try {
    const created = await corral.gateway(
      new Request(
        "http://corral.test/apis/v1/namespaces/team-a/compute_templates",
        {
          method: "POST",
          body: JSON.stringify({ name: "small", cpu: 2, memory: 4 }),
          headers: { "content-type": "application/json" },
        },
      ),
    );
    assert.equal(created.status, 200, await created.text());
    const missing = await corral.grpc.call(
      "proto.ComputeTemplateService/GetComputeTemplate",
      { namespace: "team-a", name: "nope" },
    );
    assert.equal(missing.code, 5);

    const createRoute =
      "POST /apis/v1/namespaces/{namespace}/compute_templates";
    assert.equal(
      await value(metrics.requests, {
        transport: "http",
        rpc: createRoute,
        code: "0",
      }),
      1,
      await metrics.render(),
    );
    assert.equal(
      await value(metrics.requests, {
        transport: "grpc",
        rpc: "proto.ComputeTemplateService/GetComputeTemplate",
        code: "5",
      }),
      1,
      await metrics.render(),
    );
    assert.equal(
      await value(metrics.kubernetesCalls, {
        verb: "create",
        resource: "configmaps",
        outcome: "ok",
      }),
      1,
      await metrics.render(),
    );
    assert.equal(
      await value(metrics.kubernetesCalls, {
        verb: "get",
        resource: "configmaps",
        outcome: "NOT_FOUND",
      }),
      1,
      await metrics.render(),
    );
    const text = await metrics.render();
    assert.match(text, /^corral_requests_in_flight\{transport="http"\} 0$/m);
    assert.match(text, /^corral_requests_in_flight\{transport="grpc"\} 0$/m);
    assertTextFormat(text);
    assert.match(
      text,
      /^corral_request_duration_seconds_count\{transport="http",rpc="POST \/apis\/v1\/namespaces\/\{namespace\}\/compute_templates"\} 1$/m,
    );
    assert.match(
      text,
      /^corral_kubernetes_request_duration_seconds_count\{verb="create",resource="configmaps"\} 1$/m,
    );
  } finally {
    await corral.close();
  }
});
