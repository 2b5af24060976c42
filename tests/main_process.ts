/**
 * main.ts as a subprocess, for the tests that need the real composition over
 * sockets: started once its JSON log on stderr says "Corral started" (the
 * line that names the bound ports), its log collected for as long as it
 * runs, stopped with SIGTERM. Or run to its end, for --help and refused
 * flags.
 */

/** main.ts's path, as `deno run` takes it. */
export const MAIN = new URL("../main.ts", import.meta.url).pathname;

/**
 * The kinds of permission the Containerfile's command grants: no
 * --allow-write, no --allow-run. The default.
 */
export const IMAGE_PERMISSIONS = ["--allow-net", "--allow-env", "--allow-read"];

/** Those and --allow-write, as `deno task dev` grants them. */
export const DEV_PERMISSIONS = [...IMAGE_PERMISSIONS, "--allow-write"];

/** Both servers on free ports of 127.0.0.1. */
export const FREE_PORTS = [
  "--host",
  "127.0.0.1",
  "--http-port",
  "0",
  "--grpc-port",
  "0",
];

/**
 * Kubernetes mode keeps serving for a while after SIGTERM, for load
 * balancers to notice; a test has none to wait for.
 */
export const NO_SHUTDOWN_DELAY = ["--shutdown-delay", "0s"];

/**
 * No rate limit and no watch cap: for tests whose load is one caller's by
 * design (many watchers, racing creates), not what fair use is about.
 */
export const NO_FAIR_USE_LIMITS = [
  "--rate-limit",
  "0",
  "--max-watches-per-user",
  "0",
];

/**
 * Kubernetes mode refuses to start without an authenticator; tests that are
 * not about authentication serve every caller as system:anonymous.
 */
export const ANONYMOUS = ["--allow-anonymous"];

/** Embedded mode on free ports, the simulated operator quick. */
export const EMBEDDED = [
  "--orchestrator",
  "embedded",
  ...FREE_PORTS,
  "--operator-delay",
  "300ms",
];

/** How main.ts is run: `deno run <permissions> main.ts <args>`. */
export interface MainCommand {
  /** main.ts's arguments. */
  args?: string[];
  /** `deno run`'s flags before main.ts; IMAGE_PERMISSIONS by default. */
  permissions?: string[];
  /**
   * Every word after `deno`, taken as it is in place of the command line
   * above: a command line under test, such as the Containerfile's.
   */
  denoArgs?: string[];
  cwd?: string | URL;
  /** Added to the environment; with `clearEnv`, the whole of it. */
  env?: Record<string, string>;
  clearEnv?: boolean;
}

export interface StartOptions extends MainCommand {
  /**
   * Kills the process (SIGKILL) if it has not started by then, so that a
   * main.ts that hangs fails the start with its log. No limit by default.
   */
  startTimeoutMs?: number;
  /** What a failed start calls the process; "main.ts" by default. */
  name?: string;
}

/** One line of Corral's JSON log. */
export interface LogRecord {
  msg: string;
  requestId?: string;
  clientRequestId?: string;
  code?: number;
  [field: string]: unknown;
}

export interface MainProcess {
  /** "http://127.0.0.1:PORT" */
  http: string;
  /** "127.0.0.1:PORT" */
  grpc: string;
  /** The "Corral started" line. */
  started: LogRecord;
  /** Every log line so far, as written. */
  logs: string[];
  /** The same lines parsed; a line that is not JSON as `{ msg: line }`. */
  records: LogRecord[];
  /**
   * Sends SIGTERM unless the process has exited; resolves with its exit
   * status once its log is read to the end. Every call gets that status.
   */
  stop(): Promise<Deno.CommandStatus>;
  /** Kills the process at once (SIGKILL): no shutdown, as a crash. */
  kill(): Promise<Deno.CommandStatus>;
}

function denoCommand(
  command: MainCommand,
  stdio: Pick<Deno.CommandOptions, "stdin" | "stdout" | "stderr">,
): Deno.Command {
  const { permissions = IMAGE_PERMISSIONS, args = [] } = command;
  return new Deno.Command(Deno.execPath(), {
    args: command.denoArgs ?? ["run", ...permissions, MAIN, ...args],
    cwd: command.cwd,
    env: command.env,
    clearEnv: command.clearEnv,
    ...stdio,
  });
}

/** Runs main.ts to its end: its exit code, stdout and stderr. */
export function runMain(command: MainCommand): Promise<Deno.CommandOutput> {
  return denoCommand(command, {
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
}

function parse(line: string): LogRecord {
  try {
    return JSON.parse(line);
  } catch {
    return { msg: line };
  }
}

function describe(status: Deno.CommandStatus): string {
  return status.signal
    ? `killed by ${status.signal}`
    : `exit code ${status.code}`;
}

/**
 * Starts main.ts and waits for its "Corral started" line; throws with the
 * log so far if it exits first.
 */
export async function startMain(
  options: StartOptions = {},
): Promise<MainProcess> {
  const child = denoCommand(options, {
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const logs: string[] = [];
  const records: LogRecord[] = [];
  const { promise: startedLine, resolve } = Promise.withResolvers<
    LogRecord | undefined
  >();
  function take(line: string): void {
    if (!line) return;
    const record = parse(line);
    logs.push(line);
    records.push(record);
    if (record.msg === "Corral started") resolve(record);
  }
  // Reads the log to its end, so the child never blocks on a full pipe.
  const reading = (async () => {
    try {
      let buffer = "";
      for await (
        const text of child.stderr.pipeThrough(new TextDecoderStream())
      ) {
        buffer += text;
        const lines = buffer.split("\n");
        buffer = lines.pop()!;
        lines.forEach(take);
      }
      take(buffer);
    } finally {
      resolve(undefined); // no-op once started
    }
  })();
  const timer = options.startTimeoutMs === undefined
    ? undefined
    : setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch {
        // exited already, and so reported below
      }
    }, options.startTimeoutMs);
  const started = await startedLine;
  clearTimeout(timer);
  if (!started) {
    const status = await child.status;
    await reading;
    throw new Error(
      `${options.name ?? "main.ts"} exited before it started (${
        describe(status)
      }):\n${logs.join("\n")}`,
    );
  }
  let stopped: Promise<Deno.CommandStatus> | undefined;
  return {
    http: `http://127.0.0.1:${started.httpPort}`,
    grpc: `127.0.0.1:${started.grpcPort}`,
    started,
    logs,
    records,
    stop() {
      return stopped ??= (async () => {
        try {
          child.kill("SIGTERM");
        } catch {
          // exited already: its status tells how
        }
        const status = await child.status;
        await reading;
        return status;
      })();
    },
    kill() {
      return stopped ??= (async () => {
        try {
          child.kill("SIGKILL");
        } catch {
          // exited already: its status tells how
        }
        const status = await child.status;
        await reading;
        return status;
      })();
    },
  };
}
