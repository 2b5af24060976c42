/**
 * A job's events and the cost of job reads, on both transports against the
 * stand-in with the real RayJob CRD and the cache: the core/v1 Events
 * about a RayJob (its kind, name and uid) are in GetRayJob, ListRayJobs
 * and ListAllRayJobs, those of a namesake or of a cluster are not; and
 * once the cache is in step, those reads make no Kubernetes call.
 */
import assert from "node:assert/strict";
import type { KubernetesCallRecord } from "../../domain/ports.ts";
import { type Corral, startCorral, TRANSPORTS } from "../harness.ts";
import { until } from "../eventually.ts";
import { kubeFetch } from "../standin/with_standin.ts";
import { RAY_CRD } from "../orchestrator/cluster_shapes.ts";

const RAYJOB_CRD = new URL("../testdata/ray.io_rayjobs.yaml", import.meta.url)
  .pathname;
const NS = "ml";

const OWN_CLUSTER = {
  headGroupSpec: { computeTemplate: "", image: "", engineStartParams: {} },
  workerGroupSpec: [{ groupName: "cpu", replicas: 1, engineStartParams: {} }],
};

interface Event {
  reason: string;
  message: string;
}

/** Writes an Event about `involvedObject` straight into the stand-in. */
async function recordEvent(
  corral: Corral,
  name: string,
  involvedObject: Record<string, string>,
  reason: string,
  lastTimestamp: string,
): Promise<void> {
  const response = await kubeFetch(
    corral.kubeUrl,
    "POST",
    `/api/v1/namespaces/${NS}/events`,
    {
      metadata: { name },
      involvedObject: { namespace: NS, ...involvedObject },
      reason,
      message: `${reason} of ${involvedObject.name}`,
      type: "Normal",
      lastTimestamp,
    },
  );
  assert.equal(response.status, 201, await response.text());
}

for (const [transport, via] of TRANSPORTS) {
  Deno.test(`Jobs (${transport}): a job's events are read back with it, from the cache, and job reads make 0 Kubernetes calls`, async () => {
    const calls: KubernetesCallRecord[] = [];
    const corral = await startCorral({
      crds: [RAY_CRD, RAYJOB_CRD],
      cache: {},
      onKubernetesCall: (record) => calls.push(record),
    });
    const jobs = (method: string, request: Record<string, unknown>) =>
      via(corral, `proto.RayJobService/${method}`, request);
    try {
      const created = await jobs("CreateRayJob", {
        namespace: NS,
        job: {
          name: "train",
          user: "ada",
          version: "2.9.0",
          entrypoint: "python train.py",
          clusterSpec: OWN_CLUSTER,
        },
      });
      assert.equal(created.code, 0, created.message);
      assert.deepEqual(created.result!.events, []);
      const stored = await kubeFetch(
        corral.kubeUrl,
        "GET",
        `/apis/ray.io/v1/namespaces/${NS}/rayjobs/train`,
      );
      const uid = (await stored.json()).metadata.uid as string;

      const job = { kind: "RayJob", name: "train", uid };
      // Out of order on purpose: read back oldest first.
      await recordEvent(
        corral,
        "train.2",
        job,
        "Completed",
        "2026-01-01T00:02:00Z",
      );
      await recordEvent(
        corral,
        "train.1",
        job,
        "Created",
        "2026-01-01T00:01:00Z",
      );
      await recordEvent(
        corral,
        "train.namesake",
        { ...job, uid: "another-uid" },
        "Namesake",
        "2026-01-01T00:00:00Z",
      );
      await recordEvent(
        corral,
        "train.cluster",
        { kind: "RayCluster", name: "train" },
        "Cluster",
        "2026-01-01T00:00:00Z",
      );
      const orchestrator = corral.orchestrator!;
      await until(
        "the job's events in the cache",
        async () => (await orchestrator.jobs.events(NS, "train")).length >= 3,
      );

      calls.length = 0;
      const got = await jobs("GetRayJob", { namespace: NS, name: "train" });
      assert.equal(got.code, 0, got.message);
      const reasons = (events: unknown) =>
        (events as Event[]).map((event) => event.reason);
      assert.deepEqual(reasons(got.result!.events), ["Created", "Completed"]);
      const [first] = got.result!.events as Event[];
      assert.equal(first.message, "Created of train");

      const listed = await jobs("ListRayJobs", { namespace: NS });
      assert.equal(listed.code, 0, listed.message);
      const all = await jobs("ListAllRayJobs", {});
      assert.equal(all.code, 0, all.message);
      for (const answer of [listed, all]) {
        const [only] = answer.result!.jobs as { events: unknown }[];
        assert.deepEqual(reasons(only.events), ["Created", "Completed"]);
      }
      assert.deepEqual(calls, [], "job reads from the cache call nobody");
    } finally {
      await corral.close();
    }
  });
}
