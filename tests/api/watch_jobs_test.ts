/**
 * WatchRayJobs on gRPC, NDJSON and Server-Sent Events, served from the
 * cache against the stand-in with the real RayJob CRD: the jobs as they
 * are then a BOOKMARK, a status, an Event and a deletion written in
 * Kubernetes, a resume from a BOOKMARK, another namespace's jobs unseen,
 * code 7 without the right to watch jobs, resume points refused as a
 * cluster watch refuses them, and the stream's lifetime: ended with code 7
 * when the policy takes the right away, and cleanly after a BOOKMARK at
 * --watch-max-duration.
 */
import assert from "node:assert/strict";
import { createAccess } from "../../api/auth/access.ts";
import { silentLogger } from "../../api/log.ts";
import type { Message } from "../../domain/message_form.ts";
import { Code } from "../../domain/errors.ts";
import { type Corral, startCorral, viaHttp } from "../harness.ts";
import { until } from "../eventually.ts";
import { RAY_CRD } from "../orchestrator/cluster_shapes.ts";
import { kubeFetch } from "../standin/with_standin.ts";
import {
  ALICE,
  bearer,
  CAROL,
  fileAccess,
  type Person,
  ROOT,
  RULES,
  writeAccessFiles,
} from "./auth/access_fixtures.ts";
import {
  type OpenWatch,
  WATCH_TRANSPORTS,
  type WatchRequest,
  within,
} from "./stream_watchers.ts";
import { policyText } from "./auth/policy_fixtures.ts";

const RAYJOB_CRD = new URL("../testdata/ray.io_rayjobs.yaml", import.meta.url)
  .pathname;
const NS = "team-a";
const RAYJOBS = `/apis/ray.io/v1/namespaces/${NS}/rayjobs`;

const OWN_CLUSTER = {
  headGroupSpec: { computeTemplate: "", image: "", engineStartParams: {} },
  workerGroupSpec: [{ groupName: "cpu", replicas: 1, engineStartParams: {} }],
};

type Json = Record<string, unknown>;

/** An answer as the tests compare it: its type, job and status. */
function summary(answer: Message): string {
  const job = answer.job as Json | undefined | null;
  if (!job) return String(answer.type);
  const status = job.jobStatus ? ` ${job.jobStatus}` : "";
  const events = (job.events as Json[] | undefined ?? []).map((e) => e.reason);
  return `${answer.type} ${job.namespace}/${job.name}${status}${
    events.length > 0 ? ` [${events.join(",")}]` : ""
  }`;
}

async function withCorral(
  run: (corral: Corral) => Promise<void>,
  options: Parameters<typeof startCorral>[0] = {},
): Promise<void> {
  const access = await fileAccess();
  const corral = await startCorral({
    crds: [RAY_CRD, RAYJOB_CRD],
    cache: {},
    access: access.access,
    ...options,
  });
  try {
    await run(corral);
  } finally {
    await corral.close();
    await access.close();
  }
}

async function createJob(
  corral: Corral,
  name: string,
  namespace = NS,
  who: Person = ROOT,
): Promise<void> {
  const outcome = await viaHttp(corral, "proto.RayJobService/CreateRayJob", {
    namespace,
    job: {
      name,
      version: "2.9.0",
      entrypoint: "python train.py",
      clusterSpec: OWN_CLUSTER,
    },
  }, { authorization: bearer(who) });
  assert.equal(outcome.code, 0, outcome.message);
}

/** Writes in the stand-in as the operator or kubectl would. */
async function kube(
  corral: Corral,
  method: string,
  path: string,
  body?: unknown,
): Promise<void> {
  const response = await kubeFetch(corral.kubeUrl, method, path, body);
  assert.ok(response.status < 300, await response.text());
}

/** Opens a watch of jobs and waits until `wanted` answers came. */
async function watchJobs(
  corral: Corral,
  open: (typeof WATCH_TRANSPORTS)[number][1],
  request: WatchRequest,
  who: Person = ROOT,
): Promise<OpenWatch> {
  return await open(corral, { ...request, resource: "jobs" }, bearer(who));
}

/** Waits until the watch's answers, BOOKMARKs left out, include `wanted`. */
async function seen(watch: OpenWatch, wanted: string): Promise<void> {
  await until(
    `"${wanted}" in ${JSON.stringify(changes(watch))}`,
    () => changes(watch).includes(wanted),
  );
}

function changes(watch: OpenWatch): string[] {
  return watch.answers.filter((a) => a.type !== "BOOKMARK").map(summary);
}

for (const [transport, open] of WATCH_TRANSPORTS) {
  Deno.test(`WatchRayJobs (${transport}): the jobs as they are and a BOOKMARK, then a status, an Event and a deletion written in Kubernetes`, async () => {
    await withCorral(async (corral) => {
      await createJob(corral, "train");
      const watch = await watchJobs(corral, open, { namespace: NS });
      try {
        await until(
          "the BOOKMARK after the state",
          () => watch.answers.some((a) => a.type === "BOOKMARK"),
        );
        assert.deepEqual(watch.answers.slice(0, 2).map(summary), [
          `ADDED ${NS}/train`,
          "BOOKMARK",
        ]);
        assert.equal(watch.answers[0].resourceVersion, "");
        assert.match(String(watch.answers[1].resourceVersion), /^\d+$/);
        await kube(corral, "PATCH", `${RAYJOBS}/train/status`, {
          status: { jobStatus: "RUNNING", jobDeploymentStatus: "Running" },
        });
        await seen(watch, `MODIFIED ${NS}/train RUNNING`);
        await kube(corral, "POST", `/api/v1/namespaces/${NS}/events`, {
          metadata: { name: "train.1" },
          involvedObject: { kind: "RayJob", namespace: NS, name: "train" },
          reason: "Submitted",
          message: "Submitted the entrypoint",
          type: "Normal",
          lastTimestamp: new Date().toISOString(),
        });
        await seen(watch, `MODIFIED ${NS}/train RUNNING [Submitted]`);
        await kube(corral, "DELETE", `${RAYJOBS}/train`);
        await seen(watch, `DELETED ${NS}/train RUNNING [Submitted]`);
        // Versions never go down along a stream.
        const versions = watch.answers.map((a) => a.resourceVersion)
          .filter((v) => v !== "").map((v) => BigInt(String(v)));
        assert.deepEqual(versions, versions.toSorted((a, b) => a < b ? -1 : 1));
      } finally {
        watch.close();
      }
    });
  });

  Deno.test(`WatchRayJobs (${transport}): resumed from a BOOKMARK, only what changed after it comes`, async () => {
    await withCorral(async (corral) => {
      await createJob(corral, "first");
      const watch = await watchJobs(corral, open, { namespace: NS });
      await until(
        "the BOOKMARK",
        () => watch.answers.some((a) => a.type === "BOOKMARK"),
      );
      const bookmark = watch.answers.find((a) => a.type === "BOOKMARK")!;
      watch.close();
      await createJob(corral, "second");
      const resumed = await watchJobs(corral, open, {
        namespace: NS,
        resourceVersion: String(bookmark.resourceVersion),
      });
      try {
        await seen(resumed, `ADDED ${NS}/second`);
        assert.ok(
          !changes(resumed).some((c) => c.includes("/first")),
          `resumed with ${JSON.stringify(changes(resumed))}`,
        );
        assert.notEqual(resumed.answers[0].resourceVersion, "");
      } finally {
        resumed.close();
      }
    });
  });

  Deno.test(`WatchRayJobs (${transport}): a watch of every namespace sees only the caller's; another namespace, or no right to watch, is code 7`, async () => {
    await withCorral(async (corral) => {
      // Alice may do everything in team-a only.
      const watch = await watchJobs(corral, open, {}, ALICE);
      try {
        await until(
          "the BOOKMARK",
          () => watch.answers.some((a) => a.type === "BOOKMARK"),
        );
        await createJob(corral, "theirs", "team-b");
        await createJob(corral, "hers", NS, ALICE);
        await seen(watch, `ADDED ${NS}/hers`);
        assert.deepEqual(changes(watch), [`ADDED ${NS}/hers`]);
      } finally {
        watch.close();
      }
      const other = await watchJobs(
        corral,
        open,
        { namespace: "team-b" },
        ALICE,
      );
      const refused = await within(5_000, "the refusal", other.ended);
      assert.equal(refused.code, Code.PERMISSION_DENIED, refused.message);
      // Carol may get and list jobs in team-a, not watch them.
      const carol = await watchJobs(corral, open, { namespace: NS }, CAROL);
      const denied = await within(5_000, "the refusal", carol.ended);
      assert.equal(denied.code, Code.PERMISSION_DENIED, denied.message);
      assert.match(denied.message, /watch/);
      assert.deepEqual(carol.answers, []);
    });
  });
}

Deno.test("WatchRayJobs: a resume point of another epoch or too old is code 10, one that is none code 3 naming the field, alike on every transport", async () => {
  await withCorral(async (corral) => {
    await createJob(corral, "first");
    const watch = await watchJobs(corral, WATCH_TRANSPORTS[0][1], {});
    await until(
      "the BOOKMARK",
      () => watch.answers.some((a) => a.type === "BOOKMARK"),
    );
    watch.close();
    const { resourceVersion } = watch.answers.at(-1)!;
    // Two changes more than the history of one holds: the BOOKMARK's
    // point is too old now.
    await createJob(corral, "second");
    await createJob(corral, "third");
    const cases: [string, number, RegExp][] = [
      [`${resourceVersion}.3`, Code.ABORTED, /started again/],
      [String(resourceVersion), Code.ABORTED, /too old/],
      ["yesterday", Code.INVALID_ARGUMENT, /resource_version.*WatchRayJobs/],
    ];
    for (const [resourceVersion, code, message] of cases) {
      const endings = [];
      for (const [, open] of WATCH_TRANSPORTS) {
        const watch = await watchJobs(corral, open, {
          namespace: NS,
          resourceVersion,
        });
        endings.push(await within(5_000, "the refusal", watch.ended));
      }
      for (const ending of endings) {
        assert.equal(
          ending.code,
          code,
          `${resourceVersion}: ${ending.message}`,
        );
        assert.match(ending.message, message);
      }
      assert.equal(new Set(endings.map((e) => e.message)).size, 1);
    }
  }, { watch: { historySize: 1 } });
});

Deno.test("WatchRayJobs: open watches end with code 7 on every transport when the policy takes the right away, and after a BOOKMARK at --watch-max-duration", async () => {
  const files = await writeAccessFiles();
  // The files read every 50 ms, as the revocation tests read them.
  const access = await createAccess({
    tokenAuthFile: files.tokenFile,
    tokenReview: false,
    anonymous: false,
    policyFile: files.policyFile,
    auditLogPath: files.auditLog,
    metricsRequireAuth: false,
  }, { log: silentLogger(), reloadIntervalMs: 50 });
  const corral = await startCorral({
    crds: [RAY_CRD, RAYJOB_CRD],
    cache: {},
    access,
    // Long enough that the revocation below comes first (a watch lasts
    // between half of it and all of it).
    streamMaxDurationMs: 4_000,
  });
  try {
    // Cut at the maximum duration: a clean end right after a BOOKMARK.
    const lasting = await Promise.all(
      WATCH_TRANSPORTS.map(([, open]) =>
        watchJobs(corral, open, { namespace: NS }, ALICE)
      ),
    );
    for (const [i, [transport]] of WATCH_TRANSPORTS.entries()) {
      const watch = lasting[i];
      const ending = await within(6_000, `${transport}'s end`, watch.ended);
      assert.deepEqual(ending, { code: 0, message: "" }, transport);
      assert.equal(watch.answers.at(-1)!.type, "BOOKMARK", transport);
    }
    const watches = await Promise.all(
      WATCH_TRANSPORTS.map(([, open]) =>
        watchJobs(corral, open, { namespace: NS }, ALICE)
      ),
    );
    await until(
      "every job watch open",
      () => corral.jobWatches!.watchers === watches.length,
    );
    await Deno.writeTextFile(
      files.policyFile,
      policyText(
        RULES.map((rule) =>
          rule.users?.includes("alice") ? { ...rule, users: ["x"] } : rule
        ),
      ),
    );
    for (const watch of watches) {
      const ending = await within(2_000, "the revocation", watch.ended);
      assert.deepEqual(ending, {
        code: Code.PERMISSION_DENIED,
        message:
          'Cannot watch jobs in namespace "team-a": user "alice" may not watch jobs in namespace "team-a"',
      });
    }
    await until(
      "every job watch let go",
      () => corral.jobWatches!.watchers === 0,
    );
  } finally {
    await corral.close();
    await access.close();
    await files.remove();
  }
});
