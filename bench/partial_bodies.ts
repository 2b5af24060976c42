/**
 * The partial-body attack: CONNECTIONS clients each send the headers of a
 * 3 MiB request and most of its body, then wait. Starts main.ts (embedded,
 * on free loopback ports), reports the peak and current resident set of
 * the process (VmHWM, VmRSS from /proc) while they wait and after they go,
 * and what the clients were answered.
 *
 * Flags after `--` go to main.ts (e.g. --body-timeout=3s); the clients
 * wait WAIT_MS (5000) before the figures are taken.
 *
 *   deno run -A bench/partial_bodies.ts [path/to/main.ts] [connections] [-- flags]
 */
const split = Deno.args.indexOf("--");
const args = split < 0 ? Deno.args : Deno.args.slice(0, split);
const flags = split < 0 ? [] : Deno.args.slice(split + 1);
const main = args[0] ?? new URL("../main.ts", import.meta.url).pathname;
const connections = Number(args[1] ?? 150);
const waitMs = Number(Deno.env.get("WAIT_MS") ?? 5_000);
const size = 3 * 1024 * 1024;
const sent = size - 64 * 1024;

const child = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "-A",
    main,
    "--orchestrator=embedded",
    "--host=127.0.0.1",
    "--http-port=0",
    "--grpc-port=0",
    ...flags,
  ],
  stderr: "piped",
  stdout: "null",
}).spawn();
const port = await new Promise<number>((resolve, reject) => {
  let text = "";
  const decoder = new TextDecoder();
  child.stderr.pipeTo(
    new WritableStream({
      write(chunk) {
        text += decoder.decode(chunk);
        const line = text.split("\n").find((l) => l.includes("Corral started"));
        if (line) resolve(JSON.parse(line).httpPort);
      },
      close() {
        reject(new Error(`main.ts ended: ${text}`));
      },
    }),
  ).catch(() => {});
});

function memory(): { peakMiB: number; rssMiB: number } {
  const status = Deno.readTextFileSync(`/proc/${child.pid}/status`);
  const kb = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)![1]);
  return {
    peakMiB: Math.round(kb("VmHWM") / 1024),
    rssMiB: Math.round(kb("VmRSS") / 1024),
  };
}

const idle = memory();
const answers = new Map<string, number>();
const body = new Uint8Array(sent).fill(0x20);
const head = new TextEncoder().encode(
  `POST /apis/v1alpha2/namespaces/default/clusters HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
);
const conns = await Promise.all(
  Array.from({ length: connections }, async () => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    (async () => {
      try {
        await conn.write(head);
        let offset = 0;
        while (offset < body.length) {
          offset += await conn.write(body.subarray(offset));
        }
      } catch {
        // refused and closed by the server
      }
    })();
    return conn;
  }),
);
// What each connection was answered, if anything, within the wait.
const reads = conns.map(async (conn) => {
  const buffer = new Uint8Array(4096);
  try {
    const n = await conn.read(buffer);
    const status = n === null
      ? "closed"
      : new TextDecoder().decode(buffer.subarray(0, n)).split(" ")[1];
    answers.set(status, (answers.get(status) ?? 0) + 1);
  } catch {
    answers.set("reset", (answers.get("reset") ?? 0) + 1);
  }
});
await new Promise((r) => setTimeout(r, waitMs));
const attacked = memory();
// Still open: neither answered nor closed by the server while they waited.
const stillOpen = connections -
  [...answers.values()].reduce((a, b) => a + b, 0);
for (const conn of conns) {
  try {
    conn.close();
  } catch {
    // closed
  }
}
await Promise.allSettled(reads);
await new Promise((r) => setTimeout(r, 5_000));
const after = memory();
child.kill("SIGKILL");
await child.status;
console.log(JSON.stringify({
  connections,
  idleRssMiB: idle.rssMiB,
  peakRssMiB: attacked.peakMiB,
  rssWhileWaitingMiB: attacked.rssMiB,
  rssAfterMiB: after.rssMiB,
  answered: Object.fromEntries(answers),
  stillOpenAfterWait: stillOpen,
}));
