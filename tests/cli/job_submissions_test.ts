/**
 * `corral jobs run|submit --working-dir|logs|stop|list --cluster` against a
 * dev-mode Corral, whose simulated operator gives each ready cluster a
 * simulated Ray dashboard: a run logs its entrypoint, the file names of its
 * working directory's package, and ends SUCCEEDED, or FAILED for an
 * entrypoint ending `exit <n>`. Followed jobs end the command with their
 * outcome: 0 SUCCEEDED, 1 FAILED, 4 STOPPED.
 */
import assert from "node:assert/strict";
import {
  EMBEDDED,
  type MainProcess,
  NO_SHUTDOWN_DELAY,
} from "../main_process.ts";
import {
  clusterFile,
  type Sandbox,
  sandbox,
  startCorral,
} from "./cli_process.ts";
import {
  isIgnored,
  packageDirectory,
  parseGitignore,
} from "../../cli/job_package.ts";
import { zipFileNames } from "../../standin/dashboard/zip.ts";
import {
  allowAll,
  allowAllWithProxy,
  policyText,
  users,
} from "../api/auth/policy_fixtures.ts";

const NS = "team-a";

/** A working directory with a .gitignore leaving out logs and build/. */
async function workingDir(root: string): Promise<string> {
  const dir = `${root}/project`;
  await Deno.mkdir(`${dir}/lib/build`, { recursive: true });
  await Deno.mkdir(`${dir}/.git`);
  await Deno.writeTextFile(`${dir}/.git/HEAD`, "ref: refs/heads/main\n");
  await Deno.writeTextFile(`${dir}/main.py`, "print('hello')\n");
  await Deno.writeTextFile(`${dir}/lib/util.py`, "X = 1\n");
  await Deno.writeTextFile(`${dir}/lib/build/out.bin`, "binary");
  await Deno.writeTextFile(`${dir}/run.log`, "old log");
  await Deno.writeTextFile(`${dir}/.gitignore`, "*.log\nbuild/\n");
  return dir;
}

Deno.test("parseGitignore() follows git's rules for the lines it reads", async (t) => {
  const rules = parseGitignore(
    "# comment\n\n*.log\n!keep.log\n/top.txt\nbuild/\ndocs/**/*.tmp\n",
  );
  const cases: [string, boolean, boolean][] = [
    ["a.log", false, true],
    ["deep/b.log", false, true],
    ["keep.log", false, false],
    ["top.txt", false, true],
    ["sub/top.txt", false, false],
    ["build", true, true],
    ["build", false, false],
    ["src/build", true, true],
    ["docs/x.tmp", false, true],
    ["docs/a/b/x.tmp", false, true],
    ["main.py", false, false],
  ];
  for (const [path, isDirectory, want] of cases) {
    await t.step(`${path}${isDirectory ? "/" : ""}: ${want}`, () => {
      assert.equal(isIgnored(rules, path, isDirectory), want);
    });
  }
});

Deno.test("packageDirectory() zips what .gitignore and .git leave, named by its contents", async () => {
  const root = await Deno.makeTempDir({ prefix: "corral-pkg-" });
  try {
    const dir = await workingDir(root);
    const first = await packageDirectory(dir);
    assert.deepEqual(first.files, [".gitignore", "lib/util.py", "main.py"]);
    assert.deepEqual(zipFileNames(first.zip), first.files);
    assert.match(first.name, /^_ray_pkg_[0-9a-f]{32}\.zip$/);
    assert.equal(first.uri, `gcs://${first.name}`);
    // An ignored file changing leaves the name; a packaged one changes it.
    await Deno.writeTextFile(`${dir}/run.log`, "new log");
    assert.equal((await packageDirectory(dir)).name, first.name);
    await Deno.writeTextFile(`${dir}/main.py`, "print('bye')\n");
    assert.notEqual((await packageDirectory(dir)).name, first.name);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("corral jobs run|logs|stop|list --cluster against a running cluster's dashboard", async (t) => {
  const box: Sandbox = await sandbox();
  const main: MainProcess = await startCorral({ namespace: NS });
  const env = { CORRAL_SERVER: main.http, CORRAL_NAMESPACE: NS };
  try {
    await Deno.writeTextFile(`${box.dir}/blue.json`, clusterFile("blue"));
    const created = await box.run(
      ["clusters", "create", "-f", `${box.dir}/blue.json`, "--wait"],
      { env },
    );
    assert.equal(created.code, 0, created.stderr);
    const dir = await workingDir(box.dir);

    await t.step(
      "submit --working-dir uploads it; the logs name its files",
      async () => {
        const submitted = await box.run(
          [
            "jobs",
            "submit",
            "--cluster",
            "blue",
            "--working-dir",
            dir,
            "--submission-id",
            "with-dir",
            "--",
            "python",
            "main.py",
          ],
          { env },
        );
        assert.equal(submitted.code, 0, submitted.stderr);
        assert.match(
          submitted.stdout,
          /uploaded gcs:\/\/_ray_pkg_[0-9a-f]{32}\.zip \(3 files/,
        );
        assert.match(
          submitted.stdout,
          /job with-dir submitted to cluster team-a\/blue/,
        );
        const followed = await box.run(
          ["jobs", "logs", "-f", "--cluster", "blue", "with-dir"],
          { env },
        );
        assert.equal(followed.code, 0, followed.stderr);
        assert.match(followed.stdout, /Running entrypoint: python main.py/);
        assert.match(
          followed.stdout,
          /Working directory gcs:\/\/_ray_pkg_[0-9a-f]{32}\.zip: \.gitignore, lib\/util\.py, main\.py/,
        );
        assert.match(followed.stdout, /Done\./);
        assert.equal(followed.stderr, "job with-dir: SUCCEEDED\n");
      },
    );

    await t.step("the same directory again is not uploaded again", async () => {
      const again = await box.run(
        [
          "jobs",
          "run",
          "--cluster",
          "blue",
          "--working-dir",
          dir,
          "--wait",
          "--",
          "python",
          "main.py",
        ],
        { env },
      );
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /already uploaded/);
      assert.match(again.stdout, /lib\/util\.py, main\.py/);
    });

    await t.step(
      "a failing entrypoint: --wait and logs -f exit 1",
      async () => {
        const failed = await box.run(
          [
            "jobs",
            "run",
            "--cluster",
            "blue",
            "--submission-id",
            "failing",
            "--wait",
            "--entrypoint",
            "python main.py; exit 3",
          ],
          { env },
        );
        assert.equal(failed.code, 1, failed.stderr);
        assert.match(failed.stdout, /Exited with code 3/);
        assert.equal(failed.stderr, "job failing: FAILED\n");
        const logs = await box.run(
          ["jobs", "logs", "-f", "--cluster", "blue", "failing"],
          { env },
        );
        assert.equal(logs.code, 1, logs.stderr);
        const plain = await box.run(
          ["jobs", "logs", "--cluster", "blue", "failing"],
          { env },
        );
        assert.equal(plain.code, 0, plain.stderr);
        assert.equal(plain.stdout, logs.stdout);
      },
    );

    await t.step(
      "a directory past Corral's --max-body-bytes: exit 1, saying so",
      async () => {
        const big = `${box.dir}/big`;
        await Deno.mkdir(big);
        // Random bytes do not deflate: 3 MiB of them is 4 MiB as base64.
        const noise = new Uint8Array(3 << 20);
        for (let at = 0; at < noise.length; at += 65536) {
          crypto.getRandomValues(noise.subarray(at, at + 65536));
        }
        await Deno.writeFile(`${big}/weights.bin`, noise);
        const result = await box.run(
          ["jobs", "run", "--cluster", "blue", "--working-dir", big, "--", "x"],
          { env },
        );
        assert.equal(result.code, 1, result.stderr);
        assert.match(
          result.stderr,
          /Corral's --max-body-bytes bounds an upload/,
        );
        assert.doesNotMatch(result.stdout, /submitted/);
      },
    );

    await t.step("stop: the followed job ends STOPPED, exit 4", async () => {
      const started = await box.run(
        [
          "jobs",
          "run",
          "--cluster",
          "blue",
          "--submission-id",
          "long",
          // Runs until stopped: the stop cannot come after its end.
          "--",
          "sleep",
          "infinity",
        ],
        { env },
      );
      assert.equal(started.code, 0, started.stderr);
      const follower = box.spawn(
        ["jobs", "logs", "-f", "--cluster", "blue", "long"],
        { env },
      );
      await follower.line((line) => line.includes("Running entrypoint"));
      const stopped = await box.run(
        ["jobs", "stop", "--cluster", "blue", "long"],
        { env },
      );
      assert.equal(stopped.code, 0, stopped.stderr);
      const result = await follower.done;
      assert.equal(result.code, 4, result.stderr);
      assert.equal(result.stderr, "job long: STOPPED\n");
    });

    await t.step("list --cluster shows the submissions", async () => {
      const listed = await box.run(["jobs", "list", "--cluster", "blue"], {
        env,
      });
      assert.equal(listed.code, 0, listed.stderr);
      const lines = listed.stdout.trimEnd().split("\n");
      assert.match(
        lines[0],
        /^SUBMISSION\s+STATUS\s+START\s+END\s+ENTRYPOINT$/,
      );
      const rows = new Map(
        lines.slice(1).map((l) => {
          const [id, status] = l.split(/\s+/);
          return [id, status];
        }),
      );
      assert.equal(rows.get("with-dir"), "SUCCEEDED");
      assert.equal(rows.get("failing"), "FAILED");
      assert.equal(rows.get("long"), "STOPPED");
    });

    await t.step("errors: usage is exit 2, an unknown job exit 1", async () => {
      const cases: [string[], number, RegExp][] = [
        [["jobs", "run", "--", "x"], 2, /--cluster NAME is required/],
        [
          [
            "jobs",
            "submit",
            "--cluster",
            "blue",
            "--submission-id",
            "s",
            "--ttl",
            "5m",
            "--",
            "x",
          ],
          2,
          /--ttl is for a RayJob/,
        ],
        [
          [
            "jobs",
            "run",
            "--cluster",
            "blue",
            "--working-dir",
            `${box.dir}/none`,
            "--",
            "x",
          ],
          2,
          /cannot read --working-dir/,
        ],
        [["jobs", "logs", "--cluster", "blue"], 2, /submission id/],
        [
          ["jobs", "stop", "--cluster", "blue", "nothing"],
          1,
          /Job nothing does not exist/,
        ],
        [["jobs", "logs", "-f", "--cluster", "grey", "x"], 1, /grey/],
      ];
      for (const [args, code, message] of cases) {
        const result = await box.run(args, { env });
        assert.equal(result.code, code, `${args.join(" ")}: ${result.stderr}`);
        assert.match(result.stderr, message);
      }
    });
  } finally {
    await main.stop();
    await box.remove();
  }
});

const ADA = "ada-token-0123456789abcdef0123456789abcd";
const CAROL = "carol-token-0123456789abcdef0123456789ab";

/** ada may do everything in team-a, proxy included; carol all but proxy. */
const POLICY = policyText([
  allowAllWithProxy(users("ada"), ["team-a"]),
  allowAll(users("carol"), ["team-a"]),
]);

Deno.test("corral jobs run|logs|stop|list --cluster: a caller without proxy is refused at every step", async () => {
  const box: Sandbox = await sandbox();
  await Deno.writeTextFile(
    `${box.dir}/tokens.csv`,
    `${ADA},ada,1001,"team-a"\n${CAROL},carol,1002,"team-a"\n`,
  );
  await Deno.writeTextFile(`${box.dir}/policy.yaml`, POLICY);
  const main: MainProcess = await startCorral({
    args: [
      ...EMBEDDED,
      ...NO_SHUTDOWN_DELAY,
      "--token-auth-file",
      `${box.dir}/tokens.csv`,
      "--authorization-policy-file",
      `${box.dir}/policy.yaml`,
    ],
  });
  const as = (token: string) => ({
    env: {
      CORRAL_SERVER: main.http,
      CORRAL_NAMESPACE: NS,
      CORRAL_TOKEN: token,
    },
  });
  try {
    const template = await box.run(
      ["templates", "create", "--name", "small", "--cpu", "1", "--memory", "1"],
      as(ADA),
    );
    assert.equal(template.code, 0, template.stderr);
    await Deno.writeTextFile(`${box.dir}/blue.json`, clusterFile("blue"));
    const created = await box.run(
      ["clusters", "create", "-f", `${box.dir}/blue.json`, "--wait"],
      as(ADA),
    );
    assert.equal(created.code, 0, created.stderr);
    const dir = await workingDir(box.dir);
    const submitted = await box.run(
      [
        "jobs",
        "run",
        "--cluster",
        "blue",
        "--working-dir",
        dir,
        "--submission-id",
        "adas",
        "--wait",
        "--",
        "python",
        "main.py",
      ],
      as(ADA),
    );
    assert.equal(submitted.code, 0, submitted.stderr);
    assert.match(submitted.stdout, /lib\/util\.py, main\.py/);

    const refusals: string[][] = [
      ["jobs", "run", "--cluster", "blue", "--working-dir", dir, "--", "x"],
      ["jobs", "run", "--cluster", "blue", "--", "x"],
      ["jobs", "logs", "-f", "--cluster", "blue", "adas"],
      ["jobs", "logs", "--cluster", "blue", "adas"],
      ["jobs", "stop", "--cluster", "blue", "adas"],
      ["jobs", "list", "--cluster", "blue"],
    ];
    for (const args of refusals) {
      const result = await box.run(args, as(CAROL));
      assert.equal(result.code, 1, `${args.join(" ")}: ${result.stderr}`);
      assert.match(
        result.stderr,
        /user "carol" may not proxy clusters in namespace "team-a"/,
        args.join(" "),
      );
      assert.equal(result.stdout, "", args.join(" "));
    }
  } finally {
    await main.stop();
    await box.remove();
  }
});
