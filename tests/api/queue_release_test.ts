/**
 * A queued workload leaves its queue only when Kueue admits it, on both
 * transports: UpdateRayJob that would clear a waiting job's suspend (a
 * queue that does not exist included, which Kueue never admits from) is
 * FAILED_PRECONDITION naming the queue, and the RayJob stays suspended;
 * suspending a queued job, and suspend and resume of a job that is not
 * queued, work as before. A queued cluster's update can neither unsuspend
 * it nor take it out of its queue.
 */
import assert from "node:assert/strict";
import { type Corral, startCorral, TRANSPORTS } from "../harness.ts";
import { sampleCluster } from "./cases.ts";

const NS = "team-a";
const JS = "proto.RayJobService";
const CS = "proto.ClusterService";
const QUEUE_LABEL = "kueue.x-k8s.io/queue-name";

const OWN_CLUSTER = {
  headGroupSpec: {},
  workerGroupSpec: [{ groupName: "cpu", replicas: 1 }],
};

function job(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    user: "ada",
    version: "2.9.0",
    entrypoint: "python train.py",
    shutdownAfterJobFinishes: true,
    clusterSpec: OWN_CLUSTER,
    ...extra,
  };
}

function url(corral: Corral, plural: string, name: string): string {
  return `${corral.kubeUrl}/apis/ray.io/v1/namespaces/${NS}/${plural}/${name}`;
}

/** The object as the stand-in holds it. */
async function stored(
  corral: Corral,
  plural: string,
  name: string,
  // deno-lint-ignore no-explicit-any -- the stored object, as JSON
): Promise<any> {
  const response = await fetch(url(corral, plural, name));
  assert.equal(response.status, 200, `${plural}/${name} exists`);
  return await response.json();
}

/** What Kueue does on admitting a workload: spec.suspend false. */
async function admit(corral: Corral, plural: string, name: string) {
  const response = await fetch(url(corral, plural, name), {
    method: "PATCH",
    headers: { "content-type": "application/merge-patch+json" },
    body: JSON.stringify({ spec: { suspend: false } }),
  });
  assert.equal(response.status, 200, await response.text());
}

Deno.test("a queued job leaves its queue only by Kueue: UpdateRayJob that would resume it is code 9 naming the queue, on both transports", async (t) => {
  const corral = await startCorral();
  try {
    for (const [transport, run] of TRANSPORTS) {
      await t.step(transport, async () => {
        const call = (rpc: string, request: Record<string, unknown>) =>
          run(corral, `${JS}/${rpc}`, request);
        const name = `waits-${transport}`;
        const created = await call("CreateRayJob", {
          namespace: NS,
          job: job(name, { queue: "nowhere" }),
        });
        assert.equal(created.code, 0, created.message);
        assert.equal(created.result?.suspend, true);

        // suspend: false, and an update that leaves suspend out (proto3's
        // false), and the job read back with suspend false.
        for (
          const update of [
            { suspend: false },
            {},
            { ...created.result, suspend: false },
          ]
        ) {
          const refused = await call("UpdateRayJob", {
            namespace: NS,
            name,
            job: update,
          });
          assert.equal(refused.code, 9, JSON.stringify(refused));
          assert.equal(
            refused.message,
            `Cannot update job "${NS}/${name}": job.suspend: the job waits in queue "nowhere": only Kueue resumes it, when the queue admits it`,
          );
        }
        assert.equal(
          (await stored(corral, "rayjobs", name)).spec.suspend,
          true,
        );

        // Suspending it while it waits changes nothing, and is no error.
        const still = await call("UpdateRayJob", {
          namespace: NS,
          name,
          job: { suspend: true },
        });
        assert.equal(still.code, 0, still.message);
        assert.equal(still.result?.suspend, true);

        // Once Kueue admitted it, it may be suspended, as before; then it
        // waits again, and only Kueue resumes it.
        await admit(corral, "rayjobs", name);
        const suspended = await call("UpdateRayJob", {
          namespace: NS,
          name,
          job: { suspend: true },
        });
        assert.equal(suspended.code, 0, suspended.message);
        assert.equal(
          (await stored(corral, "rayjobs", name)).spec.suspend,
          true,
        );
        const resumed = await call("UpdateRayJob", {
          namespace: NS,
          name,
          job: { suspend: false },
        });
        assert.equal(resumed.code, 9, resumed.message);
        assert.match(resumed.message, /waits in queue "nowhere"/);
      });
    }
  } finally {
    await corral.close();
  }
});

Deno.test("a job that is not queued is suspended and resumed by UpdateRayJob as before, on both transports", async (t) => {
  const corral = await startCorral();
  try {
    for (const [transport, run] of TRANSPORTS) {
      await t.step(transport, async () => {
        const call = (rpc: string, request: Record<string, unknown>) =>
          run(corral, `${JS}/${rpc}`, request);
        const name = `plain-${transport}`;
        const created = await call("CreateRayJob", {
          namespace: NS,
          job: job(name),
        });
        assert.equal(created.code, 0, created.message);
        for (const suspend of [true, false, true, false]) {
          const updated = await call("UpdateRayJob", {
            namespace: NS,
            name,
            job: { suspend },
          });
          assert.equal(updated.code, 0, updated.message);
          assert.equal(updated.result?.suspend ?? false, suspend);
          assert.equal(
            (await stored(corral, "rayjobs", name)).spec.suspend ?? false,
            suspend,
          );
        }
      });
    }
  } finally {
    await corral.close();
  }
});

Deno.test("a queued cluster's update neither unsuspends it nor takes it out of its queue, on both transports", async (t) => {
  const corral = await startCorral();
  try {
    for (const [transport, run] of TRANSPORTS) {
      await t.step(transport, async () => {
        const call = (rpc: string, request: Record<string, unknown>) =>
          run(corral, `${CS}/${rpc}`, request);
        const name = `held-${transport}`;
        const created = await call("CreateCluster", {
          namespace: NS,
          cluster: sampleCluster({
            name,
            user: "ada",
            version: "2.9.0",
            clusterSpec: OWN_CLUSTER,
            queue: "nowhere",
          }),
        });
        assert.equal(created.code, 0, created.message);
        const named = await call("UpdateCluster", {
          namespace: NS,
          name,
          cluster: { queue: "" },
          updateMask: "queue",
        });
        assert.equal(named.code, 3, named.message);
        assert.match(named.message, /path "queue" cannot be updated/);
        // The queue given besides what may change is not written.
        for (const queue of ["", "elsewhere"]) {
          const scaled = await call("UpdateCluster", {
            namespace: NS,
            name,
            cluster: {
              queue,
              clusterSpec: {
                workerGroupSpec: [{ groupName: "cpu", replicas: 2 }],
              },
            },
          });
          assert.equal(scaled.code, 0, scaled.message);
          assert.equal(scaled.result?.queue, "nowhere");
          const rayCluster = await stored(corral, "rayclusters", name);
          assert.equal(rayCluster.metadata.labels[QUEUE_LABEL], "nowhere");
          assert.equal(rayCluster.spec.suspend, true);
        }
      });
    }
  } finally {
    await corral.close();
  }
});
