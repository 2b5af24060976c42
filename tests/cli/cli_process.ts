/**
 * The command line as its users run it, for the tests of tests/cli/: a
 * `deno run` of cli/main.ts in a process of its own, against a dev-mode
 * Corral started by tests/main_process.ts, with CORRAL_CONFIG in a
 * temporary directory so the user's own config is never read or written.
 */
import assert from "node:assert/strict";
import {
  ANONYMOUS,
  DEV_PERMISSIONS,
  EMBEDDED,
  type MainProcess,
  NO_SHUTDOWN_DELAY,
  startMain,
} from "../main_process.ts";

/** cli/main.ts's path, as `deno run` takes it. */
export const CLI = new URL("../../cli/main.ts", import.meta.url).pathname;
/** The repository, where `deno run` finds deno.json and its lockfile. */
const ROOT = new URL("../../", import.meta.url).pathname;

/** What `deno task cli` grants. */
export const CLI_PERMISSIONS = [
  "--allow-net",
  "--allow-read",
  "--allow-env",
  "--allow-write",
];

/** The environment variables a test must not inherit from whoever runs it. */
const CORRAL_VARIABLES = [
  "CORRAL_SERVER",
  "CORRAL_TOKEN",
  "CORRAL_CA",
  "CORRAL_NAMESPACE",
  "CORRAL_CLIENT_CERT",
  "CORRAL_CLIENT_KEY",
];

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Added to the environment (CORRAL_CONFIG is the sandbox's). */
  env?: Record<string, string>;
  /** Standard input's text; none (null) by default. */
  stdin?: string;
}

/** A place for the command line's config file, removed by `remove()`. */
export interface Sandbox {
  dir: string;
  /** The config file's path, given as CORRAL_CONFIG. */
  config: string;
  /** Runs `corral <args>` to its end. */
  run(args: string[], options?: CliOptions): Promise<CliResult>;
  /** Starts `corral <args>`; its output is collected as it comes. */
  spawn(args: string[], options?: CliOptions): RunningCli;
  remove(): Promise<void>;
}

export interface RunningCli {
  /** Standard output so far. */
  stdout(): string;
  /** Resolves once standard output holds a line that `test` accepts. */
  line(test: (line: string) => boolean): Promise<string>;
  /** Sends `signal` and resolves with how it ended. */
  stop(signal?: Deno.Signal): Promise<CliResult>;
  /** Resolves with how it ended, by itself. */
  done: Promise<CliResult>;
}

function command(
  sandbox: string,
  args: string[],
  options: CliOptions,
  stdin: "piped" | "null",
): Deno.Command {
  const env: Record<string, string> = {
    CORRAL_CONFIG: `${sandbox}/config.yaml`,
    ...options.env,
  };
  for (const name of CORRAL_VARIABLES) {
    if (!(name in env) && Deno.env.get(name) !== undefined) env[name] = "";
  }
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...CLI_PERMISSIONS, CLI, ...args],
    cwd: ROOT,
    env,
    stdin,
    stdout: "piped",
    stderr: "piped",
  });
}

/** A new sandbox in a temporary directory. */
export async function sandbox(): Promise<Sandbox> {
  const dir = await Deno.makeTempDir({ prefix: "corral-cli-" });
  const decoder = new TextDecoder();
  return {
    dir,
    config: `${dir}/config.yaml`,
    async run(args, options = {}) {
      const child = command(
        dir,
        args,
        options,
        options.stdin === undefined ? "null" : "piped",
      ).spawn();
      if (options.stdin !== undefined) {
        const writer = child.stdin.getWriter();
        await writer.write(new TextEncoder().encode(options.stdin));
        await writer.close();
      }
      const output = await child.output();
      return {
        code: output.code,
        stdout: decoder.decode(output.stdout),
        stderr: decoder.decode(output.stderr),
      };
    },
    spawn(args, options = {}) {
      const child = command(dir, args, options, "null").spawn();
      let stdout = "";
      const waiters: (() => void)[] = [];
      const reading = (async () => {
        for await (
          const text of child.stdout.pipeThrough(new TextDecoderStream())
        ) {
          stdout += text;
          waiters.splice(0).forEach((wake) => wake());
        }
      })();
      const stderr = new Response(child.stderr).text();
      const done = (async () => {
        const status = await child.status;
        await reading;
        waiters.splice(0).forEach((wake) => wake());
        return { code: status.code, stdout, stderr: await stderr };
      })();
      let ended = false;
      done.then(() => ended = true);
      return {
        stdout: () => stdout,
        async line(test) {
          for (;;) {
            const found = stdout.split("\n").find(test);
            if (found !== undefined) return found;
            if (ended) {
              throw new Error(`corral ${args.join(" ")} ended:\n${stdout}`);
            }
            await new Promise<void>((wake) => waiters.push(wake));
          }
        },
        async stop(signal = "SIGINT") {
          try {
            child.kill(signal);
          } catch {
            // ended already
          }
          return await done;
        },
        done,
      };
    },
    remove: () => Deno.remove(dir, { recursive: true }),
  };
}

/** A dev-mode Corral with a compute template `small` in `namespace`. */
export async function startCorral(
  options: { args?: string[]; namespace?: string } = {},
): Promise<MainProcess> {
  const main = await startMain({
    permissions: DEV_PERMISSIONS,
    args: options.args ?? [...EMBEDDED, ...ANONYMOUS, ...NO_SHUTDOWN_DELAY],
    startTimeoutMs: 30_000,
  });
  if (options.namespace) {
    const response = await fetch(
      `${main.http}/apis/v1/namespaces/${options.namespace}/compute_templates`,
      {
        method: "POST",
        body: JSON.stringify({ name: "small", cpu: 1, memory: 1 }),
        headers: { "content-type": "application/json" },
      },
    );
    assert.equal(response.status, 200, await response.text());
  }
  return main;
}

/** A cluster of `name` as `clusters create -f` takes it. */
export function clusterFile(name: string, replicas = 1): string {
  return JSON.stringify({
    name,
    user: "ada",
    version: "2.9.0",
    clusterSpec: {
      headGroupSpec: { computeTemplate: "small" },
      workerGroupSpec: [{
        groupName: "workers",
        computeTemplate: "small",
        replicas,
        minReplicas: 0,
        maxReplicas: 8,
      }],
    },
  });
}

/**
 * Asserts that every row's columns start where the header's do, as
 * kubectl's tables: left-aligned, at least three spaces between columns.
 */
export function assertAligned(table: string): string[][] {
  const lines = table.trimEnd().split("\n");
  const header = lines[0];
  const starts = [...header.matchAll(/\S+/g)].map((m) => m.index!);
  for (let i = 1; i < starts.length; i++) {
    const gap = starts[i] -
      (starts[i - 1] + header.slice(starts[i - 1]).split(" ")[0].length);
    assert.ok(
      gap >= 3,
      `header columns ${i - 1} and ${i} ${gap} apart:\n${table}`,
    );
  }
  return lines.map((line) => {
    starts.forEach((start, column) => {
      assert.notEqual(
        line[start] ?? " ",
        " ",
        `column ${column} of ${
          JSON.stringify(line)
        } does not start at ${start}:\n${table}`,
      );
      if (start > 0) {
        assert.equal(
          line.slice(start - 3, start),
          "   ",
          `column ${column} of ${
            JSON.stringify(line)
          } is not 3 spaces past the last:\n${table}`,
        );
      }
    });
    return starts.map((start, column) =>
      line.slice(start, starts[column + 1]).trim()
    );
  });
}
