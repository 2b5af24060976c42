/**
 * GetRayJobLog and WatchRayJobLog on both transports, against the
 * simulated operator's RayJob submitter in the Kubernetes stand-in: the
 * same answers and errors on each, `owners: only` keeping the log to the
 * job's owner, the log still read once the job's cluster is deleted and
 * gone with the job, and jobId filled.
 */
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import {
  type SimulatedOperator,
  startSimulatedOperator,
} from "../../standin/simulated_operator.ts";
import { type Corral, startCorral, TRANSPORTS } from "../harness.ts";
import { eventually } from "../eventually.ts";
import {
  bearer,
  fileAccess,
  type Person,
  person,
  type TestAccess,
  tokenFileText,
} from "./auth/access_fixtures.ts";
import { allow, groups, policyText } from "./auth/policy_fixtures.ts";

const NS = "team-a";
const JS = "proto.RayJobService";
const JO = person("jo", "jo", ["team-a"]);
const RITA = person("rita", "rita", ["team-a"]);

const POLICY = policyText([
  allow(groups("team-a"), ["team-a"], ["jobs"], ["*"], { owners: "only" }),
]);

const SPEC = {
  headGroupSpec: { computeTemplate: "", image: "", engineStartParams: {} },
  workerGroupSpec: [{ groupName: "cpu", replicas: 1, engineStartParams: {} }],
};

interface World {
  corral: Corral;
  access: TestAccess;
  /** Starts the simulated operator (once); the jobs run from then on. */
  startOperator(): void;
}

async function withWorld(fn: (world: World) => Promise<void>): Promise<void> {
  const access = await fileAccess({
    tokens: tokenFileText([JO, RITA]),
    policy: POLICY,
  });
  const corral = await startCorral({ access: access.access });
  let operator: SimulatedOperator | undefined;
  try {
    await fn({
      corral,
      access,
      startOperator() {
        operator ??= startSimulatedOperator({
          server: corral.kubeUrl,
          delayMs: 20,
        });
      },
    });
  } finally {
    await operator?.stop();
    await corral.close();
    await access.close();
  }
}

type Via = typeof TRANSPORTS[number][1];

function caller(corral: Corral, via: Via) {
  return (method: string, request: Record<string, unknown>, who?: Person) =>
    via(
      corral,
      `${JS}/${method}`,
      request,
      who ? { authorization: bearer(who) } : {},
    );
}

async function createJob(
  call: ReturnType<typeof caller>,
  name: string,
  entrypoint = "python main.py",
): Promise<void> {
  const created = await call("CreateRayJob", {
    namespace: NS,
    job: {
      name,
      version: "2.9.0",
      entrypoint,
      shutdownAfterJobFinishes: false,
      clusterSpec: SPEC,
    },
  }, JO);
  assert.equal(created.code, 0, created.message);
}

async function ended(
  call: ReturnType<typeof caller>,
  name: string,
): Promise<Record<string, unknown>> {
  return await eventually(`job ${name} to end`, async () => {
    const job = await call("GetRayJob", { namespace: NS, name }, JO);
    const status = job.result?.jobDeploymentStatus;
    return status === "Complete" || status === "Failed"
      ? job.result
      : undefined;
  });
}

/** What WatchRayJobLog sent, joined, and the call's code. */
async function followed(
  corral: Corral,
  transport: string,
  name: string,
  who?: Person,
): Promise<{ log: string; parts: number; code: number }> {
  const parts: string[] = [];
  let code = 0;
  if (transport === "grpc") {
    const metadata = new grpc.Metadata();
    if (who) metadata.set("authorization", bearer(who));
    const stream = corral.grpc.stream(
      `${JS}/WatchRayJobLog`,
      { namespace: NS, name },
      metadata,
    );
    try {
      for await (const answer of stream.messages) {
        parts.push(String(answer.log ?? ""));
      }
    } catch {
      // The status says why.
    }
    code = (await stream.status).code;
  } else {
    const response = await corral.gateway(
      new Request(
        `http://corral.test/apis/v1alpha2/watch/namespaces/${NS}/jobs/${name}/log`,
        { headers: who ? { authorization: bearer(who) } : {} },
      ),
    );
    const text = await response.text();
    if (response.status !== 200) code = JSON.parse(text).code;
    else {
      for (const line of text.split("\n").filter(Boolean)) {
        const frame = JSON.parse(line);
        if (frame.error) code = frame.error.code;
        else parts.push(String(frame.result.log ?? ""));
      }
    }
  }
  return { log: parts.join(""), parts: parts.length, code };
}

for (const [transport, via] of TRANSPORTS) {
  Deno.test(`GetRayJobLog (${transport}): a job's log is its submitter's, once it has ended and after its cluster is deleted, and goes with the job`, async () => {
    await withWorld(async ({ corral, startOperator }) => {
      const call = caller(corral, via);
      await createJob(call, "etl");
      const early = await call(
        "GetRayJobLog",
        { namespace: NS, name: "etl" },
        JO,
      );
      assert.equal(early.code, 9, early.message);
      assert.equal(
        early.message,
        'Cannot read the log of job "team-a/etl": its submitter has not started yet',
      );
      startOperator();
      const job = await ended(call, "etl");
      assert.match(String(job.jobId), /^etl-[a-z0-9]{5}$/);
      const read = await call(
        "GetRayJobLog",
        { namespace: NS, name: "etl" },
        JO,
      );
      assert.equal(read.code, 0, read.message);
      const log = String(read.result!.log);
      assert.match(log, /^Job submission server address: http:\/\//);
      assert.match(log, /Running entrypoint: python main\.py\n/);
      assert.ok(log.endsWith(`Job '${job.jobId}' succeeded\n`), log);

      const tail = await call(
        "GetRayJobLog",
        { namespace: NS, name: "etl", tailLines: 1 },
        JO,
      );
      assert.equal(tail.result!.log, `Job '${job.jobId}' succeeded\n`);

      const cluster =
        `${corral.kubeUrl}/apis/ray.io/v1/namespaces/${NS}/rayclusters/${job.rayClusterName}`;
      const deleted = await fetch(cluster, { method: "DELETE" });
      await deleted.body?.cancel();
      assert.equal(deleted.status, 200);
      await eventually("the cluster to go", async () => {
        const answer = await fetch(cluster);
        await answer.body?.cancel();
        return answer.status === 404 ? true : undefined;
      });
      const after = await call(
        "GetRayJobLog",
        { namespace: NS, name: "etl" },
        JO,
      );
      assert.equal(after.code, 0, after.message);
      assert.equal(after.result!.log, log);

      const removed = await call(
        "DeleteRayJob",
        { namespace: NS, name: "etl" },
        JO,
      );
      assert.equal(removed.code, 0, removed.message);
      // The job goes a moment after its submitter (the operator's
      // finalizer): its log is first not there, then the job is not.
      const gone = await eventually("the job and its log to go", async () => {
        const answer = await call(
          "GetRayJobLog",
          { namespace: NS, name: "etl" },
          JO,
        );
        assert.ok([0, 5, 9].includes(answer.code), answer.message);
        return answer.code === 5 ? answer : undefined;
      });
      assert.equal(gone.message, 'Cannot get job "team-a/etl": not found');
    });
  });

  Deno.test(`GetRayJobLog (${transport}): owners: only keeps a job's log to its owner; no credentials, no log; tail_lines is checked`, async () => {
    await withWorld(async ({ corral, startOperator }) => {
      const call = caller(corral, via);
      startOperator();
      await createJob(call, "mine");
      await ended(call, "mine");
      const request = { namespace: NS, name: "mine" };
      const teammate = await call("GetRayJob", request, RITA);
      assert.equal(teammate.code, 0, "a teammate reads the job itself");
      const refused = await call("GetRayJobLog", request, RITA);
      assert.equal(refused.code, 7, refused.message);
      assert.equal(
        refused.message,
        'Cannot get job "team-a/mine": user "rita" may not read the log of a job of "jo": only its owner or a caller granted "admin" may',
      );
      const anonymous = await call("GetRayJobLog", request);
      assert.equal(anonymous.code, 16, anonymous.message);
      const negative = await call(
        "GetRayJobLog",
        { ...request, tailLines: -1 },
        JO,
      );
      assert.equal(negative.code, 3, negative.message);
      assert.match(negative.message, /tail_lines: must not be negative/);
      const missing = await call(
        "GetRayJobLog",
        { namespace: NS, name: "none" },
        JO,
      );
      assert.equal(missing.code, 5, missing.message);
    });
  });

  Deno.test(`WatchRayJobLog (${transport}): follows a running job's log to its end, with the same refusals`, async () => {
    await withWorld(async ({ corral, startOperator }) => {
      const call = caller(corral, via);
      await createJob(call, "live", "python live.py; exit 2");
      const early = await followed(corral, transport, "live", JO);
      assert.equal(early.code, 9);
      startOperator();
      await eventually("the submitter to start", async () => {
        const answer = await call(
          "GetRayJobLog",
          { namespace: NS, name: "live" },
          JO,
        );
        return answer.code === 0 ? true : undefined;
      });
      const live = await followed(corral, transport, "live", JO);
      assert.equal(live.code, 0);
      const job = await ended(call, "live");
      assert.equal(job.jobStatus, "FAILED");
      assert.match(live.log, /Exited with code 2\nJob '.*' failed\n$/);
      const whole = await call(
        "GetRayJobLog",
        { namespace: NS, name: "live" },
        JO,
      );
      assert.equal(live.log, whole.result!.log);
      assert.equal((await followed(corral, transport, "live", RITA)).code, 7);
      assert.equal((await followed(corral, transport, "live")).code, 16);
    });
  });
}
