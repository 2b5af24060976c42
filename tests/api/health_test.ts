/**
 * Liveness and readiness: the reasons Corral is not ready, and how it
 * becomes ready again by itself.
 */
import assert from "node:assert/strict";
import {
  Health,
  type HealthOptions,
  livenessPage,
  readinessPage,
} from "../../api/health.ts";
import { Code, ServiceError } from "../../domain/errors.ts";
import type { KubernetesCallRecord } from "../../domain/ports.ts";
import { until } from "../eventually.ts";

const record = (outcome: string): KubernetesCallRecord => ({
  verb: "get",
  resource: "rayclusters",
  outcome,
  seconds: 0.01,
});

/** A Kubernetes API whose answers to the readiness ping the test sets. */
class FakeKubernetes {
  pings = 0;
  answer: "ok" | "unavailable" | "refused" | "hang" = "ok";
  readonly ping: HealthOptions["ping"] = ({ signal, observe }) => {
    this.pings++;
    if (this.answer === "ok") {
      observe(record("ok"));
      return Promise.resolve();
    }
    if (this.answer === "unavailable") {
      observe(record("UNAVAILABLE"));
      return Promise.reject(
        new ServiceError(
          Code.UNAVAILABLE,
          "Cannot reach Kubernetes: Kubernetes API unavailable: connection refused",
        ),
      );
    }
    if (this.answer === "refused") {
      // client-node refusing the configuration before sending anything (a
      // token over http://): the call fails on Corral's side.
      observe(record("INTERNAL"));
      return Promise.reject(
        new ServiceError(
          Code.INTERNAL,
          "Cannot reach Kubernetes: internal error",
        ),
      );
    }
    return new Promise((_, reject) =>
      signal.addEventListener("abort", () => reject(signal.reason))
    );
  };
}

function upHealth(kube: FakeKubernetes, options: Partial<HealthOptions> = {}) {
  let now = 1_000_000;
  const health = new Health({ ping: kube.ping, now: () => now, ...options });
  health.listeners.http = true;
  health.listeners.grpc = true;
  return {
    health,
    advance(ms: number) {
      now += ms;
    },
  };
}

Deno.test("Health is ready when both listeners are up and Kubernetes answered lately, without pinging it", async () => {
  const kube = new FakeKubernetes();
  const { health } = upHealth(kube);
  health.observe(record("NOT_FOUND")); // an answer, if not a happy one
  assert.deepEqual(await health.readiness(), { ready: true, reasons: [] });
  assert.equal(kube.pings, 0);
});

Deno.test("Health pings Kubernetes when no call answered within the last 5 s", async () => {
  const kube = new FakeKubernetes();
  const { health, advance } = upHealth(kube);
  assert.equal((await health.readiness()).ready, true);
  assert.equal(kube.pings, 1, "no call yet: pinged");
  advance(4_000);
  await health.readiness();
  assert.equal(kube.pings, 1, "the ping's answer is fresh");
  advance(2_000);
  await health.readiness();
  assert.equal(kube.pings, 2, "stale: pinged again");
});

Deno.test("Health names each listener that is not up", async () => {
  const kube = new FakeKubernetes();
  const health = new Health({ ping: kube.ping });
  assert.deepEqual(await health.readiness(), {
    ready: false,
    reasons: ["http listener is not up", "grpc listener is not up"],
  });
  health.listeners.http = true;
  assert.deepEqual(await health.readiness(), {
    ready: false,
    reasons: ["grpc listener is not up"],
  });
});

Deno.test("Health is not ready once shutdown began, and says so to onChange", async () => {
  const kube = new FakeKubernetes();
  const { health } = upHealth(kube);
  const changes: boolean[] = [];
  health.onChange = (ready) => changes.push(ready);
  health.beginShutdown();
  assert.equal(health.shuttingDown, true);
  assert.deepEqual(await health.readiness(), {
    ready: false,
    reasons: ["shutting down"],
  });
  assert.deepEqual(changes, [false]);
});

Deno.test("Health is not ready while Kubernetes is unavailable and recovers by itself when it answers", async () => {
  const kube = new FakeKubernetes();
  const { health, advance } = upHealth(kube);
  health.observe(record("ok"));
  assert.equal((await health.readiness()).ready, true);

  // A request's call fails: not ready at once, however recent the last answer.
  health.observe(record("UNAVAILABLE"));
  kube.answer = "unavailable";
  assert.deepEqual(await health.readiness(), {
    ready: false,
    reasons: [
      "Cannot reach Kubernetes: Kubernetes API unavailable: connection refused",
    ],
  });

  // Kubernetes is back: the next check's ping finds it.
  kube.answer = "ok";
  advance(100);
  assert.deepEqual(await health.readiness(), { ready: true, reasons: [] });
});

Deno.test("Health tells onChange when a readiness check finds readiness changed", async () => {
  const kube = new FakeKubernetes();
  const { health, advance } = upHealth(kube);
  const changes: boolean[] = [];
  health.onChange = (ready) => changes.push(ready);
  await health.readiness();
  assert.deepEqual(changes, [], "ready from the start: nothing to tell");
  health.observe(record("UNAVAILABLE"));
  kube.answer = "unavailable";
  await health.readiness();
  await health.readiness();
  assert.deepEqual(changes, [false]);
  kube.answer = "ok";
  advance(100);
  await health.readiness();
  assert.deepEqual(changes, [false, true]);
  health.beginShutdown();
  await health.readiness();
  assert.deepEqual(changes, [false, true, false]);
});

Deno.test("Health says when Kubernetes did not answer the ping in time", async () => {
  const kube = new FakeKubernetes();
  kube.answer = "hang";
  const { health } = upHealth(kube, { pingTimeoutMs: 50 });
  assert.deepEqual(await health.readiness(), {
    ready: false,
    reasons: ["Kubernetes API did not answer within 50 ms"],
  });
});

Deno.test("Health shares one ping among concurrent readiness checks", async () => {
  let pings = 0;
  const { promise: answered, resolve: answer } = Promise.withResolvers<void>();
  const health = new Health({
    ping: async ({ observe }) => {
      pings++;
      await answered;
      observe(record("ok"));
    },
  });
  health.listeners.http = true;
  health.listeners.grpc = true;
  const checks = Array.from({ length: 20 }, () => health.readiness());
  answer();
  const results = await Promise.all(checks);
  assert.equal(pings, 1);
  assert.ok(results.every((r) => r.ready), JSON.stringify(results));
});

Deno.test("readinessPage() answers 200 when ready and 503 with the reasons when not; livenessPage() 200", async () => {
  const kube = new FakeKubernetes();
  const { health } = upHealth(kube);
  const ready = await readinessPage(health);
  assert.equal(ready.status, 200);
  assert.deepEqual(await ready.json(), { status: "ready" });

  health.beginShutdown();
  const notReady = await readinessPage(health);
  assert.equal(notReady.status, 503);
  assert.deepEqual(await notReady.json(), {
    status: "not ready",
    reasons: ["shutting down"],
  });

  const live = livenessPage();
  assert.equal(live.status, 200);
  assert.deepEqual(await live.json(), { status: "ok" });
});

Deno.test("Health takes a call its caller cancelled as no news about Kubernetes", async () => {
  const kube = new FakeKubernetes();
  const { health } = upHealth(kube);
  health.observe(record("ok"));
  health.observe(record("CANCELLED"));
  assert.deepEqual(await health.readiness(), { ready: true, reasons: [] });
  assert.equal(kube.pings, 0, "the earlier answer still counts");
});

Deno.test("Health is not ready while Kubernetes calls fail on Corral's side, the ping included", async () => {
  const kube = new FakeKubernetes();
  kube.answer = "refused";
  const { health, advance } = upHealth(kube);
  health.observe(record("INTERNAL"));
  const { ready, reasons } = await health.readiness();
  assert.equal(ready, false);
  assert.deepEqual(reasons, ["Cannot reach Kubernetes: internal error"]);
  kube.answer = "ok";
  advance(1);
  health.observe(record("ok"));
  assert.equal((await health.readiness()).ready, true);
});

Deno.test("Health ignores calls cancelled because their client gave up", async () => {
  const kube = new FakeKubernetes();
  const { health } = upHealth(kube);
  health.observe(record("ok"));
  health.observe(record("CANCELLED"));
  assert.deepEqual(await health.readiness(), { ready: true, reasons: [] });
  assert.equal(kube.pings, 0);
});

Deno.test("Health.unanswered() is silent until a ping gets no answer; then it says why, and any answer clears it", async () => {
  const kube = new FakeKubernetes();
  const { health, advance } = upHealth(kube, { pingTimeoutMs: 50 });
  assert.equal(health.unanswered(), undefined, "nothing known yet");
  // A call that failed is readiness's news, not that the API server is away.
  health.observe(record("UNAVAILABLE"));
  assert.equal(health.unanswered(), undefined);
  kube.answer = "hang";
  await health.readiness();
  assert.equal(
    health.unanswered(),
    "Kubernetes API did not answer within 50 ms",
  );
  kube.answer = "unavailable";
  advance(1_000);
  await health.readiness();
  assert.match(health.unanswered()!, /connection refused/);
  health.observe(record("NOT_FOUND"));
  assert.equal(health.unanswered(), undefined, "a 404 is an answer");
});

Deno.test("Health.unanswered() asks again in the background, at most once a second, and an answer clears it", async () => {
  const kube = new FakeKubernetes();
  kube.answer = "unavailable";
  const { health, advance } = upHealth(kube);
  await health.readiness();
  assert.equal(kube.pings, 1);
  assert.ok(health.unanswered());
  assert.ok(health.unanswered());
  assert.equal(kube.pings, 1, "within a second of the last ping");
  advance(1_000);
  assert.ok(health.unanswered());
  assert.equal(kube.pings, 2, "a second later");
  // A readiness check waits for the ping in flight rather than making one.
  await health.readiness();
  assert.equal(kube.pings, 2);
  assert.ok(health.unanswered());
  kube.answer = "ok";
  advance(1_000);
  health.unanswered();
  assert.equal(kube.pings, 3);
  await until(
    "the third ping's answer",
    () => health.unanswered() === undefined,
  );
});

Deno.test("Health.recheck() pings at most once a second; a ping failing on Corral's side says nothing of the API server", async () => {
  const kube = new FakeKubernetes();
  kube.answer = "refused";
  const { health, advance } = upHealth(kube);
  health.recheck();
  health.recheck();
  assert.equal(kube.pings, 1);
  await health.readiness();
  assert.equal(health.unanswered(), undefined);
  advance(1_000);
  health.recheck();
  assert.equal(kube.pings, 2);
});
