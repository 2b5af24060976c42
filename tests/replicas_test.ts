/**
 * Several replicas: two main.ts processes in kubernetes mode, each with its
 * watch-backed cache, against one stand-in (this process serves it; both
 * reach it over HTTP), as two pods of the Deployment share one API server.
 * What one replica writes the other finds at once by name, loses within a
 * second when it is deleted, and streams to its watchers; concurrent writes
 * split across the replicas are decided by Kubernetes alone: of same-etag
 * updates that change something exactly one wins, of same-name creates
 * exactly one succeeds. Updates that change nothing keep the etag (the
 * docs/http-api.md, "Updating a cluster").
 */
import assert from "node:assert/strict";
import { kubeconfigFor, type Standin, startStandin } from "../standin/mod.ts";
import { corralOf } from "./main_client.ts";
import { NS, sampleCluster } from "./api/cases.ts";
import { type OpenWatch, WATCH_TRANSPORTS } from "./api/stream_watchers.ts";
import { eventually } from "./eventually.ts";
import { type Corral, type Outcome, viaGrpc, viaHttp } from "./harness.ts";
import {
  ANONYMOUS,
  FREE_PORTS,
  type MainProcess,
  NO_FAIR_USE_LIMITS,
  NO_SHUTDOWN_DELAY,
  startMain,
} from "./main_process.ts";

const CS = "proto.ClusterService";
/** How soon another replica must see a write (issue 24, item 8). */
const VISIBLE_WITHIN_MS = 1_000;
/** A scheme without a token: anonymous, as --allow-anonymous serves it. */
const ANONYMOUS_CALLER = "Bearer";

type Call = typeof viaHttp;
/** Both transports, by name, as the harness calls them. */
const VIA: Record<"http" | "grpc", Call> = { http: viaHttp, grpc: viaGrpc };

/** One main.ts process, called as the harness calls an in-process Corral. */
interface Replica {
  label: string;
  main: MainProcess;
  corral: Corral;
}

interface Rig {
  standin: Standin;
  a: Replica;
  b: Replica;
}

/** Waits for /readyz: the replica's first lists are in. */
async function ready(main: MainProcess): Promise<void> {
  await eventually(`${main.http}/readyz`, async () => {
    const response = await fetch(`${main.http}/readyz`);
    await response.body?.cancel();
    return response.status === 200 ? true : undefined;
  });
}

async function startReplica(
  label: string,
  kubeconfig: string,
): Promise<Replica> {
  const main = await startMain({
    name: `replica ${label}`,
    startTimeoutMs: 60_000,
    args: [
      "--orchestrator",
      "kubernetes",
      "--kubeconfig",
      kubeconfig,
      "--cache",
      "on",
      ...FREE_PORTS,
      ...NO_SHUTDOWN_DELAY,
      ...ANONYMOUS,
      // The racing creates are one anonymous caller's, far over its rate.
      ...NO_FAIR_USE_LIMITS,
    ],
  });
  await ready(main);
  return { label, main, corral: await corralOf(main) };
}

/** Stand-in, two replicas (started side by side), the "small" template. */
async function withReplicas(run: (rig: Rig) => Promise<void>): Promise<void> {
  const standin = startStandin({ hostname: "127.0.0.1", port: 0 });
  const kubeconfig = await Deno.makeTempFile({ suffix: ".kubeconfig" });
  await Deno.writeTextFile(kubeconfig, kubeconfigFor(standin.url));
  const started = await Promise.allSettled([
    startReplica("A", kubeconfig),
    startReplica("B", kubeconfig),
  ]);
  const replicas = started.flatMap((s) =>
    s.status === "fulfilled" ? [s.value] : []
  );
  try {
    for (const s of started) if (s.status === "rejected") throw s.reason;
    const [a, b] = replicas;
    ok(
      await viaHttp(
        a.corral,
        "proto.ComputeTemplateService/CreateComputeTemplate",
        {
          namespace: NS,
          computeTemplate: { name: "small", cpu: 1, memory: 1 },
        },
      ),
    );
    await run({ standin, a, b });
  } finally {
    for (const replica of replicas) {
      await replica.corral.close();
      const status = await replica.main.stop();
      assert.equal(
        status.code,
        0,
        `replica ${replica.label}: ${replica.main.logs.slice(-10).join("\n")}`,
      );
    }
    await standin.close();
    await Deno.remove(kubeconfig);
  }
}

type Json = Record<string, unknown>;

function ok(outcome: Outcome): Json {
  assert.equal(outcome.code, 0, outcome.message);
  return outcome.result!;
}

function createCluster(
  replica: Replica,
  name: string,
  call: Call = viaHttp,
): Promise<Outcome> {
  return call(replica.corral, `${CS}/CreateCluster`, {
    namespace: NS,
    cluster: sampleCluster({ name }),
  });
}

function getCluster(
  replica: Replica,
  name: string,
  call: Call = viaHttp,
): Promise<Outcome> {
  return call(replica.corral, `${CS}/GetCluster`, { namespace: NS, name });
}

async function listedNames(replica: Replica): Promise<string[]> {
  const listed = ok(
    await viaHttp(replica.corral, `${CS}/ListCluster`, { namespace: NS }),
  );
  return ((listed.clusters ?? []) as Json[]).map((c) => c.name as string);
}

function updateEnvs(
  replica: Replica,
  name: string,
  envs: Record<string, string>,
  etag: string,
  call: Call = viaHttp,
): Promise<Outcome> {
  return call(replica.corral, `${CS}/UpdateCluster`, {
    namespace: NS,
    name,
    cluster: { envs, etag },
    updateMask: "envs",
  });
}

/** The replica of the i-th of several calls, alternating A and B. */
function split(rig: Rig, i: number): Replica {
  return i % 2 === 0 ? rig.a : rig.b;
}

/** The transport of the i-th of several calls: every fourth over gRPC. */
function transportOf(i: number): Call {
  return Math.floor(i / 2) % 2 === 0 ? viaHttp : viaGrpc;
}

/** Waits, at most VISIBLE_WITHIN_MS, until B's list holds `name`. */
async function listedOnB(rig: Rig, name: string): Promise<void> {
  await eventually(
    `B's list to hold "${name}"`,
    async () => (await listedNames(rig.b)).includes(name) ? true : undefined,
    VISIBLE_WITHIN_MS,
  );
}

async function createdOnAFoundOnB(rig: Rig): Promise<void> {
  ok(await createCluster(rig.a, "found"));
  // At once: B's cache may not hold it yet, and its miss asks Kubernetes.
  for (const [transport, call] of Object.entries(VIA)) {
    const got = ok(await getCluster(rig.b, "found", call));
    assert.equal(got.name, "found", transport);
  }
  await listedOnB(rig, "found");
}

async function deletedOnAGoneFromB(rig: Rig): Promise<void> {
  ok(await createCluster(rig.a, "gone"));
  ok(await getCluster(rig.b, "gone"));
  await listedOnB(rig, "gone");
  ok(
    await viaHttp(rig.a.corral, `${CS}/DeleteCluster`, {
      namespace: NS,
      name: "gone",
    }),
  );
  await eventually("B to answer 404 and list it no more", async () => {
    const got = await getCluster(rig.b, "gone");
    if (got.code !== 5) return undefined;
    return (await listedNames(rig.b)).includes("gone") ? undefined : true;
  }, VISIBLE_WITHIN_MS);
  for (const [transport, call] of Object.entries(VIA)) {
    const got = await getCluster(rig.b, "gone", call);
    assert.equal(got.code, 5, `${transport}: ${got.message}`);
  }
}

async function oneOfTheChangesWins(rig: Rig): Promise<void> {
  ok(await createCluster(rig.a, "contended"));
  const etag = ok(await getCluster(rig.b, "contended")).etag as string;
  // Each a real change (its own envs), so each write would move the etag.
  const outcomes = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      updateEnvs(
        split(rig, i),
        "contended",
        { ROUND: String(i) },
        etag,
        transportOf(i),
      )),
  );
  const winners = outcomes.flatMap((o, i) => o.code === 0 ? [i] : []);
  assert.equal(winners.length, 1, outcomes.map((o) => o.message).join("\n"));
  const [winner] = winners;
  for (const [i, outcome] of outcomes.entries()) {
    if (i === winner) continue;
    assert.equal(outcome.code, 10, outcome.message);
    assert.equal(
      outcome.message,
      `Cannot update cluster "team-a/contended": etag "${etag}" is not the cluster's current etag: get the cluster and try again`,
    );
  }
  const won = outcomes[winner].result!;
  assert.notEqual(won.etag, etag, "a change moves the etag");
  for (const replica of [rig.a, rig.b]) {
    const got = await eventually(
      `${replica.label} to show the winner`,
      async () => {
        const got = ok(await getCluster(replica, "contended"));
        return got.etag === won.etag ? got : undefined;
      },
      VISIBLE_WITHIN_MS,
    );
    assert.deepEqual(got.envs, { ROUND: String(winner) }, replica.label);
  }
}

async function noOpsKeepTheEtag(rig: Rig): Promise<void> {
  ok(await createCluster(rig.a, "steady"));
  const before = ok(await getCluster(rig.b, "steady"));
  const etag = before.etag as string;
  const envs = (before.envs ?? {}) as Record<string, string>;
  const outcomes = await Promise.all(
    Array.from(
      { length: 6 },
      (_, i) => updateEnvs(split(rig, i), "steady", envs, etag, transportOf(i)),
    ),
  );
  for (const outcome of outcomes) {
    const answered = ok(outcome);
    assert.equal(answered.etag, etag, "a no-op does not move the etag");
    assert.deepEqual(answered.envs, before.envs);
  }
  // So the etag still names the current cluster: an update that changes
  // something, sent with it afterwards, applies.
  const changed = ok(
    await updateEnvs(rig.b, "steady", { AFTER: "no-ops" }, etag),
  );
  assert.notEqual(changed.etag, etag);
  // A no-op with an etag that is no longer current is refused like any
  // update: the etag check comes before the write.
  const stale = await updateEnvs(rig.a, "steady", { AFTER: "no-ops" }, etag);
  assert.equal(stale.code, 10, stale.message);
}

async function oneOfTheCreatesSucceeds(rig: Rig): Promise<void> {
  const outcomes = await Promise.all(
    Array.from(
      { length: 200 },
      (_, i) => createCluster(split(rig, i), "twin", transportOf(i)),
    ),
  );
  const codes = outcomes.map((o) => o.code);
  assert.equal(codes.filter((c) => c === 0).length, 1, `${codes}`);
  assert.equal(codes.filter((c) => c === 6).length, 199, `${codes}`);
  for (const replica of [rig.a, rig.b]) ok(await getCluster(replica, "twin"));
}

/**
 * Gets on B racing A's create and delete: B's misses ask Kubernetes while
 * its watch brings the create and the delete, in either order. However they
 * interleave, B ends with the truth (404, not listed) within 1 s.
 */
async function racedGetsOnBEndInTheTruth(rig: Rig): Promise<void> {
  for (let round = 0; round < 10; round++) {
    const name = `raced-${round}`;
    const gets: Promise<Outcome>[] = [];
    const creating = createCluster(rig.a, name);
    for (let i = 0; i < 4; i++) gets.push(getCluster(rig.b, name));
    ok(await creating);
    const deleting = viaHttp(rig.a.corral, `${CS}/DeleteCluster`, {
      namespace: NS,
      name,
    });
    for (let i = 0; i < 4; i++) gets.push(getCluster(rig.b, name));
    ok(await deleting);
    await Promise.all(gets);
    await eventually(
      `B to answer 404 for "${name}" and list it no more`,
      async () => {
        const got = await getCluster(rig.b, name);
        if (got.code !== 5) return undefined;
        return (await listedNames(rig.b)).includes(name) ? undefined : true;
      },
      VISIBLE_WITHIN_MS,
    );
  }
}

/** A watch on B, opened by `open`, sees A's create, update and delete. */
async function watchOnBSeesA(
  rig: Rig,
  transport: string,
  open: (typeof WATCH_TRANSPORTS)[number][1],
): Promise<void> {
  const name = `watched-${transport.toLowerCase()}`;
  const watch = await open(rig.b.corral, { namespace: NS }, ANONYMOUS_CALLER);
  const about = (type: string) => (a: Answer) =>
    a.type === type && nameOf(a) === name;
  try {
    await seen(watch, "the initial BOOKMARK", (a) => a.type === "BOOKMARK");
    ok(await createCluster(rig.a, name));
    await seen(watch, `ADDED ${name}`, about("ADDED"));
    const etag = ok(await getCluster(rig.a, name)).etag as string;
    ok(await updateEnvs(rig.a, name, { SEEN: "on B" }, etag));
    await seen(
      watch,
      `MODIFIED ${name} with the new envs`,
      (a) =>
        about("MODIFIED")(a) &&
        ((a.cluster as Json).envs as Json | undefined)?.SEEN === "on B",
    );
    ok(
      await viaHttp(rig.a.corral, `${CS}/DeleteCluster`, {
        namespace: NS,
        name,
      }),
    );
    await seen(watch, `DELETED ${name}`, about("DELETED"));
  } finally {
    watch.close();
    await watch.ended;
  }
}

/** What two replicas must agree on, one step each, in one rig. */
const STEPS: [string, (rig: Rig) => Promise<void>][] = [
  [
    "a cluster created on A is found on B at once, on both transports",
    createdOnAFoundOnB,
  ],
  [
    "a cluster deleted on A is gone from B's get and list within 1 s",
    deletedOnAGoneFromB,
  ],
  [
    "of same-etag updates that change something, split across A and B, exactly one wins; the rest are ABORTED",
    oneOfTheChangesWins,
  ],
  [
    "updates that change nothing, with one etag on both replicas: each answers 200 with the cluster as it is, and the etag stays",
    noOpsKeepTheEtag,
  ],
  [
    "gets on B racing A's create and delete end in the truth: 404 and not listed within 1 s",
    racedGetsOnBEndInTheTruth,
  ],
  [
    "200 creates of one name, split across A and B: exactly one succeeds, the rest ALREADY_EXISTS",
    oneOfTheCreatesSucceeds,
  ],
  // gRPC and NDJSON; SSE is the NDJSON stream framed otherwise.
  ...WATCH_TRANSPORTS.slice(0, 2).map(([transport, open]) =>
    [
      `a watch on B (${transport}) sees A's create, update and delete within 1 s each`,
      (rig: Rig) => watchOnBSeesA(rig, transport, open),
    ] as [string, (rig: Rig) => Promise<void>]
  ),
];

Deno.test("two replicas against one API server agree on what exists and who won", async (t) => {
  await withReplicas(async (rig) => {
    for (const [name, step] of STEPS) {
      await t.step(name, () => step(rig));
    }
  });
});

type Answer = Record<string, unknown>;

function nameOf(answer: Answer): string | undefined {
  return (answer.cluster as Json | null | undefined)?.name as
    | string
    | undefined;
}

/**
 * Waits, at most VISIBLE_WITHIN_MS, for an answer of the watch that
 * `matches`; fails with the answers so far.
 */
async function seen(
  watch: OpenWatch,
  what: string,
  matches: (answer: Answer) => boolean,
): Promise<void> {
  try {
    await eventually(what, () =>
      Promise.resolve(
        (watch.answers as Answer[]).some(matches) ? true : undefined,
      ), VISIBLE_WITHIN_MS);
  } catch (error) {
    throw new Error(
      `${(error as Error).message}; the watch answered ${
        JSON.stringify(watch.answers)
      }`,
    );
  }
}
