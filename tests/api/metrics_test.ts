/**
 * Metrics: the Prometheus text format of counters, gauges and histograms,
 * and what a request through the dispatcher adds to Corral's metrics.
 */
import assert from "node:assert/strict";
import { Counter, Gauge, Histogram, Metrics } from "../../api/metrics.ts";
import { startCorral } from "../harness.ts";

/** A sample line of the text format: name, optional labels, a number. */
const SAMPLE =
  /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\[\\"n])*",?)*\})? -?(\d+(\.\d+)?(e[+-]?\d+)?|\+Inf|NaN)$/;

function assertTextFormat(text: string): void {
  assert.ok(text.endsWith("\n"), "ends with a newline");
  for (const line of text.trimEnd().split("\n")) {
    if (line.startsWith("# HELP ") || line.startsWith("# TYPE ")) continue;
    assert.match(line, SAMPLE);
  }
}

Deno.test("Counter renders HELP, TYPE and one line per label set", () => {
  const counter = new Counter("jobs_total", "Jobs done.");
  counter.inc({ queue: "a" });
  counter.inc({ queue: "a" }, 2);
  counter.inc({ queue: "b" });
  assert.equal(counter.get({ queue: "a" }), 3);
  assert.deepEqual(counter.render(), [
    "# HELP jobs_total Jobs done.",
    "# TYPE jobs_total counter",
    'jobs_total{queue="a"} 3',
    'jobs_total{queue="b"} 1',
  ]);
});

Deno.test("label values escape backslash, double quote and newline", () => {
  const counter = new Counter("odd_total", "Odd labels.");
  counter.inc({ path: 'C:\\dir "x"\nnext' });
  const line = counter.render()[2];
  assert.equal(line, 'odd_total{path="C:\\\\dir \\"x\\"\\nnext"} 1');
  assertTextFormat(counter.render().join("\n") + "\n");
});

Deno.test("the same labels in another order are the same series", () => {
  const counter = new Counter("x_total", "X.");
  counter.inc({ a: "1", b: "2" });
  counter.inc({ b: "2", a: "1" });
  assert.equal(counter.get({ a: "1", b: "2" }), 2);
  assert.equal(counter.render().length, 3);
});

Deno.test("Gauge goes up and down, or collects its values when rendered", () => {
  const gauge = new Gauge("in_flight", "In flight.");
  gauge.add({ transport: "http" }, 1);
  gauge.add({ transport: "http" }, 1);
  gauge.add({ transport: "http" }, -1);
  assert.deepEqual(gauge.render(), [
    "# HELP in_flight In flight.",
    "# TYPE in_flight gauge",
    'in_flight{transport="http"} 1',
  ]);
  let n = 0;
  const collected = new Gauge("things", "Things.", () => [
    { labels: {}, value: ++n },
  ]);
  assert.equal(collected.render()[2], "things 1");
  assert.equal(collected.render()[2], "things 2");
});

Deno.test("Histogram renders cumulative buckets, +Inf, sum and count", () => {
  const histogram = new Histogram("latency_seconds", "Latency.", [0.1, 1]);
  for (const v of [0.05, 0.5, 0.1, 5]) histogram.observe({ rpc: "Get" }, v);
  assert.deepEqual(histogram.render(), [
    "# HELP latency_seconds Latency.",
    "# TYPE latency_seconds histogram",
    'latency_seconds_bucket{rpc="Get",le="0.1"} 2',
    'latency_seconds_bucket{rpc="Get",le="1"} 3',
    'latency_seconds_bucket{rpc="Get",le="+Inf"} 4',
    'latency_seconds_sum{rpc="Get"} 5.65',
    'latency_seconds_count{rpc="Get"} 4',
  ]);
});

Deno.test("Metrics renders every family of Corral in the text format, process memory included", () => {
  const metrics = new Metrics();
  const text = metrics.render();
  assertTextFormat(text);
  for (
    const name of [
      "corral_requests_total",
      "corral_request_duration_seconds",
      "corral_requests_in_flight",
      "corral_kubernetes_requests_total",
      "corral_kubernetes_request_duration_seconds",
      "process_memory_bytes",
    ]
  ) {
    assert.ok(text.includes(`# TYPE ${name} `), `${name} in\n${text}`);
  }
  const rss = /^process_memory_bytes\{kind="rss"\} (\d+)$/m.exec(text);
  assert.ok(rss && Number(rss[1]) > 0, "rss is reported");
});

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
      metrics.requests.get({ transport: "http", rpc: createRoute, code: "0" }),
      1,
      metrics.render(),
    );
    assert.equal(
      metrics.requests.get({
        transport: "grpc",
        rpc: "proto.ComputeTemplateService/GetComputeTemplate",
        code: "5",
      }),
      1,
      metrics.render(),
    );
    assert.equal(
      metrics.kubernetesCalls.get({
        verb: "create",
        resource: "configmaps",
        outcome: "ok",
      }),
      1,
      metrics.render(),
    );
    assert.equal(
      metrics.kubernetesCalls.get({
        verb: "get",
        resource: "configmaps",
        outcome: "NOT_FOUND",
      }),
      1,
      metrics.render(),
    );
    assert.equal(metrics.inFlight.get({ transport: "http" }), 0);
    assert.equal(metrics.inFlight.get({ transport: "grpc" }), 0);
    const text = metrics.render();
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
