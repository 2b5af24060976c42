/**
 * Corral for bench/soak.ts: main.ts in a process of its own (its pid is
 * the one sampled, with no `deno task` in between), with three users'
 * static tokens, its log at info written to a file, on free ports.
 *
 * - kubernetes: as `deno task start` runs it (its V8 flags and kinds of
 *   permission), against the given kubeconfig;
 * - dev: as `deno task dev` runs it, embedded stand-in and operator in the
 *   same process.
 */
import denoJson from "../deno.json" with { type: "json" };
import { freePort } from "./processes.ts";
import type { Caller } from "./soak_workload.ts";

const ROOT = new URL("../", import.meta.url).pathname;

export interface SoakCorralOptions {
  mode: "kubernetes" | "dev";
  /** The stand-in's kubeconfig, in kubernetes mode. */
  kubeconfig?: string;
  /** A directory for the token file and the log. */
  work: string;
  /** Open the V8 inspector on a free port of 127.0.0.1. */
  inspect: boolean;
}

export interface SoakCorral {
  pid: number;
  http: string;
  /** The users, with their bearer tokens. */
  callers: Caller[];
  /** "127.0.0.1:PORT" of the inspector, when asked for. */
  inspect?: string;
  /** The file Corral's log goes to. */
  log: string;
  stop(): Promise<void>;
}

const USERS = ["ada", "grace", "linus"];

/** `deno run`'s flags of a task of deno.json, up to the script. */
function runFlags(task: string): string[] {
  const words = task.split(/\s+/);
  return words.slice(words.indexOf("run") + 1, words.indexOf("main.ts"))
    // The task's quoted --allow-env list, as the shell would pass it.
    .map((word) => word.replace(/^'(.*)'$/, "$1"));
}

/** `main.ts`'s arguments of a task of deno.json. */
function mainArgs(task: string): string[] {
  const words = task.split(/\s+/);
  return words.slice(words.indexOf("main.ts") + 1);
}

/** Starts Corral and waits for /readyz. */
export async function startSoakCorral(
  options: SoakCorralOptions,
): Promise<SoakCorral> {
  const tokens = USERS.map(() =>
    Array.from(crypto.getRandomValues(new Uint8Array(24)))
      .map((b) => b.toString(16).padStart(2, "0")).join("")
  );
  const tokenFile = `${options.work}/tokens.csv`;
  await Deno.writeTextFile(
    tokenFile,
    USERS.map((user, i) => `${tokens[i]},${user},${user},soak`).join("\n"),
  );
  const task = options.mode === "dev"
    ? denoJson.tasks.dev
    : denoJson.tasks.start;
  const inspect = options.inspect ? `127.0.0.1:${freePort()}` : undefined;
  const port = freePort();
  const args = [
    "run",
    // --frozen --cached-only and --ignore-env of the start task are kept;
    // the image's permissions are too narrow for a token file in /tmp.
    ...runFlags(task).filter((flag) => !flag.startsWith("--allow-")),
    "--allow-net",
    "--allow-env",
    "--allow-read",
    "--allow-write",
    ...(inspect ? [`--inspect=${inspect}`] : []),
    "main.ts",
    ...mainArgs(task),
    ...(options.kubeconfig ? ["--kubeconfig", options.kubeconfig] : []),
    "--token-auth-file",
    tokenFile,
    "--shutdown-delay",
    "0s",
    "--host",
    "127.0.0.1",
    "--http-port",
    String(port),
    "--grpc-port",
    String(freePort()),
  ];
  const log = `${options.work}/corral.log`;
  const file = await Deno.open(log, { write: true, create: true });
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const logged = child.stderr.pipeTo(file.writable);
  const http = `http://127.0.0.1:${port}`;
  for (;;) {
    try {
      const ready = await fetch(`${http}/readyz`);
      await ready.body?.cancel();
      if (ready.status === 200) break;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    pid: child.pid,
    http,
    callers: USERS.map((user, i) => ({ user, token: tokens[i] })),
    inspect,
    log,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await logged;
    },
  };
}
