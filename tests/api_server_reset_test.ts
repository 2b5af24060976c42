/**
 * An API server killed and restarted empty (its etcd lost), round after
 * round, under main.ts with --cache on: the stand-in runs in a process of
 * its own (tests/standin_process.ts), killed (or stopped) and started
 * again on the same port with nothing, its resource versions counting
 * from the start again. Each round varies the timing (when the kill
 * comes, whether the watches are cut or end cleanly, how long the API
 * server stays down, whether writes reach the new one before Corral is
 * ready) from a seeded random sequence, and asserts that once /readyz
 * answers 200 again:
 *
 * - no lost object (cluster or compute template) is served by a get or a
 *   list, on HTTP and on gRPC;
 * - the watches open through the reset end with code 10, having sent no
 *   change after the kill, and resuming from their last version is code 10;
 * - a new watch's events carry only the new versions (of the new epoch,
 *   "N.round"), never going back, and none repeats.
 *
 * RESET_ROUNDS sets the number of rounds (3 by default: each takes a few
 * seconds); RESET_SEED replays a run's timing.
 */
import assert from "node:assert/strict";
import { computeTemplateToConfigMap } from "../domain/template_conversions.ts";
import { kubeconfigFor } from "../standin/mod.ts";
import { NS, sampleCluster } from "./api/cases.ts";
import {
  type OpenWatch,
  WATCH_TRANSPORTS,
  within,
} from "./api/stream_watchers.ts";
import { eventually, until } from "./eventually.ts";
import { type Corral, type Outcome, TRANSPORTS } from "./harness.ts";
import { corralOf } from "./main_client.ts";
import {
  ANONYMOUS,
  FREE_PORTS,
  type MainProcess,
  NO_FAIR_USE_LIMITS,
  NO_SHUTDOWN_DELAY,
  startMain,
} from "./main_process.ts";
import { Rng } from "./random.ts";
import { event, rayCluster } from "./standin/requests.ts";
import { kubeFetch } from "./standin/with_standin.ts";
import { type StandinProcess, startStandinProcess } from "./standin_process.ts";

const ROUNDS = Number(Deno.env.get("RESET_ROUNDS") ?? 3);
const SEED = Number(Deno.env.get("RESET_SEED") ?? 35);

const CS = "proto.ClusterService";
const CT = "proto.ComputeTemplateService";
const KUBE_CLUSTERS = `/apis/ray.io/v1/namespaces/${NS}/rayclusters`;
const KUBE_CONFIGMAPS = `/api/v1/namespaces/${NS}/configmaps`;
const KUBE_EVENTS = `/api/v1/namespaces/${NS}/events`;
const MANAGED = { "app.kubernetes.io/managed-by": "kuberay-apiserver" };
/** A scheme without a token: anonymous, as --allow-anonymous serves it. */
const ANONYMOUS_CALLER = "Bearer";
/** The transports that carry WatchClusters, as the watch tests open them. */
const WATCHES = WATCH_TRANSPORTS.filter(([name]) => name !== "SSE");

type Json = Record<string, unknown>;

interface Rig {
  standin: StandinProcess;
  main: MainProcess;
  /** A client of both transports, a new one each round. */
  corral: Corral;
  rng: Rng;
  /** Per round, how long after the restart /readyz was 200 again. */
  readyAfterMs: number[];
  /**
   * Closes the client and opens another: Deno's HTTP/2 client can abort
   * the process when a session that carried hundreds of streams gets a
   * GOAWAY (denoland/deno#36788), as main.ts's shutdown sends one.
   */
  newClient(): Promise<void>;
}

Deno.test(`an API server killed and restarted empty, ${ROUNDS} rounds: once /readyz is 200 again nothing lost is served on either transport, and no watch event carries a version from before the reset or repeats`, async () => {
  console.log(`api_server_reset_test.ts: RESET_SEED=${SEED}`);
  const rig = await startRig();
  try {
    await ready(rig.main);
    for (let round = 1; round <= ROUNDS; round++) {
      if (round > 1) await rig.newClient();
      try {
        await oneRound(rig, round);
      } catch (error) {
        throw new Error(`round ${round} of RESET_SEED=${SEED} failed`, {
          cause: error,
        });
      }
    }
    const took = rig.readyAfterMs.sort((a, b) => a - b).map(Math.round);
    console.log(
      `ready again after the restart: ${took[0]} to ${took.at(-1)} ms, median ${
        took[Math.floor(took.length / 2)]
      } ms`,
    );
  } finally {
    const status = await rig.close();
    assert.equal(status.code, 0, rig.main.logs.slice(-10).join("\n"));
  }
});

/**
 * The stand-in process, main.ts with --cache on against it, and a client
 * of both transports; close() stops them all and answers main.ts's
 * exit status.
 */
async function startRig(): Promise<
  Rig & { close(): Promise<Deno.CommandStatus> }
> {
  const standin = await startStandinProcess();
  const kubeconfig = await Deno.makeTempFile({ suffix: ".kubeconfig" });
  await Deno.writeTextFile(kubeconfig, kubeconfigFor(standin.url));
  let main: MainProcess;
  try {
    main = await startMain({
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
        ...NO_FAIR_USE_LIMITS,
        // No Lease and no expiry pass: only the cache and the test's own
        // calls reach the API server.
        "--leader-elect=false",
        "--expiry-interval",
        "1h",
      ],
    });
  } catch (error) {
    await standin.kill();
    await Deno.remove(kubeconfig);
    throw error;
  }
  const rig = {
    standin,
    main,
    corral: await corralOf(main),
    rng: new Rng(SEED),
    readyAfterMs: [],
    async newClient() {
      await rig.corral.close();
      rig.corral = await corralOf(main);
    },
    async close() {
      await rig.corral.close();
      const status = await main.stop();
      await rig.standin.kill();
      await Deno.remove(kubeconfig);
      return status;
    },
  };
  return rig;
}

/**
 * One round: objects on the API server, watches open, the kill, the
 * restart empty (with writes to it at varied moments), then what is
 * served once /readyz is 200.
 */
async function oneRound(rig: Rig, round: number): Promise<void> {
  const lost = await populate(rig, round);
  const open = await openWatches(rig.corral);
  const lastVersions = open.map((watch) => bookmarkOf(watch));
  const inFlight = await killSomewhen(rig, round);
  lost.push(inFlight);
  const heardBeforeKill = open.map((watch) => watch.answers.length);

  const down = rig.rng.int(1_000);
  await new Promise((resolve) => setTimeout(resolve, down));
  rig.standin = await startStandinProcess(rig.standin.port);
  const back = performance.now();
  const written = await writeEarly(rig, round);
  await ready(rig.main);
  rig.readyAfterMs.push(performance.now() - back);

  await assertNothingLostServed(rig.corral, lost, written.template);
  await assertOldWatchesEnded(rig.corral, open, heardBeforeKill, lastVersions);
  if (!written.template) await createTemplate(rig);
  await assertNewWatchEvents(rig, round);
}

/**
 * What the API server holds before the kill: the template, clusters
 * written through Corral and by another client, and changes of other
 * objects that take its versions well above where a fresh one starts.
 * Answers the names of the clusters written, all to be lost.
 */
async function populate(rig: Rig, round: number): Promise<string[]> {
  const { corral, rng } = rig;
  // Later rounds start on the API server the round before left.
  if (round === 1) await createTemplate(rig);
  const names: string[] = [];
  for (let i = 0; i < 3; i++) {
    const name = `old-${round}-${i}`;
    ok(await createCluster(corral, name, rng.pick(TRANSPORTS)[1]));
    names.push(name);
  }
  for (let i = 0; i < 2; i++) {
    const name = `old-${round}-elsewhere-${i}`;
    await createElsewhere(rig.standin.url, name);
    names.push(name);
  }
  await createEvent(rig.standin.url, `old-${round}-event`, names[0]);
  for (let i = 0; i < 20; i++) {
    const created = await kubeFetch(rig.standin.url, "POST", KUBE_CONFIGMAPS, {
      metadata: { name: `padding-${i}` },
      data: { i: String(i) },
    });
    assert.equal(created.status, 201, await created.text());
  }
  await eventually("Corral lists every cluster written", async () => {
    const listed = await clusterNames(corral, "http");
    return names.every((name) => listed.includes(name)) ? true : undefined;
  });
  return names;
}

/** Watches of NS on gRPC and HTTP, each past its first BOOKMARK. */
async function openWatches(corral: Corral): Promise<OpenWatch[]> {
  const open: OpenWatch[] = [];
  for (const [, opener] of WATCHES) {
    open.push(await opener(corral, { namespace: NS }, ANONYMOUS_CALLER));
  }
  for (const watch of open) {
    await until(
      "the watch's first BOOKMARK",
      () => watch.answers.some((answer) => answer.type === "BOOKMARK"),
    );
  }
  return open;
}

/**
 * Ends the API server at a varied moment (at once, after a pause, or with
 * a create through Corral in flight), killed or stopped (its watches then
 * end cleanly). Answers the name of that create's cluster (lost, whether
 * or not it was written).
 */
async function killSomewhen(rig: Rig, round: number): Promise<string> {
  const name = `in-flight-${round}`;
  const moment = rig.rng.int(3);
  if (moment === 1) {
    await new Promise((resolve) => setTimeout(resolve, rig.rng.int(300)));
  }
  const creating = moment === 2
    ? createCluster(rig.corral, name, rig.rng.pick(TRANSPORTS)[1])
    : undefined;
  await (rig.rng.chance(0.5) ? rig.standin.kill() : rig.standin.stop());
  await creating;
  return name;
}

/**
 * Writes to the new API server before Corral is ready, or not: a cluster
 * by another client, the template and a cluster through Corral. Answers
 * whether the template was written again.
 */
async function writeEarly(
  rig: Rig,
  round: number,
): Promise<{ template: boolean }> {
  const { rng, corral } = rig;
  if (rng.chance(0.5)) {
    await createElsewhere(rig.standin.url, `new-${round}-elsewhere`);
  }
  const template = rng.chance(0.5);
  if (template) {
    const created = await kubeFetch(
      rig.standin.url,
      "POST",
      KUBE_CONFIGMAPS,
      computeTemplateToConfigMap({
        name: "small",
        namespace: NS,
        cpu: 1,
        memory: 1,
        gpu: 0,
        gpuAccelerator: "",
        tolerations: [],
        extendedResources: {},
        memoryUnit: "",
      }),
    );
    assert.equal(created.status, 201, await created.text());
    // Through Corral, whatever it answers: it may not be ready yet.
    await createCluster(corral, `new-${round}-early`, rng.pick(TRANSPORTS)[1]);
  }
  return { template };
}

/**
 * Gets and lists on both transports at once: no lost cluster, and no lost
 * template (unless written again).
 */
async function assertNothingLostServed(
  corral: Corral,
  lost: string[],
  templateWrittenAgain: boolean,
): Promise<void> {
  const checks = TRANSPORTS.flatMap(([transport, via]) => [
    ...lost.map(async (name) => {
      const got = await via(corral, `${CS}/GetCluster`, {
        namespace: NS,
        name,
      });
      assert.equal(got.code, 5, `${transport} GetCluster ${name}`);
    }),
    (async () => {
      const listed = await clusterNames(corral, transport);
      const served = listed.filter((name) => lost.includes(name));
      assert.deepEqual(served, [], `${transport} ListCluster serves them`);
    })(),
    (async () => {
      if (templateWrittenAgain) return;
      const got = await via(corral, `${CT}/GetComputeTemplate`, {
        namespace: NS,
        name: "small",
      });
      assert.equal(got.code, 5, `${transport} GetComputeTemplate small`);
      const listed = ok(
        await via(corral, `${CT}/ListComputeTemplates`, { namespace: NS }),
      );
      assert.deepEqual(
        listed.computeTemplates ?? [],
        [],
        `${transport} ListComputeTemplates`,
      );
    })(),
  ]);
  await Promise.all(checks);
}

/**
 * The watches open through the reset: no change sent after the kill (a
 * BOOKMARK only at the version they had), ended with code 10; resuming
 * from that version is code 10 too.
 */
async function assertOldWatchesEnded(
  corral: Corral,
  open: OpenWatch[],
  heardBeforeKill: number[],
  lastVersions: string[],
): Promise<void> {
  for (const [i, watch] of open.entries()) {
    const ending = await within(10_000, "the old watch's end", watch.ended);
    assert.equal(ending.code, 10, `${WATCHES[i][0]} ended: ${ending.message}`);
    const after = watch.answers.slice(heardBeforeKill[i]);
    for (const answer of after) {
      assert.equal(answer.type, "BOOKMARK", JSON.stringify(answer));
      assert.equal(answer.resourceVersion, lastVersions[i]);
    }
    for (const [name, opener] of WATCHES) {
      const resumed = await opener(
        corral,
        { namespace: NS, resourceVersion: lastVersions[i] },
        ANONYMOUS_CALLER,
      );
      const end = await within(
        10_000,
        "the resumed watch's end",
        resumed.ended,
      );
      assert.equal(end.code, 10, `${name} resumed from ${lastVersions[i]}`);
      assert.deepEqual(resumed.answers, []);
    }
  }
}

/**
 * New watches on both transports: their state is what the API server
 * holds, and the changes that follow (a create through Corral, a status,
 * an Event and a delete written by another client) carry versions of the
 * new epoch, rising, none twice.
 */
async function assertNewWatchEvents(rig: Rig, round: number): Promise<void> {
  const { corral } = rig;
  const truth = await kubeNames(rig.standin.url);
  const open = await openWatches(corral);
  try {
    for (const watch of open) {
      const state = watch.answers.filter((a) => a.type === "ADDED")
        .map((a) => (a.cluster as Json).name).sort();
      assert.deepEqual(state, truth, "the new watch's state");
    }
    const name = `new-${round}-watched`;
    ok(await createCluster(corral, name, rig.rng.pick(TRANSPORTS)[1]));
    const status = await kubeFetch(
      rig.standin.url,
      "PATCH",
      `${KUBE_CLUSTERS}/${name}/status`,
      { status: { state: "ready" } },
    );
    assert.equal(status.status, 200, await status.text());
    await createEvent(rig.standin.url, `${name}-event`, name);
    const deleted = await kubeFetch(
      rig.standin.url,
      "DELETE",
      `${KUBE_CLUSTERS}/${name}`,
    );
    assert.equal(deleted.status, 200, await deleted.text());
    const revision = await kubeRevision(rig.standin.url);
    for (const [i, watch] of open.entries()) {
      await until(
        `${WATCHES[i][0]}: the watched cluster's DELETED`,
        () =>
          watch.answers.some((a) =>
            a.type === "DELETED" && (a.cluster as Json)?.name === name
          ),
      );
      assertEpochEvents(watch.answers, round, revision, WATCHES[i][0]);
    }
  } finally {
    for (const watch of open) watch.close();
  }
}

/**
 * Every answer after the state carries a version of epoch `round`, at most
 * the API server's `revision`, never lower than the one before; no change
 * is sent twice, nor a MODIFIED that changes nothing.
 */
function assertEpochEvents(
  answers: Json[],
  round: number,
  revision: bigint,
  transport: string,
): void {
  let previous = 0n;
  const seen = new Set<string>();
  const last = new Map<string, string>();
  const state = answers.findIndex((answer) => answer.type === "BOOKMARK");
  for (const answer of answers.slice(0, state)) {
    // The state, sent without versions.
    assert.equal(answer.type, "ADDED");
    assert.equal(answer.resourceVersion || "", "");
  }
  for (const answer of answers.slice(state)) {
    const version = String(answer.resourceVersion ?? "");
    const match = /^(\d+)\.(\d+)$/.exec(version);
    assert.ok(match, `${transport}: ${version} is not of an epoch`);
    assert.equal(Number(match[2]), round, `${transport}: epoch of ${version}`);
    const number = BigInt(match[1]);
    assert.ok(number <= revision, `${transport}: ${version} > ${revision}`);
    assert.ok(number >= previous, `${transport}: ${version} went back`);
    previous = number;
    if (answer.type === "BOOKMARK") continue;
    const cluster = answer.cluster as Json;
    // Two changes may share a version (an object's and its Events' come
    // on separate streams: watch_fanout.ts), not an answer.
    const key = `${answer.type} ${cluster.name} ${version}`;
    const shown = JSON.stringify(cluster);
    assert.ok(!seen.has(`${key} ${shown}`), `${transport}: ${key} sent twice`);
    seen.add(`${key} ${shown}`);
    if (answer.type === "MODIFIED") {
      assert.notEqual(last.get(String(cluster.name)), shown, `${key} repeats`);
    }
    last.set(String(cluster.name), shown);
  }
}

/** The resourceVersion of the last BOOKMARK `watch` sent. */
function bookmarkOf(watch: OpenWatch): string {
  const bookmarks = watch.answers.filter((a) => a.type === "BOOKMARK");
  return String(bookmarks.at(-1)!.resourceVersion);
}

/** The template "small", through Corral. */
async function createTemplate({ corral, rng }: Rig): Promise<void> {
  ok(
    await rng.pick(TRANSPORTS)[1](corral, `${CT}/CreateComputeTemplate`, {
      namespace: NS,
      computeTemplate: { name: "small", cpu: 1, memory: 1 },
    }),
  );
}

function createCluster(
  corral: Corral,
  name: string,
  via: (typeof TRANSPORTS)[number][1],
): Promise<Outcome> {
  return via(corral, `${CS}/CreateCluster`, {
    namespace: NS,
    cluster: sampleCluster({ name }),
  });
}

/** A managed RayCluster written straight to the API server, as another client. */
async function createElsewhere(url: string, name: string): Promise<void> {
  const created = await kubeFetch(
    url,
    "POST",
    KUBE_CLUSTERS,
    rayCluster(name, { metadata: { name, labels: MANAGED } }),
  );
  assert.equal(created.status, 201, await created.text());
}

/** An Event about the cluster `about`, as its operator writes one. */
async function createEvent(
  url: string,
  name: string,
  about: string,
): Promise<void> {
  const created = await kubeFetch(
    url,
    "POST",
    KUBE_EVENTS,
    event(name, { kind: "RayCluster", name: about, namespace: NS }),
  );
  assert.equal(created.status, 201, await created.text());
}

async function clusterNames(
  corral: Corral,
  transport: "http" | "grpc",
): Promise<string[]> {
  const via = TRANSPORTS.find(([name]) => name === transport)![1];
  const listed = ok(await via(corral, `${CS}/ListCluster`, { namespace: NS }));
  return ((listed.clusters ?? []) as Json[]).map((c) => String(c.name));
}

/** The names of the clusters the API server holds, sorted. */
async function kubeNames(url: string): Promise<string[]> {
  const listed = await (await kubeFetch(url, "GET", KUBE_CLUSTERS)).json();
  return (listed.items as { metadata: { name: string } }[])
    .map((item) => item.metadata.name).sort();
}

/** The API server's current resource version (a list's). */
async function kubeRevision(url: string): Promise<bigint> {
  const listed = await (await kubeFetch(url, "GET", KUBE_CONFIGMAPS)).json();
  return BigInt(listed.metadata.resourceVersion);
}

/** Waits for /readyz to answer 200, asking again as soon as it answers. */
async function ready(main: MainProcess): Promise<void> {
  await until("/readyz 200", async () => {
    const response = await fetch(`${main.http}/readyz`);
    await response.body?.cancel();
    return response.status === 200;
  }, 30_000);
}

function ok(outcome: Outcome): Json {
  assert.equal(outcome.code, 0, outcome.message);
  return outcome.result!;
}
