/**
 * `corral clusters dashboard`, `-o wide`, `scale` without --group and the
 * completion of cluster and template names, against a dev-mode Corral that
 * takes tokens and a policy: the local port adds the command's token (a
 * browser sends none), answers only its own pages (another site's Origin, a
 * rebound Host: refused), ends on Ctrl-C; a caller without `proxy`, and a
 * cluster that is not ready, are refused before anything listens.
 */
import { refusedUrl } from "../refused_url.ts";
import assert from "node:assert/strict";
import {
  ANONYMOUS,
  FREE_PORTS,
  type MainProcess,
  NO_SHUTDOWN_DELAY,
} from "../main_process.ts";
import {
  assertAligned,
  CLI,
  CLI_PERMISSIONS,
  type Sandbox,
  sandbox,
  startCorral,
} from "./cli_process.ts";
import { localLocation } from "../../cli/dashboard.ts";
import type { CorralClient } from "../../cli/client.ts";
import {
  allowAllWithProxy,
  policyText,
  readOnly,
  users,
} from "../api/auth/policy_fixtures.ts";

const ALICE = "alice-token-0123456789abcdef0123456789";
const BOB = "bob-token-0123456789abcdef0123456789abc";

const POLICY = policyText([
  allowAllWithProxy(users("alice"), ["team-a"]),
  readOnly(users("bob"), ["team-a"]),
]);

/** A cluster with two worker groups, both on `small`. */
const TWO_GROUPS = JSON.stringify({
  name: "green",
  version: "2.9.0",
  clusterSpec: {
    headGroupSpec: { computeTemplate: "small" },
    workerGroupSpec: ["cpus", "more"].map((groupName) => ({
      groupName,
      computeTemplate: "small",
      replicas: 1,
      minReplicas: 0,
      maxReplicas: 4,
    })),
  },
});

/** Sends `request` as it is over TCP; the answer's status line. */
async function rawStatus(port: number, request: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode(request));
    const buffer = new Uint8Array(4096);
    const read = await conn.read(buffer);
    return new TextDecoder().decode(buffer.subarray(0, read ?? 0))
      .split("\r\n")[0];
  } finally {
    conn.close();
  }
}

/** What `_corral` offers for `line` (bash), `corral` being the CLI. */
async function complete(
  box: Sandbox,
  env: Record<string, string>,
  line: string,
): Promise<string | undefined> {
  const words = line.split(" ");
  const probe = `source ${box.dir}/corral.bash
COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${
    words.length - 1
  }
_corral; echo "\${COMPREPLY[*]}"`;
  try {
    const output = await new Deno.Command("bash", {
      args: ["-c", probe],
      env: { ...env, PATH: `${box.dir}/bin:${Deno.env.get("PATH")}` },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decode = (b: Uint8Array) => new TextDecoder().decode(b);
    assert.equal(output.code, 0, decode(output.stderr));
    assert.equal(decode(output.stderr), "", "completion prints nothing else");
    return decode(output.stdout).trim();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined; // no bash
    throw error;
  }
}

Deno.test("corral clusters dashboard, -o wide, scale and name completion", async (t) => {
  const box = await sandbox();
  await Deno.writeTextFile(
    `${box.dir}/tokens.csv`,
    `${ALICE},alice,1001,"team-a"\n${BOB},bob,1002,"team-a"\n`,
  );
  await Deno.writeTextFile(`${box.dir}/policy.yaml`, POLICY);
  const main: MainProcess = await startCorral({
    args: [
      "--orchestrator",
      "embedded",
      ...FREE_PORTS,
      "--operator-delay",
      "300ms",
      ...NO_SHUTDOWN_DELAY,
      "--token-auth-file",
      `${box.dir}/tokens.csv`,
      "--authorization-policy-file",
      `${box.dir}/policy.yaml`,
    ],
  });
  const alice = {
    CORRAL_SERVER: main.http,
    CORRAL_TOKEN: ALICE,
    CORRAL_NAMESPACE: "team-a",
  };
  const bob = { ...alice, CORRAL_TOKEN: BOB };
  const cli = (env: Record<string, string>, ...args: string[]) =>
    box.run(args, { env });
  try {
    await t.step(
      "create NAME --template ... --wait makes a ready cluster",
      async () => {
        const template = await cli(
          alice,
          "templates",
          "create",
          "--name",
          "small",
          "--cpu",
          "1",
          "--memory",
          "1",
        );
        assert.equal(template.code, 0, template.stderr);
        const result = await cli(
          alice,
          ...["clusters", "create", "blue", "--template", "small"],
          ...["--workers", "1", "--max-workers", "3", "--version", "2.9.0"],
          "--wait",
        );
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stdout, /^cluster team-a\/blue is ready$/m);
        const yaml = await cli(alice, "clusters", "describe", "blue");
        assert.match(
          yaml.stdout,
          /^User: +alice$/m,
          "the token's user owns it",
        );
        assert.match(yaml.stdout, /Replicas: +1 \(min 0, max 3\)/);
      },
    );

    await t.step(
      "create refuses --max-workers under --workers, and -f with flags",
      async () => {
        const under = await cli(
          alice,
          ...["clusters", "create", "x", "--template", "small"],
          ...["--workers", "3", "--max-workers", "2"],
        );
        assert.equal(under.code, 2);
        assert.equal(
          under.stderr,
          "error: --max-workers 2 is less than --workers 3\n",
        );
        const both = await cli(
          alice,
          ...["clusters", "create", "-f", "x.yaml", "--template", "small"],
        );
        assert.equal(both.code, 2);
        assert.match(
          both.stderr,
          /^error: -f FILE describes the whole cluster/,
        );
      },
    );

    await t.step("list -o wide adds CLIENT-URL and DASHBOARD", async () => {
      const result = await cli(alice, "clusters", "list", "-o", "wide");
      assert.equal(result.code, 0, result.stderr);
      const rows = assertAligned(result.stdout);
      assert.deepEqual(rows[0].slice(-2), ["CLIENT-URL", "DASHBOARD"]);
      assert.equal(rows[1][6], "ray://blue-head-svc.team-a.svc:10001");
      assert.equal(
        rows[1][7],
        `${main.http}/apis/v1alpha2/namespaces/team-a/clusters/blue/dashboard/`,
      );
    });

    await t.step(
      "dashboard: a browser without credentials gets through; other sites do not",
      async () => {
        const running = box.spawn(["clusters", "dashboard", "blue"], {
          env: alice,
        });
        const line = await running.line((l) => l.includes("http://127.0.0.1:"));
        assert.match(line, /^Dashboard of cluster team-a\/blue: /);
        const url = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(line)!;
        const [origin, port] = [url[0].slice(0, -1), Number(url[1])];

        const version = await fetch(`${origin}/api/version`, {
          // The local port's own credentials never pass: the command's do.
          headers: { authorization: `Bearer ${BOB}`, cookie: "a=b" },
        });
        assert.equal(version.status, 200);
        assert.equal((await version.json()).ray_commit, "simulated");

        const post = (from: string) =>
          fetch(`${origin}/api/jobs/`, {
            method: "POST",
            headers: { origin: from, "content-type": "application/json" },
            body: JSON.stringify({ entrypoint: "echo hi" }),
          });
        const foreign = await post("http://evil.example");
        assert.equal(foreign.status, 403, "another site's page may not post");
        await foreign.body?.cancel();
        const jobs = await fetch(`${origin}/api/jobs/`);
        assert.deepEqual(await jobs.json(), []);
        const own = await post(origin);
        assert.equal(own.status, 200, await own.clone().text());
        assert.ok((await own.json()).submission_id);

        assert.equal(
          await rawStatus(
            port,
            "GET /api/version HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
          ),
          "HTTP/1.1 403 Forbidden",
          "a rebound name is not the listener",
        );
        assert.equal(
          await rawStatus(
            port,
            `GET /api/version HTTP/1.1\r\nHost: localhost:${port}\r\nConnection: close\r\n\r\n`,
          ),
          "HTTP/1.1 200 OK",
        );

        const ended = await running.stop("SIGINT");
        assert.equal(ended.code, 0, ended.stderr);
        await assert.rejects(fetch(`${origin}/api/version`), "port closed");
      },
    );

    await t.step(
      "dashboard: a caller without proxy is refused before listening, exit 1",
      async () => {
        const result = await cli(bob, "clusters", "dashboard", "blue");
        assert.equal(result.code, 1);
        assert.equal(result.stdout, "");
        assert.match(result.stderr, /^error: .*may not proxy clusters/);
      },
    );

    await t.step(
      "dashboard: a taken --port names the flag, exit 2",
      async () => {
        const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
        try {
          const port = taken.addr.port;
          const result = await cli(
            alice,
            ...["clusters", "dashboard", "blue", "--port", String(port)],
          );
          assert.equal(result.code, 2);
          assert.equal(
            result.stderr,
            `error: port ${port} on 127.0.0.1 is taken: pass another --port (0 picks a free one)\n`,
          );
        } finally {
          taken.close();
        }
      },
    );

    await t.step(
      "scale without --group: the only group; several are named",
      async () => {
        const one = await cli(
          alice,
          "clusters",
          "scale",
          "blue",
          "--replicas",
          "2",
        );
        assert.equal(one.code, 0, one.stderr);
        assert.equal(
          one.stdout,
          "cluster team-a/blue scaled: group workers from 1 to 2 replicas\n",
        );
        const created = await box.run(["clusters", "create", "-f", "-"], {
          env: alice,
          stdin: TWO_GROUPS,
        });
        assert.equal(created.code, 0, created.stderr);
        const several = await cli(
          alice,
          "clusters",
          "scale",
          "green",
          "--replicas",
          "2",
        );
        assert.equal(several.code, 2);
        assert.equal(
          several.stderr,
          "error: cluster team-a/green has 2 worker groups: pick one with --group\n  its groups: cpus, more\n",
        );
      },
    );

    await t.step(
      "completion offers cluster and template names from the server, quietly nothing when it cannot",
      async () => {
        await Deno.mkdir(`${box.dir}/bin`);
        await Deno.writeTextFile(
          `${box.dir}/bin/corral`,
          `#!/bin/sh\nexec "${Deno.execPath()}" run ${
            CLI_PERMISSIONS.join(" ")
          } "${CLI}" "$@"\n`,
          { mode: 0o755 },
        );
        const script = await cli(alice, "completion", "bash");
        await Deno.writeTextFile(`${box.dir}/corral.bash`, script.stdout);
        const env = { ...alice, CORRAL_CONFIG: box.config };
        const clusters = await complete(box, env, "corral clusters describe ");
        if (clusters === undefined) return; // no bash here
        assert.equal(clusters, "blue green");
        assert.equal(
          await complete(box, env, "corral clusters scale g"),
          "green",
        );
        assert.equal(
          await complete(box, env, "corral jobs submit --cluster b"),
          "blue",
        );
        assert.equal(
          await complete(box, env, "corral clusters create x --template "),
          "small",
        );
        assert.equal(
          await complete(box, env, "corral templates get "),
          "small",
        );
        assert.equal(
          await complete(box, env, "corral -n team-b clusters get "),
          "",
          "the line's namespace is asked (alice may not list team-b)",
        );
        assert.equal(
          await complete(box, {
            ...env,
            CORRAL_SERVER: await refusedUrl(),
          }, "corral clusters get "),
          "",
        );
      },
    );
  } finally {
    await main.stop();
    await box.remove();
  }
});

Deno.test("corral clusters dashboard refuses a cluster that is not ready with Corral's code 9 message", async () => {
  const box = await sandbox();
  const main = await startCorral({
    namespace: "team-a",
    args: [
      "--orchestrator",
      "embedded",
      ...FREE_PORTS,
      "--operator-delay",
      "1h",
      ...ANONYMOUS,
      ...NO_SHUTDOWN_DELAY,
    ],
  });
  const env = {
    CORRAL_SERVER: main.http,
    CORRAL_NAMESPACE: "team-a",
    USER: "ada",
  };
  try {
    const created = await box.run(
      [
        "clusters",
        "create",
        "blue",
        "--template",
        "small",
        "--version",
        "2.9.0",
      ],
      { env },
    );
    assert.equal(created.code, 0, created.stderr);
    const result = await box.run(["clusters", "dashboard", "blue"], { env });
    assert.equal(result.code, 1);
    assert.equal(result.stdout, "");
    assert.match(
      result.stderr,
      /^error: .*cluster "team-a\/blue".*the cluster is not ready: its state is/,
    );
    const describe = await box.run(["clusters", "describe", "blue"], { env });
    assert.match(describe.stdout, /^State: +pending$/m);
    assert.match(
      describe.stdout,
      /^Addresses: <none> \(given once the cluster is ready\)$/m,
    );
  } finally {
    await main.stop();
    await box.remove();
  }
});

Deno.test("localLocation() moves Corral's proxy redirects onto the local port", () => {
  const prefix = "/apis/v1alpha2/namespaces/team-a/clusters/blue/dashboard";
  const forwarding = {
    client: {} as CorralClient,
    prefix,
    origin: "http://127.0.0.1:9000",
  };
  const server = "https://corral.example.com";
  const cases: [string, string][] = [
    [`${prefix}/`, "http://127.0.0.1:9000/"],
    [`${prefix}/jobs?x=1`, "http://127.0.0.1:9000/jobs?x=1"],
    [`${server}${prefix}/a`, "http://127.0.0.1:9000/a"],
    [prefix, "http://127.0.0.1:9000/"],
    [
      "/apis/v1alpha2/namespaces/team-a/clusters/bluex/",
      "/apis/v1alpha2/namespaces/team-a/clusters/bluex/",
    ],
    ["https://elsewhere.example/", "https://elsewhere.example/"],
  ];
  for (const [location, want] of cases) {
    assert.equal(localLocation(location, forwarding, server), want, location);
  }
});
