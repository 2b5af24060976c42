/**
 * RayJobSubmissionService on both transports against the simulated Ray
 * dashboard of dev mode (standin/dashboard/), in process on a loopback
 * port that direct cluster access leads every head service to; the
 * clusters in the Kubernetes stand-in; real token and policy files.
 */
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import type { Message } from "../../domain/message_form.ts";
import { directAccess } from "../../orchestrator/cluster_access.ts";
import { DashboardJobs } from "../../orchestrator/dashboard_jobs.ts";
import { SimulatedDashboard } from "../../standin/dashboard/server.ts";
import { type Corral, startCorral, TRANSPORTS } from "../harness.ts";
import { until } from "../eventually.ts";
import { zipOf } from "../standin/zip_fixture.ts";
import {
  ALICE,
  auditLines,
  bearer,
  CAROL,
  DAVE,
  fileAccess,
  type Person,
  type TestAccess,
} from "./auth/access_fixtures.ts";
import { encode, map } from "./field_numbers.ts";
import { within } from "./stream_watchers.ts";
import { managedCluster } from "../standin/with_standin.ts";
import {
  allowAll,
  dashboardAccess,
  policyText,
  users,
} from "./auth/policy_fixtures.ts";

const JS = "proto.RayJobSubmissionService";

/**
 * alice may get and proxy clusters in team-a; carol may do "*" in team-a,
 * which does not include proxy; dave has no rule.
 */
const POLICY = policyText([
  dashboardAccess(users("alice"), ["team-a"]),
  allowAll(users("carol"), ["team-a"]),
]);

interface World {
  corral: Corral;
  dashboard: SimulatedDashboard;
  /** The token, policy and audit files, when the world has them. */
  access?: TestAccess;
}

/**
 * A Corral whose job submissions reach `dashboard`, with the ready cluster
 * team-a/blue and team-a/green that is not ready yet; with the files'
 * access when `files`, else open to everyone.
 */
async function withWorld(
  files: boolean,
  run: (world: World) => Promise<void>,
): Promise<void> {
  const dashboard = new SimulatedDashboard({
    cluster: "team-a/blue",
    stepMs: 100,
  });
  let access: TestAccess | undefined;
  let corral: Corral | undefined;
  try {
    access = files ? await fileAccess({ policy: POLICY }) : undefined;
    const base = `http://127.0.0.1:${dashboard.port}`;
    corral = await startCorral({
      ...(access ? { access: access.access } : {}),
      jobSubmissions: {
        jobs: new DashboardJobs({
          access: directAccess({ baseUrlOf: () => base }),
          timeoutMs: 5000,
          maxResponseBytes: 1 << 20,
        }),
        logPollMs: 20,
      },
    });
    await managedCluster(corral.kubeUrl, "blue", { state: "ready" });
    await managedCluster(corral.kubeUrl, "green", { state: "pending" });
    await run({ corral, dashboard, access });
  } finally {
    await corral?.close();
    await access?.close();
    await dashboard.close();
  }
}

const KEY = { namespace: "team-a", clustername: "blue" };

/** What WatchJobLog sent, joined, and the last status, on one transport. */
async function followedLog(
  corral: Corral,
  transport: string,
  submissionid: string,
  authorization?: string,
): Promise<{ log: string; statuses: string[]; code: number }> {
  const answers: Message[] = [];
  let code = 0;
  if (transport === "grpc") {
    const metadata = new grpc.Metadata();
    if (authorization) metadata.set("authorization", authorization);
    const stream = corral.grpc.stream(
      `${JS}/WatchJobLog`,
      { ...KEY, submissionid },
      metadata,
    );
    try {
      for await (const answer of stream.messages) answers.push(answer);
    } catch {
      // The status says why.
    }
    code = (await stream.status).code;
  } else {
    const response = await corral.gateway(
      new Request(
        `http://corral.test/apis/v1alpha2/watch/namespaces/team-a/jobsubmissions/blue/log/${submissionid}`,
        { headers: authorization ? { authorization } : {} },
      ),
    );
    const text = await response.text();
    if (response.status !== 200) {
      code = JSON.parse(text).code;
    } else {
      for (const line of text.split("\n").filter(Boolean)) {
        const frame = JSON.parse(line);
        if (frame.error) code = frame.error.code;
        else answers.push(frame.result);
      }
    }
  }
  return {
    log: answers.map((a) => String(a.log ?? "")).join(""),
    statuses: answers.map((a) => String(a.status ?? "")),
    code,
  };
}

for (const [transport, via] of TRANSPORTS) {
  Deno.test(`job submission (${transport}): submit, get, list, follow the logs to the end, delete`, async () => {
    await withWorld(false, async ({ corral }) => {
      const submitted = await via(corral, `${JS}/SubmitRayJob`, {
        ...KEY,
        jobsubmission: {
          entrypoint: "python -c 'print(1)'",
          metadata: { team: "a" },
          runtimeEnv: "env_vars:\n  A: b\n",
        },
      });
      assert.equal(submitted.code, 0, submitted.message);
      const id = String(submitted.result!.submissionId);
      assert.match(id, /^raysubmit_/);

      const got = await via(corral, `${JS}/GetJobDetails`, {
        ...KEY,
        submissionid: id,
      });
      assert.equal(got.code, 0, got.message);
      assert.equal(got.result!.entrypoint, "python -c 'print(1)'");
      assert.deepEqual(got.result!.metadata, { team: "a" });
      assert.deepEqual(got.result!.runtimeEnv, { env_vars: '{"A":"b"}' });

      const listed = await via(corral, `${JS}/ListJobDetails`, KEY);
      assert.equal(listed.code, 0, listed.message);
      const ids = (listed.result!.submissions as Message[]).map((s) =>
        s.submissionId
      );
      assert.deepEqual(ids, [id]);

      const followed = await within(
        10_000,
        "the log stream's end",
        followedLog(corral, transport, id),
      );
      assert.equal(followed.code, 0);
      assert.equal(followed.statuses.at(-1), "SUCCEEDED");
      assert.match(followed.log, /Running entrypoint: python/);
      assert.match(followed.log, /Done\.\n$/);

      const log = await via(corral, `${JS}/GetJobLog`, {
        ...KEY,
        submissionid: id,
      });
      assert.equal(log.code, 0, log.message);
      assert.equal(log.result!.log, followed.log, "the stream sent it all");

      const deleted = await via(corral, `${JS}/DeleteRayJob`, {
        ...KEY,
        submissionid: id,
      });
      assert.equal(deleted.code, 0, deleted.message);
      const gone = await via(corral, `${JS}/GetJobDetails`, {
        ...KEY,
        submissionid: id,
      });
      assert.equal(gone.code, 5);
      assert.match(gone.message, new RegExp(`Job ${id} does not exist`));
    });
  });

  Deno.test(`job submission (${transport}): stop ends a running job, whose delete was refused while it ran`, async () => {
    await withWorld(false, async ({ corral, dashboard }) => {
      const submitted = await via(corral, `${JS}/SubmitRayJob`, {
        ...KEY,
        jobsubmission: { entrypoint: "sleep 60", submissionId: "my-job-1" },
      });
      assert.equal(submitted.code, 0, submitted.message);
      assert.equal(submitted.result!.submissionId, "my-job-1");
      const early = await via(corral, `${JS}/DeleteRayJob`, {
        ...KEY,
        submissionid: "my-job-1",
      });
      assert.equal(early.code, 3, "the dashboard's 400 is code 3");
      assert.match(early.message, /non-terminal state/);
      const stopped = await via(corral, `${JS}/StopRayJob`, {
        ...KEY,
        submissionid: "my-job-1",
      });
      assert.equal(stopped.code, 0, stopped.message);
      await until(
        "the job stopped",
        () => dashboard.jobs.get("my-job-1").status === "STOPPED",
      );
      const followed = await followedLog(corral, transport, "my-job-1");
      assert.deepEqual(followed.statuses, ["STOPPED"]);
    });
  });

  Deno.test(`job submission (${transport}): a follower that goes away mid-job leaves nothing running`, async () => {
    await withWorld(false, async ({ corral, dashboard }) => {
      const job = dashboard.jobs.submit({ entrypoint: "python long.py" });
      const id = job.submission_id;
      const request = { ...KEY, submissionid: id };
      if (transport === "grpc") {
        const stream = corral.grpc.stream(`${JS}/WatchJobLog`, request);
        const first = await stream.messages.next();
        assert.equal(first.done, false);
        stream.cancel();
        await stream.status;
      } else {
        const response = await corral.gateway(
          new Request(
            `http://corral.test/apis/v1alpha2/watch/namespaces/team-a/jobsubmissions/blue/log/${id}`,
          ),
        );
        const reader = response.body!.getReader();
        assert.equal((await reader.read()).done, false);
        await reader.cancel();
      }
      // The test's sanitizers fail it if a poll's timer or fetch is left.
      await until(
        "the job ended",
        () => dashboard.jobs.get(id).status === "SUCCEEDED",
      );
    });
  });

  Deno.test(`job submission (${transport}): a working directory uploaded as a package is seen by the job`, async () => {
    await withWorld(false, async ({ corral }) => {
      const zip = zipOf({ "main.py": "print('hi')\n", "data.csv": "1,2\n" });
      const name = "_ray_pkg_0123456789abcdef.zip";
      const uploaded = await via(corral, `${JS}/UploadJobPackage`, {
        ...KEY,
        name,
        content: btoa(String.fromCharCode(...zip)),
      });
      assert.equal(uploaded.code, 0, uploaded.message);
      const submitted = await via(corral, `${JS}/SubmitRayJob`, {
        ...KEY,
        jobsubmission: {
          entrypoint: "python main.py",
          runtimeEnv: `working_dir: gcs://${name}`,
        },
      });
      assert.equal(submitted.code, 0, submitted.message);
      const followed = await followedLog(
        corral,
        transport,
        String(submitted.result!.submissionId),
      );
      assert.match(
        followed.log,
        new RegExp(`Working directory gcs://${name}: main.py, data.csv`),
      );
    });
  });

  Deno.test(`job submission (${transport}): bad input is code 3 naming the field`, async () => {
    await withWorld(false, async ({ corral }) => {
      const cases: [string, Record<string, unknown>, RegExp][] = [
        [
          "SubmitRayJob",
          { ...KEY, jobsubmission: { entrypoint: " " } },
          /jobsubmission\.entrypoint: is required/,
        ],
        [
          "SubmitRayJob",
          { ...KEY, jobsubmission: { entrypoint: "x", runtimeEnv: "- a" } },
          /jobsubmission\.runtime_env: must be a YAML mapping/,
        ],
        [
          "SubmitRayJob",
          {
            ...KEY,
            jobsubmission: { entrypoint: "x", entrypointResources: { a: "z" } },
          },
          /jobsubmission\.entrypoint_resources\["a"\]: "z" is not a number/,
        ],
        [
          "GetJobDetails",
          { ...KEY, submissionid: "a b" },
          /submissionid: "a b" is not a submission id/,
        ],
        [
          "UploadJobPackage",
          { ...KEY, name: "../x.zip", content: "AAAA" },
          /name: "\.\.\/x\.zip" is not a package name/,
        ],
        [
          "UploadJobPackage",
          { ...KEY, name: "_ray_pkg_1.zip", content: "not base64!" },
          /content: is not base64/,
        ],
        [
          "ListJobDetails",
          { namespace: "team-a", clustername: "Blue_" },
          /clustername: "Blue_" is not a cluster name/,
        ],
      ];
      for (const [method, request, message] of cases) {
        const outcome = await via(corral, `${JS}/${method}`, request);
        assert.equal(outcome.code, 3, `${method}: ${outcome.message}`);
        assert.match(outcome.message, message);
      }
    });
  });

  Deno.test(`job submission (${transport}): a cluster that is not ready is code 9 with its state, one that does not exist 5`, async () => {
    await withWorld(false, async ({ corral }) => {
      const pending = await via(corral, `${JS}/ListJobDetails`, {
        namespace: "team-a",
        clustername: "green",
      });
      assert.equal(pending.code, 9);
      assert.match(
        pending.message,
        /the cluster is not ready: its state is "pending"/,
      );
      const missing = await via(corral, `${JS}/ListJobDetails`, {
        namespace: "team-a",
        clustername: "nothing",
      });
      assert.equal(missing.code, 5, missing.message);
      assert.equal(
        missing.message,
        'Cannot proxy cluster "team-a/nothing": cluster "team-a/nothing" not found',
      );
    });
  });

  Deno.test(`job submission (${transport}): only a caller with proxy on clusters gets through, at every method`, async () => {
    await withWorld(true, async ({ corral, dashboard, access }) => {
      const job = await dashboard.jobs.submit({ entrypoint: "echo" });
      const id = job.submission_id;
      const requests: [string, Record<string, unknown>][] = [
        ["SubmitRayJob", { ...KEY, jobsubmission: { entrypoint: "echo" } }],
        ["GetJobDetails", { ...KEY, submissionid: id }],
        ["GetJobLog", { ...KEY, submissionid: id }],
        ["ListJobDetails", KEY],
        ["StopRayJob", { ...KEY, submissionid: id }],
        ["DeleteRayJob", { ...KEY, submissionid: id }],
        [
          "UploadJobPackage",
          { ...KEY, name: "_ray_pkg_1.zip", content: "AAAA" },
        ],
      ];
      for (const [method, request] of requests) {
        const callers: [Person | undefined, number][] = [
          [CAROL, 7],
          [DAVE, 7],
          [undefined, 16],
        ];
        for (const [who, code] of callers) {
          const outcome = await via(corral, `${JS}/${method}`, request, {
            authorization: who ? bearer(who) : undefined,
          });
          assert.equal(outcome.code, code, `${method} as ${who?.user}`);
        }
      }
      const refusedFollow = await followedLog(
        corral,
        transport,
        id,
        bearer(CAROL),
      );
      assert.equal(refusedFollow.code, 7, "WatchJobLog as carol");
      assert.equal(dashboard.jobs.list().length, 1, "nothing was submitted");
      const allowed = await via(corral, `${JS}/ListJobDetails`, KEY, {
        authorization: bearer(ALICE),
      });
      assert.equal(allowed.code, 0, allowed.message);
      // Every call of the verb proxy is audited, allowed or refused, with
      // its RPC.
      const lines = await auditLines(access!.auditLog);
      const list = `${JS}/ListJobDetails`;
      const listed = lines.filter((line) => line.rpc === list);
      assert.deepEqual(
        listed.map((line) => [line.user, line.code]),
        [["carol", 7], ["dave", 7], [undefined, 16], ["alice", 0]],
      );
      assert.ok(
        lines.every((line) =>
          line.verb === "proxy" && line.resource === "clusters"
        ),
      );
    });
  });
}

Deno.test("job submission: KubeRay's request messages by field number, and its v1 paths", async () => {
  await withWorld(false, async ({ corral }) => {
    // SubmitRayJobRequest: namespace 1, clustername 2, jobsubmission 3
    // {entrypoint 1, submission_id 2, metadata 3, runtime_env 4,
    // entrypoint_resources 7}.
    const job = encode([
      [1, "python run.py"],
      [2, "by-number"],
      ...map(3, { owner: "kuberay" }),
      [4, "working_dir: gcs://_ray_pkg_none.zip"],
      ...map(7, { custom: "1" }),
    ]);
    const submitted = await corral.grpc.callRaw(
      `${JS}/SubmitRayJob`,
      encode([[1, "team-a"], [2, "blue"], [3, job]]),
    );
    assert.equal(submitted.code, 0, submitted.message);
    assert.equal(submitted.result!.submissionId, "by-number");
    // GetJobDetailsRequest: namespace 1, clustername 2, submissionid 3.
    const got = await corral.grpc.callRaw(
      `${JS}/GetJobDetails`,
      encode([[1, "team-a"], [2, "blue"], [3, "by-number"]]),
    );
    assert.equal(got.code, 0, got.message);
    assert.equal(got.result!.entrypoint, "python run.py");
    assert.deepEqual(got.result!.metadata, { owner: "kuberay" });
    for (
      const [method, url] of [
        ["GET", "/apis/v1/namespaces/team-a/jobsubmissions/blue/by-number"],
        ["GET", "/apis/v1/namespaces/team-a/jobsubmissions/blue/log/by-number"],
        ["GET", "/apis/v1/namespaces/team-a/jobsubmissions/blue"],
      ]
    ) {
      const response = await corral.gateway(
        new Request(`http://corral.test${url}`, { method }),
      );
      assert.equal(response.status, 200, `${url}: ${await response.text()}`);
    }
  });
});
