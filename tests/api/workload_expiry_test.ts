/**
 * Expiry covers every cluster Corral writes, on both transports, against a
 * stand-in running the simulated operator (which makes a RayJob's and a
 * RayService's clusters, copying their annotations): under a policy with
 * only a maximum, a job (its cluster kept after it ends, or one that never
 * ends), a service and a cluster created directly each get an expiry; a
 * job asking past the maximum is refused naming job.ttl; a job on an
 * existing cluster takes none (that cluster's bounds it); a namespace whose
 * entry says `services: exempt` leaves services without one. The expiry
 * worker, on a clock the test sets, deletes the RayJob or RayService (its
 * cluster goes with it), never their clusters on their own, and leaves a
 * job that ended and holds no cluster.
 */
import assert from "node:assert/strict";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { silentLogger } from "../../api/log.ts";
import {
  EXPIRED,
  EXPIRING_SOON,
  ExpiryWorker,
} from "../../api/service/expiry_worker.ts";
import { KubernetesEventRecorder } from "../../orchestrator/expiry_events.ts";
import { kubeconfigFor, startSimulatedOperator } from "../../standin/mod.ts";
import { startStandin } from "../../standin/server.ts";
import { until } from "../eventually.ts";
import { type Corral, startCorral, TRANSPORTS } from "../harness.ts";
import { sampleCluster } from "./cases.ts";
import { sampleService } from "./service_cases.ts";
import {
  ALICE,
  bearer,
  fileAccess,
  tokenFileText,
} from "./auth/access_fixtures.ts";
import { allowAll, policyText, users } from "./auth/policy_fixtures.ts";

const POLICY = policyText([allowAll(users("alice"), ["team-a", "team-b"])], {
  expiry: [
    { namespaces: ["team-a"], max: "2h" },
    {
      namespaces: ["team-b"],
      default: "1h",
      max: "2h",
      services: "exempt",
    },
  ],
});

const HOUR = 3_600_000;
const RAY = "/apis/ray.io/v1/namespaces";

type Run = typeof TRANSPORTS[number][1];
// deno-lint-ignore no-explicit-any -- objects as the stand-in holds them
type Json = any;

const OWN_CLUSTER = {
  headGroupSpec: { computeTemplate: "small" },
  workerGroupSpec: [{
    groupName: "workers",
    computeTemplate: "small",
    replicas: 1,
  }],
};

function job(name: string, extra: Record<string, unknown> = {}) {
  const fields: Record<string, unknown> = {
    name,
    user: "alice",
    version: "2.9.0",
    entrypoint: "python -c 'print(1)'",
    clusterSpec: OWN_CLUSTER,
    ...extra,
  };
  // Left out, not undefined: the gRPC case's JSON must be a valid message.
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined),
  );
}

/** Hours from now to an expiresAt answer, to a tenth. */
function hoursAhead(result: Record<string, unknown> | undefined): number {
  const at = Date.parse(String(result?.expiresAt));
  return Math.round((at - Date.now()) / HOUR * 10) / 10;
}

async function kube(corral: Corral, path: string): Promise<Json | undefined> {
  const response = await fetch(`${corral.kubeUrl}${path}`);
  if (response.status === 404) {
    await response.body?.cancel();
    return undefined;
  }
  assert.equal(response.status, 200, path);
  return await response.json();
}

/** The RayClusters the operator made for `owner` (a RayJob or RayService). */
async function clustersOf(
  corral: Corral,
  ns: string,
  owner: string,
): Promise<Json[]> {
  const list = await kube(
    corral,
    `${RAY}/${ns}/rayclusters?labelSelector=ray.io%2Foriginated-from-cr-name%3D${owner}`,
  );
  return list.items;
}

/**
 * The reasons of expiry's events (not the operator's) about the object of
 * `kind` named `name`.
 */
async function reasons(
  corral: Corral,
  ns: string,
  kind: string,
  name: string,
): Promise<string[]> {
  const list = await kube(
    corral,
    `/api/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name%3D${name}`,
  );
  return (list.items as Json[])
    .filter((e) =>
      e.involvedObject.kind === kind &&
      [EXPIRING_SOON, EXPIRED].includes(e.reason)
    )
    .map((e) => e.reason);
}

Deno.test("expiry: a job's and a service's cluster expire under the policy's max, and a service is exempt only where its entry says, on both transports", async (t) => {
  const standin = startStandin();
  const operator = startSimulatedOperator({
    server: standin.url,
    delayMs: 20,
    retryIntervalMs: 10,
    jobStepMs: 20,
  });
  const files = await fileAccess({
    tokens: tokenFileText([ALICE]),
    policy: POLICY,
  });
  const corral = await startCorral({
    access: files.access,
    kubeUrl: standin.url,
    cache: {},
  });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(kubeconfigFor(standin.url));
  let now = Date.now();
  const worker = new ExpiryWorker({
    orchestrator: corral.orchestrator!,
    events: new KubernetesEventRecorder(
      kubeConfig.makeApiClient(CoreV1Api),
      () => new Date(now),
    ),
    leader: { isLeader: () => true },
    log: silentLogger(),
    now: () => new Date(now),
  });
  const authorization = bearer(ALICE);
  try {
    for (const ns of ["team-a", "team-b"]) {
      const [, run] = TRANSPORTS[0];
      const made = await run(
        corral,
        "proto.ComputeTemplateService/CreateComputeTemplate",
        {
          namespace: ns,
          computeTemplate: { name: "small", namespace: ns, cpu: 1, memory: 1 },
        },
        { authorization },
      );
      assert.equal(made.code, 0, made.message);
    }
    for (const [transport, run] of TRANSPORTS) {
      await t.step(
        transport,
        () => creates(corral, run, transport, authorization),
      );
    }
    await t.step("the worker", async () => {
      const start = now;
      const all = TRANSPORTS.map(([transport]) => transport);
      const exists = async (ns: string, plural: string, name: string) =>
        (await kube(corral, `${RAY}/${ns}/${plural}/${name}`)) !== undefined;
      // The cache holds what was created before the passes count on it.
      await until(
        "the cache to hold the services",
        async () =>
          (await corral.orchestrator!.services.list()).length ===
            2 * all.length,
      );

      now = start + 1.5 * HOUR;
      await until("team-b's job to be deleted at its default", async () => {
        await worker.runOnce();
        return !(await exists("team-b", "rayjobs", "b-job-http")) &&
          !(await exists("team-b", "rayjobs", "b-job-grpc"));
      });
      for (const transport of all) {
        assert.ok(await exists("team-a", "rayjobs", `keeps-${transport}`));
        assert.ok(await exists("team-a", "rayservices", `web-${transport}`));
        assert.deepEqual(
          await reasons(corral, "team-a", "RayJob", `keeps-${transport}`),
          [EXPIRING_SOON],
        );
      }

      now = start + 2 * HOUR + 60_000;
      await until("team-a's workloads to be deleted at the max", async () => {
        await worker.runOnce();
        for (const transport of all) {
          for (
            const [plural, name] of [
              ["rayjobs", `keeps-${transport}`],
              ["rayjobs", `waits-${transport}`],
              ["rayservices", `web-${transport}`],
              ["rayclusters", `plain-${transport}`],
            ]
          ) {
            if (await exists("team-a", plural, name)) return false;
          }
        }
        return true;
      });
      for (const transport of all) {
        // The owners went, and their clusters with them (the garbage
        // collector's), never deleted by expiry on their own.
        await until(
          `the clusters of ${transport}'s owners to go`,
          async () =>
            (await clustersOf(corral, "team-a", `keeps-${transport}`))
                .length === 0 &&
            (await clustersOf(corral, "team-a", `web-${transport}`)).length ===
              0,
        );
        assert.deepEqual(
          await reasons(corral, "team-a", "RayJob", `keeps-${transport}`),
          [EXPIRING_SOON, EXPIRED],
        );
        assert.deepEqual(
          await reasons(corral, "team-a", "RayService", `web-${transport}`),
          [EXPIRING_SOON, EXPIRED],
        );
        // A job that ended and holds no cluster is left; an exempt service
        // too.
        assert.ok(await exists("team-a", "rayjobs", `ends-${transport}`));
        assert.ok(await exists("team-b", "rayservices", `free-${transport}`));
      }
      const expiredClusters = (await kube(
        corral,
        "/api/v1/namespaces/team-a/events",
      )).items.filter((e: Json) =>
        e.reason === EXPIRED && e.involvedObject.kind === "RayCluster"
      ).map((e: Json) => e.involvedObject.name).sort();
      assert.deepEqual(expiredClusters, all.map((t) => `plain-${t}`).sort());
    });
  } finally {
    await worker.stop();
    await corral.close();
    await files.close();
    await operator.stop();
    await standin.close();
  }
});

async function creates(
  corral: Corral,
  run: Run,
  transport: string,
  authorization: string,
) {
  const call = (rpc: string, request: Record<string, unknown>) =>
    run(corral, rpc, request, { authorization });
  const ns = "team-a";
  const at = (name: string) => `${name}-${transport}`;
  const JS = "proto.RayJobService/CreateRayJob";
  const RS = "proto.RayServeService/CreateRayService";

  // Its cluster kept after it ends: the policy's max, as no default.
  const keeps = await call(JS, {
    namespace: ns,
    job: job(at("keeps"), { shutdownAfterJobFinishes: false }),
  });
  assert.equal(keeps.code, 0, keeps.message);
  assert.equal(hoursAhead(keeps.result), 2);
  const rayJob = await kube(corral, `${RAY}/${ns}/rayjobs/${at("keeps")}`);
  assert.match(
    rayJob.metadata.annotations["corral.dev/expires-at"],
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
  );
  // A job that ends by itself, deleting its cluster, still within the max.
  const ends = await call(JS, {
    namespace: ns,
    job: job(at("ends"), { shutdownAfterJobFinishes: true, ttl: "30m" }),
  });
  assert.equal(ends.code, 0, ends.message);
  assert.equal(hoursAhead(ends.result), 0.5);
  // One that never ends: it waits in a queue that does not exist.
  const waits = await call(JS, {
    namespace: ns,
    job: job(at("waits"), { shutdownAfterJobFinishes: true, queue: "none" }),
  });
  assert.equal(waits.code, 0, waits.message);
  assert.equal(hoursAhead(waits.result), 2);
  const long = await call(JS, {
    namespace: ns,
    job: job(at("long"), { ttl: "3h" }),
  });
  assert.equal(long.code, 3);
  assert.match(
    long.message,
    /^Cannot create job "team-a\/long-\w+": job\.ttl: the job would expire at .*, past the maximum lifetime of 2h/,
  );

  const web = await call(RS, {
    namespace: ns,
    service: sampleService(at("web"), { user: "alice" }),
  });
  assert.equal(web.code, 0, web.message);
  assert.equal(hoursAhead(web.result), 2);
  // An update keeps the expiry, and cannot move it. (Again while the
  // operator's status writes win the race: ABORTED.)
  const update = async (service: Record<string, unknown>) => {
    for (let attempt = 1;; attempt++) {
      const outcome = await call("proto.RayServeService/UpdateRayService", {
        namespace: ns,
        name: at("web"),
        service,
      });
      if (outcome.code !== 10 || attempt === 50) return outcome;
    }
  };
  const kept = await update(sampleService(at("web"), { user: "alice" }));
  assert.equal(kept.code, 0, kept.message);
  assert.equal(kept.result?.expiresAt, web.result?.expiresAt);
  for (const moved of [{ expiresAt: "2099-01-01T00:00:00Z" }, { ttl: "9h" }]) {
    const refused = await update(
      sampleService(at("web"), { user: "alice", ...moved }),
    );
    assert.equal(refused.code, 3, refused.message);
    assert.match(refused.message, /service\.(expiresAt|ttl): may not change/);
  }
  const plain = await call("proto.ClusterService/CreateCluster", {
    namespace: ns,
    cluster: sampleCluster({
      name: at("plain"),
      namespace: ns,
      user: "alice",
      version: "2.9.0",
      clusterSpec: OWN_CLUSTER,
    }),
  });
  assert.equal(plain.code, 0, plain.message);
  assert.equal(hoursAhead(plain.result), 2);
  // A job on an existing cluster holds none: that cluster's expiry bounds it.
  const selector = { "ray.io/cluster": at("plain") };
  const on = await call(JS, {
    namespace: ns,
    job: job(at("on"), { clusterSpec: undefined, clusterSelector: selector }),
  });
  assert.equal(on.code, 0, on.message);
  assert.equal(on.result?.expiresAt ?? null, null);
  const onTtl = await call(JS, {
    namespace: ns,
    job: job(at("on-ttl"), {
      clusterSpec: undefined,
      clusterSelector: selector,
      ttl: "1h",
    }),
  });
  assert.equal(onTtl.code, 3);
  assert.match(
    onTtl.message,
    /job\.ttl: must be empty for a job on an existing cluster/,
  );

  // team-b: the default, and its services exempt.
  const free = await call(RS, {
    namespace: "team-b",
    service: sampleService(at("free"), { user: "alice" }),
  });
  assert.equal(free.code, 0, free.message);
  assert.equal(free.result?.expiresAt ?? null, null);
  const bJob = await call(JS, {
    namespace: "team-b",
    job: job(at("b-job"), { shutdownAfterJobFinishes: false }),
  });
  assert.equal(bJob.code, 0, bJob.message);
  assert.equal(hoursAhead(bJob.result), 1);

  // The operator's clusters carry their owner's expiry; the job that kept
  // its cluster has ended, the one that did not keep it has none left.
  for (const owner of [at("keeps"), at("web")]) {
    await until(`${owner}'s cluster with its expiry`, async () => {
      const [cluster] = await clustersOf(corral, ns, owner);
      return cluster?.metadata.annotations?.["corral.dev/expires-at"] !==
        undefined;
    });
  }
  const get = (name: string) =>
    call("proto.RayJobService/GetRayJob", { namespace: ns, name });
  for (const name of [at("keeps"), at("ends")]) {
    await until(
      `${name} complete`,
      async () => (await get(name)).result?.jobDeploymentStatus === "Complete",
      20_000,
    );
  }
  // Its cluster expires with it: extending the cluster is refused.
  const [own] = await clustersOf(corral, ns, at("keeps"));
  const extend = await call("proto.ClusterService/ExtendCluster", {
    namespace: ns,
    name: own.metadata.name,
    by: "1h",
  });
  assert.equal(extend.code, 9, extend.message);
  assert.equal(
    extend.message,
    `Cannot update cluster "${ns}/${own.metadata.name}": the cluster is job "${
      at("keeps")
    }"'s, and expires with the job`,
  );
  await until(
    `${at("ends")}'s cluster deleted`,
    async () => (await clustersOf(corral, ns, at("ends"))).length === 0,
  );
  assert.equal((await clustersOf(corral, ns, at("keeps"))).length, 1);
}
