/**
 * Metrics: the Prometheus text format of counters, gauges and histograms.
 * What a request through both transports adds to Corral's metrics, its
 * Kubernetes calls included: metrics_round_trip_test.ts.
 */
import assert from "node:assert/strict";
import { Metrics } from "../../api/metrics.ts";
import { assertTextFormat } from "./metrics_format.ts";

Deno.test("label values escape backslash, double quote and newline", async () => {
  const metrics = new Metrics();
  metrics.requests.inc({
    transport: "http",
    rpc: 'C:\\dir "x"\nnext',
    code: "0",
  });
  const text = await metrics.render();
  assert.match(
    text,
    /^corral_requests_total\{transport="http",rpc="C:\\\\dir \\"x\\"\\nnext",code="0"\} 1$/m,
  );
  assertTextFormat(text);
});

Deno.test("corral_request_duration_seconds has today's buckets, cumulative, with +Inf, sum and count", async () => {
  const metrics = new Metrics();
  for (const v of [0.0005, 0.05, 0.3, 20]) {
    metrics.requestDuration.observe({ transport: "grpc", rpc: "Get" }, v);
  }
  const text = await metrics.render();
  const buckets = [...text.matchAll(
    /^corral_request_duration_seconds_bucket\{(?=.*le="([^"]+)").*\} (\d+)$/gm,
  )].map((m) => `${m[1]} ${m[2]}`);
  assert.deepEqual(buckets, [
    "0.001 1",
    "0.0025 1",
    "0.005 1",
    "0.01 1",
    "0.025 1",
    "0.05 2",
    "0.1 2",
    "0.25 2",
    "0.5 3",
    "1 3",
    "2.5 3",
    "5 3",
    "10 3",
    "+Inf 4",
  ]);
  assert.match(
    text,
    /^corral_request_duration_seconds_count\{transport="grpc",rpc="Get"\} 4$/m,
  );
  assert.match(
    text,
    /^# HELP corral_request_duration_seconds Time to answer a request, by transport and route or RPC\.$/m,
  );
});

Deno.test("corral_requests_in_flight goes up and down by transport, read when /metrics is", async () => {
  const metrics = new Metrics();
  metrics.inFlight.http += 2;
  metrics.inFlight.http--;
  metrics.inFlight.grpc++;
  const text = await metrics.render();
  assert.match(text, /^corral_requests_in_flight\{transport="http"\} 1$/m);
  assert.match(text, /^corral_requests_in_flight\{transport="grpc"\} 1$/m);
  metrics.inFlight.grpc--;
  assert.match(
    await metrics.render(),
    /^corral_requests_in_flight\{transport="grpc"\} 0$/m,
  );
});

Deno.test("Metrics shows the process's CPU time and start time, and the build", async () => {
  const metrics = new Metrics({ version: "1.2.3" });
  const text = await metrics.render();
  assertTextFormat(text);
  const cpu = /^process_cpu_seconds_total (\S+)$/m.exec(text);
  assert.ok(cpu && Number(cpu[1]) > 0, `CPU seconds in\n${text}`);
  const start = /^process_start_time_seconds (\d+)$/m.exec(text);
  // Whole seconds, rounded (prom-client): a process younger than half a
  // second has a start time up to half a second after its clock's now.
  const now = Math.ceil(Date.now() / 1000);
  assert.ok(
    start && Number(start[1]) <= now && Number(start[1]) > now - 3600,
    `start time in\n${text}`,
  );
  assert.match(
    text,
    new RegExp(
      `^corral_build_info\\{version="1\\.2\\.3",runtime="deno ${
        Deno.version.deno.replaceAll(".", "\\.")
      }"\\} 1$`,
      "m",
    ),
  );
  // Read from /proc/self, which Deno does not open short of --allow-all:
  // left out rather than reported as 0.
  assert.doesNotMatch(text, /^process_open_fds /m);
  assert.doesNotMatch(text, /^process_resident_memory_bytes /m);
});

Deno.test("Metrics renders every family of Corral in the text format, process memory included", async () => {
  const metrics = new Metrics();
  const text = await metrics.render();
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
