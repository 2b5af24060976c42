/**
 * The Kubernetes API stand-in in a process of its own, for the tests of an
 * API server that dies: kill() ends it as a crash does (SIGKILL: its
 * connections are cut by the kernel, no watch ends cleanly), stop() as a
 * shutdown does (SIGTERM: its watches end cleanly, then it exits), and a
 * new one started on the same port starts empty, as an API server whose
 * etcd lost its data comes back with nothing and its resource versions
 * counting from the start again.
 *
 * Run as a program (this module is its own entry point) it starts the
 * stand-in on `--port` and prints one JSON line, `{"url": ..., "port":
 * ...}`, once it listens.
 */
import { startStandin } from "../standin/mod.ts";

export interface StandinProcess {
  /** "http://127.0.0.1:PORT" */
  readonly url: string;
  readonly port: number;
  /** Kills the process (SIGKILL) and waits for its end. */
  kill(): Promise<void>;
  /**
   * Stops the process (SIGTERM: its watches end cleanly) and waits for
   * its end.
   */
  stop(): Promise<void>;
}

/** Starts a stand-in process on `port` (0: a free one); resolves once it listens. */
export async function startStandinProcess(
  port = 0,
): Promise<StandinProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      "--allow-read",
      "--allow-env",
      new URL(import.meta.url).pathname,
      "--port",
      String(port),
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await lines.read();
    if (done) {
      await child.status;
      throw new Error(`the stand-in process ended before it listened`);
    }
    text += value;
  }
  // The rest of its output is read and dropped: a full pipe never blocks it.
  const draining = (async () => {
    while (!(await lines.read()).done) { /* dropped */ }
  })();
  const started = JSON.parse(text.slice(0, text.indexOf("\n")));
  let ended: Promise<void> | undefined;
  const end = (signal: Deno.Signal) =>
    ended ??= (async () => {
      try {
        child.kill(signal);
      } catch {
        // ended already
      }
      await child.status;
      await draining;
    })();
  return {
    url: started.url,
    port: started.port,
    kill: () => end("SIGKILL"),
    stop: () => end("SIGTERM"),
  };
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--port");
  const port = at < 0 ? 0 : Number(Deno.args[at + 1]);
  const standin = startStandin({ hostname: "127.0.0.1", port });
  Deno.addSignalListener("SIGTERM", async () => {
    await standin.close();
    Deno.exit(0);
  });
  console.log(JSON.stringify({ url: standin.url, port: standin.port }));
}
