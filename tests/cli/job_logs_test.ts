/**
 * A job's log on the command line, against a dev-mode Corral (the
 * simulated operator's submitter writes it): `jobs submit --wait` prints
 * it once the job has ended, `jobs logs NAME` reads it (whole, its tail,
 * followed), `jobs get -o wide` shows the job id, and the log is still
 * read once the job's cluster is gone. followJobLog() itself, with a fake
 * client, for what a dev-mode Corral cannot be made to do on cue: end a
 * stream while the job runs on.
 */
import assert from "node:assert/strict";
import type { CorralClient, WatchResult } from "../../cli/client.ts";
import { ApiError } from "../../cli/errors.ts";
import { followJobLog } from "../../cli/job_logs.ts";
import type { MainProcess } from "../main_process.ts";
import { type Sandbox, sandbox, startCorral } from "./cli_process.ts";

const NS = "team-a";
const NEW_CLUSTER = ["--template", "small", "--version", "2.9.0"];

Deno.test("corral jobs: submit --wait prints the job's log, jobs logs reads it whole, its tail or followed, get -o wide shows the job id", async () => {
  const box: Sandbox = await sandbox();
  const main: MainProcess = await startCorral({ namespace: NS });
  const env = { CORRAL_SERVER: main.http, CORRAL_NAMESPACE: NS };
  try {
    const submitted = await box.run([
      "jobs",
      "submit",
      "--name",
      "train",
      "--user",
      "ada",
      ...NEW_CLUSTER,
      "--wait",
      "--",
      "python",
      "train.py",
    ], { env });
    assert.equal(submitted.code, 0, submitted.stderr);
    assert.match(submitted.stdout, /^--- log of job team-a\/train$/m);
    assert.match(submitted.stdout, /^Running entrypoint: python train\.py$/m);
    assert.match(submitted.stdout, /^Job 'train-[a-z0-9]{5}' succeeded$/m);

    const logs = await box.run(["jobs", "logs", "train"], { env });
    assert.equal(logs.code, 0, logs.stderr);
    assert.match(logs.stdout, /^Job submission server address: /);
    assert.ok(submitted.stdout.endsWith(logs.stdout), submitted.stdout);

    const tail = await box.run(["jobs", "logs", "--tail", "1", "train"], {
      env,
    });
    assert.equal(tail.code, 0, tail.stderr);
    assert.match(tail.stdout, /^Job 'train-[a-z0-9]{5}' succeeded\n$/);

    const followed = await box.run(["jobs", "logs", "-f", "train"], { env });
    assert.equal(followed.code, 0, followed.stderr);
    assert.equal(followed.stdout, logs.stdout);

    const wide = await box.run(["jobs", "get", "train", "-o", "wide"], {
      env,
    });
    assert.equal(wide.code, 0, wide.stderr);
    assert.match(wide.stdout, /JOB ID/);
    assert.match(wide.stdout, /train-[a-z0-9]{5}\s*$/m);

    const missing = await box.run(["jobs", "logs", "nope"], { env });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /not found/);
    const badTail = await box.run(["jobs", "logs", "--tail", "x", "train"], {
      env,
    });
    assert.equal(badTail.code, 2);
    assert.match(badTail.stderr, /--tail must be a whole number/);
  } finally {
    await main.stop();
    await box.remove();
  }
});

Deno.test("corral jobs logs -f follows a running job's log to its end, with its outcome as the exit code", async () => {
  const box: Sandbox = await sandbox();
  const main: MainProcess = await startCorral({ namespace: NS });
  const env = { CORRAL_SERVER: main.http, CORRAL_NAMESPACE: NS };
  try {
    const submitted = await box.run([
      "jobs",
      "submit",
      "--name",
      "flaky",
      "--user",
      "ada",
      ...NEW_CLUSTER,
      "--entrypoint",
      "python flaky.py; exit 3",
    ], { env });
    assert.equal(submitted.code, 0, submitted.stderr);
    // Until its submitter has started, the log is refused (code 9).
    let followed;
    for (let attempt = 0;; attempt++) {
      followed = await box.run(["jobs", "logs", "-f", "flaky"], { env });
      if (!/has not started yet/.test(followed.stderr)) break;
      assert.ok(attempt < 60, "the submitter never started");
    }
    assert.equal(followed.code, 1, followed.stderr);
    assert.match(followed.stdout, /Exited with code 3\nJob '.*' failed\n$/);
  } finally {
    await main.stop();
    await box.remove();
  }
});

/**
 * A client whose log streams answer `streams` in turn, whose log reads
 * answer `log` and whose job reads answer `statuses` in turn.
 */
function fakeLogClient(
  log: string,
  streams: string[][],
  statuses: string[],
): CorralClient & { paths: string[] } {
  const paths: string[] = [];
  return {
    paths,
    call<T>(_method: string, path: string): Promise<T> {
      paths.push(path);
      return Promise.resolve(
        (path.endsWith("/log")
          ? { log }
          : { name: "train", jobStatus: statuses.shift() }) as T,
      );
    },
    async *watch(path: string) {
      paths.push(path);
      for (const part of streams.shift() ?? []) {
        yield await Promise.resolve({ log: part } as unknown as WatchResult);
      }
    },
    forward(): Promise<Response> {
      return Promise.reject(new Error("not used by followJobLog"));
    },
    webSocket(): WebSocket {
      throw new Error("not used by followJobLog");
    },
    errorOf(status: number, text: string): ApiError {
      return new ApiError(status, { message: text });
    },
    close() {},
  };
}

Deno.test("followJobLog() with tailLines prints the log's last lines, then only what follows them, also after a stream ended early and was resumed", async () => {
  // The last line is being written: "d" becomes "done".
  const client = fakeLogClient("a\nb\nc\nd", [
    ["a\nb\nc\nd", "one\n"],
    ["a\nb\nc\ndone\n", "exit\n"],
  ], ["RUNNING", "SUCCEEDED"]);
  let out = "";
  const outcome = await followJobLog(
    client,
    { namespace: NS, name: "train", tailLines: 2 },
    (text) => out += text,
  );
  assert.equal(outcome, 0);
  assert.equal(out, "c\ndone\nexit\n");
  assert.ok(
    client.paths.every((path) => !path.includes("tailLines")),
    client.paths.join(" "),
  );
});
