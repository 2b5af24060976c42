/**
 * The Containerfile, checked where no container engine runs: its final
 * command line is `deno task start`'s word for word, its permission flags are
 * narrow, it copies everything main.ts loads, and that exact command line
 * (the same permission flags, nothing added) runs Corral here in kubernetes
 * mode against the Kubernetes API stand-in: a create/get/list/delete round
 * trip over HTTP, then exit 0 on SIGTERM.
 */
import assert from "node:assert/strict";
import { VENDORED } from "../tools/third_party.ts";
import { kubeconfigFor, type Standin, startStandin } from "../standin/mod.ts";
import { sampleCluster } from "./api/cases.ts";
import { moduleGraph } from "./module_graph.ts";
import { type MainProcess, runMain, startMain } from "./main_process.ts";

const ROOT = new URL("../", import.meta.url);

interface Instruction {
  keyword: string;
  args: string;
}

/** The Containerfile's instructions, continuation lines joined. */
function instructions(text: string): Instruction[] {
  const result: Instruction[] = [];
  let pending = "";
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (pending === "" && (trimmed === "" || trimmed.startsWith("#"))) {
      continue;
    }
    if (trimmed.startsWith("#")) continue; // a comment inside a continuation
    if (trimmed.endsWith("\\")) {
      pending += trimmed.slice(0, -1) + " ";
      continue;
    }
    const whole = pending + trimmed;
    pending = "";
    const match = /^(\w+)\s+(.*)$/s.exec(whole);
    assert.ok(match, `Cannot parse Containerfile line: ${whole}`);
    result.push({ keyword: match[1].toUpperCase(), args: match[2].trim() });
  }
  return result;
}

/** An exec-form (JSON array) instruction's words. */
function execForm(instruction: Instruction): string[] {
  assert.ok(
    instruction.args.startsWith("["),
    `${instruction.keyword} must be in exec form (a JSON array), so signals reach Deno: ${instruction.args}`,
  );
  return JSON.parse(instruction.args);
}

/** A `deno task` command line split into words, as its shell does. */
function words(command: string): string[] {
  const result: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (/\s/.test(c)) {
      if (word !== undefined) result.push(word);
      word = undefined;
    } else if (c === "'" || c === '"') {
      const end = command.indexOf(c, i + 1);
      assert.ok(end > i, `Unterminated quote in: ${command}`);
      word = (word ?? "") + command.slice(i + 1, end);
      i = end;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== undefined) result.push(word);
  return result;
}

async function readContainerfile(): Promise<Instruction[]> {
  return instructions(
    await Deno.readTextFile(new URL("Containerfile", ROOT)),
  );
}

/** The image's command line: its last ENTRYPOINT followed by its last CMD. */
async function imageCommand(): Promise<string[]> {
  const all = await readContainerfile();
  const entrypoint = all.findLast((i) => i.keyword === "ENTRYPOINT");
  const cmd = all.findLast((i) => i.keyword === "CMD");
  assert.ok(entrypoint, "the Containerfile has an ENTRYPOINT");
  return [...execForm(entrypoint), ...(cmd ? execForm(cmd) : [])];
}

async function startTask(): Promise<string[]> {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", ROOT)),
  );
  const task = config.tasks.start;
  return words(typeof task === "string" ? task : task.command);
}

/** The deno flags of a `deno run ... main.ts ...` command line. */
function denoFlags(command: string[]): string[] {
  assert.deepEqual(command.slice(0, 2), ["deno", "run"]);
  const script = command.indexOf("main.ts");
  assert.ok(script > 1, `the command runs main.ts: ${command.join(" ")}`);
  return command.slice(2, script);
}

/** The values of `--flag=a,b`, or undefined without the flag. */
function listOf(flags: string[], flag: string): string[] | undefined {
  const found = flags.find((f) => f === flag || f.startsWith(`${flag}=`));
  if (found === undefined) return undefined;
  return found === flag ? [] : found.slice(flag.length + 1).split(",");
}

Deno.test("the Containerfile's command line is `deno task start`'s, word for word", async () => {
  assert.deepEqual(await imageCommand(), await startTask());
});

Deno.test("the Containerfile pins the Deno the tests run with and runs unprivileged", async () => {
  const all = await readContainerfile();
  const from = all.filter((i) => i.keyword === "FROM").at(-1)!.args;
  const match =
    /^denoland\/deno:(?:debian-)?(\d+\.\d+\.\d+)(?:@sha256:[0-9a-f]{64})?$/
      .exec(from);
  assert.ok(match, `FROM pins a denoland/deno version: ${from}`);
  assert.equal(match[1], Deno.version.deno, "the image's Deno is the tests'");

  const user = all.findLast((i) => i.keyword === "USER")?.args ?? "";
  const uid = /^(\d+)(?::\d+)?$/.exec(user)?.[1];
  assert.ok(
    uid && Number(uid) !== 0,
    `USER is a numeric non-root uid: ${user}`,
  );

  const exposed = all.filter((i) => i.keyword === "EXPOSE").flatMap((i) =>
    i.args.split(/\s+/)
  );
  assert.deepEqual(exposed.sort(), ["8887", "8888"]);

  const runs = all.filter((i) => i.keyword === "RUN").map((i) => i.args);
  assert.ok(
    runs.some((r) => /deno install --frozen/.test(r)),
    "dependencies are installed from the frozen lockfile at build time",
  );
});

Deno.test("the image's permission flags are narrow: no -A, listed env and read, nothing else", async () => {
  const flags = denoFlags(await imageCommand());
  for (const broad of ["-A", "--allow-all"]) {
    assert.ok(!flags.includes(broad), `no ${broad}`);
  }
  const granted = flags.filter((f) => /^--allow-/.test(f)).map((f) =>
    f.split("=")[0]
  ).sort();
  assert.deepEqual(granted, ["--allow-env", "--allow-net", "--allow-read"]);
  const env = listOf(flags, "--allow-env")!;
  const read = listOf(flags, "--allow-read")!;
  assert.ok(env.length > 0, "--allow-env lists its variables");
  assert.ok(read.length > 0, "--allow-read lists its paths");
  for (const flag of ["--frozen", "--cached-only", "--no-prompt"]) {
    assert.ok(flags.includes(flag), `the command has ${flag}`);
  }

  // Every setting main.ts reads from the environment is allowed.
  const help = await runMain({
    denoArgs: ["run", ...flags, "main.ts", "--help"],
    cwd: ROOT,
  });
  assert.equal(help.code, 0, new TextDecoder().decode(help.stderr));
  const settings = [
    ...new TextDecoder().decode(help.stdout).matchAll(/\benv (\w+)/g),
  ].map((m) => m[1]);
  assert.ok(settings.includes("CORRAL_NAMESPACES"), settings.join(" "));
  const allowed = (name: string) =>
    env.some((pattern) =>
      pattern.endsWith("*")
        ? name.startsWith(pattern.slice(0, -1))
        : name === pattern
    );
  for (const name of settings) {
    assert.ok(allowed(name), `--allow-env allows ${name}`);
  }
  for (const name of ["KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"]) {
    assert.ok(allowed(name), `--allow-env allows ${name} (in-cluster config)`);
  }
  assert.ok(
    read.includes("/var/run/secrets/kubernetes.io/serviceaccount"),
    "--allow-read reaches the service account token",
  );
});

Deno.test("the Containerfile copies every module main.ts loads, the API definition and third_party/, and not the stand-in", async () => {
  const all = await readContainerfile();
  const sources = all.filter((i) => i.keyword === "COPY").flatMap((i) => {
    const parts = i.args.split(/\s+/).filter((p) => !p.startsWith("--"));
    return parts.slice(0, -1);
  });
  const copied = (path: string) =>
    sources.some((s) =>
      s.endsWith("/") ? path.startsWith(s) : path === s || s === "."
    );
  // What main.ts loads: its static imports. The stand-in, which it imports
  // dynamically in embedded mode only, stays out of the image.
  const local = (await moduleGraph("main.ts")).static;
  assert.ok(local.includes("main.ts"), local.join(" "));
  const protos = [...Deno.readDirSync(new URL("proto/", ROOT))].map((e) =>
    `proto/${e.name}`
  );
  // The files the service reads at start-up: third_party/ and the console.
  const thirdParty = [
    ...VENDORED.flatMap(({ files }) => Object.values(files)),
    ...[...Deno.readDirSync(new URL("api/console/", ROOT))].map((e) =>
      `api/console/${e.name}`
    ),
  ];
  // .dockerignore keeps node_modules and the like out of the build context,
  // and must not keep out anything copied.
  const ignored = (await Deno.readTextFile(new URL(".dockerignore", ROOT)))
    .split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
  assert.ok(ignored.includes("node_modules"), "node_modules is ignored");
  const isIgnored = (path: string) =>
    ignored.some((pattern) =>
      pattern.startsWith("*")
        ? path.endsWith(pattern.slice(1))
        : path === pattern || path.startsWith(`${pattern}/`)
    );
  for (
    const path of [...local, ...protos, ...thirdParty, "deno.json", "deno.lock"]
  ) {
    assert.ok(copied(path), `the Containerfile copies ${path}`);
    assert.ok(!isIgnored(path), `.dockerignore keeps ${path} in the context`);
  }
  assert.ok(!copied("standin/mod.ts"), "the Containerfile leaves standin/ out");
  assert.ok(isIgnored("standin/mod.ts"), ".dockerignore keeps standin/ out");
});

/**
 * The image's command line, run here: the same words after `deno`, with
 * `extra` flags appended as Deployment args would be, in the repository (the
 * image's /app), with only the environment given.
 */
async function runImageCommand(
  extra: string[],
  env: Record<string, string>,
): Promise<MainProcess> {
  const command = await imageCommand();
  // No load balancer waits for these: they stop at once on SIGTERM.
  const passed: Record<string, string> = {
    NO_COLOR: "1",
    CORRAL_SHUTDOWN_DELAY: "0s",
    // Not about authentication: every caller is system:anonymous.
    CORRAL_ALLOW_ANONYMOUS: "true",
  };
  // Where this machine's Deno keeps its cache (the image's DENO_DIR).
  for (const name of ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) passed[name] = value;
  }
  return startMain({
    denoArgs: [...command.slice(1), ...extra],
    cwd: ROOT,
    clearEnv: true,
    env: { ...passed, ...env },
    name: "The image's command",
  });
}

async function send(
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text.startsWith("{") ? JSON.parse(text) : { text },
  };
}

Deno.test("the image's exact command line serves a round trip against the stand-in and exits 0 on SIGTERM", async (t) => {
  const standin: Standin = await startStandin({
    hostname: "127.0.0.1",
    port: 0,
  });
  // --allow-read=. reaches a kubeconfig in the working directory (the
  // image's /app); *.kubeconfig is git-ignored.
  const kubeconfig = await Deno.makeTempFile({
    dir: ROOT.pathname,
    prefix: ".containerfile-test-",
    suffix: ".kubeconfig",
  });
  let corral: MainProcess | undefined;
  try {
    await Deno.writeTextFile(kubeconfig, kubeconfigFor(standin.url));
    corral = await runImageCommand(
      ["--kubeconfig", kubeconfig, "--host", "127.0.0.1"].concat(
        ["--http-port", "0", "--grpc-port", "0"],
      ),
      // Read through --allow-env=CORRAL_*: team-c must be refused.
      { CORRAL_NAMESPACES: "team-a,team-b" },
    );
    const api = corral.http;
    const ns = `${api}/apis/v1alpha2/namespaces/team-a/clusters`;
    const templates = `${api}/apis/v1/namespaces/team-a/compute_templates`;

    await t.step("it runs in kubernetes mode on the stand-in", () => {
      assert.equal(corral!.started.mode, "kubernetes");
      assert.equal(corral!.started.server, standin.url);
    });

    await t.step("create: a compute template and a cluster", async () => {
      const template = await send("POST", templates, {
        name: "small",
        namespace: "team-a",
        cpu: 2,
        memory: 4,
      });
      assert.equal(template.status, 200, JSON.stringify(template.body));
      const cluster = await send("POST", ns, sampleCluster());
      assert.equal(cluster.status, 200, JSON.stringify(cluster.body));
    });

    await t.step("get and list: the cluster reads back", async () => {
      const got = await send("GET", `${ns}/blue`);
      assert.equal(got.status, 200, JSON.stringify(got.body));
      assert.equal(got.body.name, "blue");
      for (const url of [ns, `${api}/apis/v1alpha2/clusters`]) {
        const list = await send("GET", url);
        assert.equal(list.status, 200, JSON.stringify(list.body));
        assert.deepEqual(
          (list.body.clusters as { name: string }[]).map((c) => c.name),
          ["blue"],
          url,
        );
      }
    });

    await t.step("CORRAL_NAMESPACES applies: team-c gets 403", async () => {
      const other = await send(
        "GET",
        `${api}/apis/v1alpha2/namespaces/team-c/clusters`,
      );
      assert.equal(other.status, 403, JSON.stringify(other.body));
      assert.equal(other.body.code, 7);
    });

    await t.step("health, readiness and the docs page answer", async () => {
      for (const path of ["/healthz", "/readyz", "/docs", "/openapi.json"]) {
        const response = await fetch(api + path);
        await response.body?.cancel();
        assert.equal(response.status, 200, path);
      }
    });

    await t.step(
      "/metrics shows the process's CPU and start time and the build",
      async () => {
        const response = await fetch(api + "/metrics");
        const text = await response.text();
        assert.equal(response.status, 200);
        assert.match(text, /^process_cpu_seconds_total \d/m);
        assert.match(text, /^process_start_time_seconds \d+$/m);
        assert.match(
          text,
          /^corral_build_info\{version="[^"]+",runtime="deno \d+\.\d+\.\d+"\} 1$/m,
        );
        assert.match(text, /^corral_requests_total\{transport="http"/m);
      },
    );

    await t.step(
      "delete: the cluster, then it is gone; the template",
      async () => {
        assert.equal((await send("DELETE", `${ns}/blue`)).status, 200);
        assert.equal((await send("GET", `${ns}/blue`)).status, 404);
        assert.equal((await send("DELETE", `${templates}/small`)).status, 200);
      },
    );

    await t.step(
      "SIGTERM: exit code 0, and no permission was missing",
      async () => {
        const running = corral!;
        corral = undefined;
        const status = await running.stop();
        const logs = running.logs.join("\n");
        assert.equal(status.code, 0, `exit code; logs:\n${logs}`);
        assert.doesNotMatch(logs, /NotCapable|Requires \w+ access/);
      },
    );
  } finally {
    await corral?.stop();
    await Deno.remove(kubeconfig);
    await standin.close();
  }
});

Deno.test("the image's exact command line takes the in-cluster API address from KUBERNETES_SERVICE_HOST/PORT", async () => {
  const corral = await runImageCommand(
    ["--host", "127.0.0.1", "--http-port", "0", "--grpc-port", "0"],
    { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: "6443" },
  );
  const status = await corral.stop();
  assert.equal(corral.started.server, "https://127.0.0.1:6443");
  assert.equal(status.code, 0, corral.logs.join("\n"));
  assert.doesNotMatch(corral.logs.join("\n"), /NotCapable|Requires \w+ access/);
});
