/**
 * main.ts in embedded mode on free ports, as `deno task dev` runs it, for
 * tests that need the real composition (pages, gRPC extras) over sockets.
 */

export interface DevServer {
  /** "http://127.0.0.1:PORT" */
  http: string;
  /** "127.0.0.1:PORT" */
  grpc: string;
  logs: string[];
  stop(): Promise<Deno.CommandStatus>;
}

/**
 * Starts main.ts with the permissions of the Containerfile's command
 * (--allow-net --allow-env --allow-read: no --allow-write, no --allow-run)
 * and waits for its "Corral started" line.
 */
export async function startDevServer(extra: string[] = []): Promise<DevServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      new URL("../../main.ts", import.meta.url).pathname,
      "--orchestrator",
      "embedded",
      "--host",
      "127.0.0.1",
      "--http-port",
      "0",
      "--grpc-port",
      "0",
      "--operator-delay",
      "300ms",
      ...extra,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const logs: string[] = [];
  const lines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const stdoutDone = child.stdout.cancel();
  let buffer = "";
  let started: { httpPort: number; grpcPort: number } | undefined;
  while (!started) {
    const { done, value } = await lines.read();
    if (done) {
      await stdoutDone;
      await child.status;
      throw new Error(`main.ts exited before it started:\n${logs.join("\n")}`);
    }
    buffer += value;
    const parts = buffer.split("\n");
    buffer = parts.pop()!;
    for (const line of parts) {
      logs.push(line);
      if (line.includes('"Corral started"')) started = JSON.parse(line);
    }
  }
  // Keep draining the log so the child never blocks on a full pipe.
  const drained = (async () => {
    for (;;) {
      const { done, value } = await lines.read();
      if (done) break;
      logs.push(...value.split("\n").filter(Boolean));
    }
  })();
  return {
    http: `http://127.0.0.1:${started.httpPort}`,
    grpc: `127.0.0.1:${started.grpcPort}`,
    logs,
    async stop() {
      child.kill("SIGTERM");
      const status = await child.status;
      await drained;
      await stdoutDone;
      return status;
    },
  };
}
