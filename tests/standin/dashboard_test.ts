import assert from "node:assert/strict";
import { SimulatedDashboard } from "../../standin/dashboard/server.ts";
import { eventually } from "../eventually.ts";
import { zipOf } from "./zip_fixture.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

async function withDashboard(
  fn: (base: string, dashboard: SimulatedDashboard) => Promise<void>,
): Promise<void> {
  const dashboard = new SimulatedDashboard({
    cluster: "team-a/blue",
    stepMs: 20,
  });
  try {
    await fn(`http://127.0.0.1:${dashboard.port}`, dashboard);
  } finally {
    await dashboard.close();
  }
}

async function call(
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: Json = text;
  try {
    parsed = JSON.parse(text);
  } catch { /* plain text, as Ray answers errors */ }
  return { status: response.status, body: parsed };
}

function ended(base: string, id: string): Promise<Json> {
  return eventually(`job ${id} to end`, async () => {
    const { body } = await call("GET", `${base}/api/jobs/${id}`);
    return ["SUCCEEDED", "FAILED", "STOPPED"].includes(body.status)
      ? body
      : undefined;
  });
}

/** Follows GET .../logs/tail until the server closes it; the text sent. */
function tail(base: string, id: string): Promise<string> {
  const socket = new WebSocket(
    `${base.replace("http", "ws")}/api/jobs/${id}/logs/tail`,
  );
  let text = "";
  return new Promise((resolve, reject) => {
    socket.onmessage = (event) => text += event.data;
    socket.onerror = () => reject(new Error("tail failed"));
    socket.onclose = () => resolve(text);
  });
}

Deno.test("The simulated dashboard runs a job: submit, list, details, logs followed to the end, delete", async () => {
  await withDashboard(async (base) => {
    const submitted = await call("POST", `${base}/api/jobs/`, {
      entrypoint: "python train.py",
      metadata: { owner: "alice" },
      entrypoint_num_cpus: 1,
    });
    assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
    const id = submitted.body.submission_id;
    assert.match(id, /^raysubmit_[A-Za-z0-9]{16}$/);
    assert.equal(submitted.body.job_id, id);
    const followed = tail(base, id);
    const listed = await call("GET", `${base}/api/jobs/`);
    assert.deepEqual(listed.body.map((j: Json) => j.submission_id), [id]);
    const details = await ended(base, id);
    assert.equal(details.status, "SUCCEEDED");
    assert.equal(details.type, "SUBMISSION");
    assert.equal(details.entrypoint, "python train.py");
    assert.equal(details.message, "Job finished successfully.");
    assert.deepEqual(details.metadata, { owner: "alice" });
    assert.equal(details.entrypoint_num_cpus, 1);
    assert.ok(details.end_time >= details.start_time);
    assert.match(details.job_id, /^[0-9a-f]{8}$/);
    const logs = (await call("GET", `${base}/api/jobs/${id}/logs`)).body.logs;
    assert.match(logs, /Running entrypoint: python train\.py\nRunning\.\.\.\n/);
    assert.equal(await followed, logs);
    const deleted = await call("DELETE", `${base}/api/jobs/${id}`);
    assert.deepEqual(deleted.body, { deleted: true });
    assert.equal((await call("GET", `${base}/api/jobs/${id}`)).status, 404);
  });
});

Deno.test("The simulated dashboard fails a job whose entrypoint ends in exit 3, and stops one on request", async () => {
  await withDashboard(async (base) => {
    const failing = await call("POST", `${base}/api/jobs/`, {
      entrypoint: "python x.py; exit 3",
      submission_id: "my-job",
    });
    assert.equal(failing.body.submission_id, "my-job");
    const failed = await ended(base, "my-job");
    assert.equal(failed.status, "FAILED");
    assert.equal(failed.error_type, "JOB_ENTRYPOINT_COMMAND_ERROR");
    assert.match(failed.message, /failed with exit code 3/);
    const again = await call("POST", `${base}/api/jobs/`, {
      entrypoint: "echo",
      submission_id: "my-job",
    });
    assert.equal(again.status, 400);
    assert.match(again.body, /submission_id my-job already exists/);

    const { body } = await call("POST", `${base}/api/jobs/`, {
      entrypoint: "sleep 100",
    });
    const id = body.submission_id;
    const early = await call("DELETE", `${base}/api/jobs/${id}`);
    assert.equal(early.status, 400);
    assert.match(early.body, /non-terminal state/);
    assert.deepEqual(
      (await call("POST", `${base}/api/jobs/${id}/stop`)).body,
      { stopped: true },
    );
    const stopped = (await call("GET", `${base}/api/jobs/${id}`)).body;
    assert.equal(stopped.status, "STOPPED");
    assert.equal(stopped.message, "Job was intentionally stopped.");
    assert.deepEqual(
      (await call("POST", `${base}/api/jobs/${id}/stop`)).body,
      { stopped: false },
    );
  });
});

Deno.test("The simulated dashboard takes a working directory package and the job sees its files", async () => {
  await withDashboard(async (base) => {
    const uri = "gcs://_ray_pkg_0123456789abcdef.zip";
    const path = `${base}/api/packages/gcs/_ray_pkg_0123456789abcdef.zip`;
    assert.equal((await call("GET", path)).status, 404);
    const put = await fetch(path, {
      method: "PUT",
      body: zipOf({ "train.py": "print(1)\n", "data/input.csv": "a,b\n" }),
    });
    await put.body?.cancel();
    assert.equal(put.status, 200);
    assert.equal((await call("GET", path)).status, 200);
    const { body } = await call("POST", `${base}/api/jobs/`, {
      entrypoint: "python train.py",
      runtime_env: { working_dir: uri },
    });
    await ended(base, body.submission_id);
    const logs =
      (await call("GET", `${base}/api/jobs/${body.submission_id}/logs`))
        .body.logs;
    assert.match(logs, /train\.py, data\/input\.csv/);
    const notZip = await call("PUT", path.replace("0123", "9999"), "x");
    assert.equal(notZip.status, 400);
  });
});

Deno.test("The simulated dashboard refuses bad submissions naming the field, and answers the version and an index", async (t) => {
  await withDashboard(async (base) => {
    const cases: [string, unknown, RegExp][] = [
      ["no entrypoint", {}, /entrypoint: a non-empty string is required/],
      ["entrypoint a number", { entrypoint: 3 }, /entrypoint/],
      [
        "runtime_env a list",
        { entrypoint: "x", runtime_env: [] },
        /runtime_env: must be an object/,
      ],
      [
        "negative cpus",
        { entrypoint: "x", entrypoint_num_cpus: -1 },
        /entrypoint_num_cpus/,
      ],
      ["not an object", [1], /not an object/],
    ];
    for (const [name, body, want] of cases) {
      await t.step(name, async () => {
        const answer = await call("POST", `${base}/api/jobs/`, body);
        assert.equal(answer.status, 400, `got ${answer.status}, want 400`);
        assert.match(answer.body, want);
      });
    }
    assert.equal((await call("GET", `${base}/api/jobs/nope`)).status, 404);
    assert.equal((await call("GET", `${base}/api/jobs/nope/logs`)).status, 404);
    const version = await call("GET", `${base}/api/version`);
    assert.equal(version.body.version, "4");
    const index = await fetch(`${base}/`);
    assert.match(
      await index.text(),
      /Ray Dashboard \(simulated\).*team-a\/blue/,
    );
  });
});
