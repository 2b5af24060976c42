/**
 * The head of an HTTP/1.1 answer read off a connection Corral dialed
 * itself, for the upgrades node's fetch cannot make: the dashboard's
 * WebSockets (api/http/dashboard_tunnel.ts) and the API server's
 * port-forward (port_forward.ts). What follows the head is kept, and the
 * connection is paused until its reader takes it over.
 */
import { Buffer } from "node:buffer";
import type { Duplex } from "node:stream";

/** An answer head larger than this is refused. */
const MAX_HEAD_BYTES = 16 * 1024;

export interface AnswerHead {
  status: number;
  /** By lower-case name. */
  headers: Map<string, string>;
  /** What came after the head. */
  rest: Buffer;
}

/**
 * Reads the answer's head of `socket`; rejects when the head is not
 * HTTP/1.1, too large, the connection closes first, or `signal` aborts.
 * `peer` names the other end in those errors ("the API server").
 */
export function readAnswerHead(
  socket: Duplex,
  signal: AbortSignal,
  peer: string,
): Promise<AnswerHead> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const done = (error?: Error, head?: AnswerHead) => {
      socket.off("data", onData);
      socket.off("error", done);
      socket.off("close", closed);
      signal.removeEventListener("abort", aborted);
      // What follows the head waits for its reader.
      socket.pause();
      if (error) reject(error);
      else resolve(head!);
    };
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) {
        if (buffered.length > MAX_HEAD_BYTES) {
          done(new Error(`${peer}'s answer head is too large`));
        }
        return;
      }
      const head = parseHead(buffered.subarray(0, end).toString("latin1"));
      if (!head) return done(new Error(`${peer}'s answer is not HTTP/1.1`));
      done(undefined, { ...head, rest: buffered.subarray(end + 4) });
    };
    const closed = () => done(new Error(`${peer} closed the connection`));
    const aborted = () => done(signal.reason);
    if (signal.aborted) return aborted();
    socket.on("data", onData);
    socket.once("error", done);
    socket.once("close", closed);
    signal.addEventListener("abort", aborted, { once: true });
  });
}

function parseHead(
  text: string,
): { status: number; headers: Map<string, string> } | undefined {
  const [statusLine, ...lines] = text.split("\r\n");
  const match = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(statusLine);
  if (!match) return undefined;
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    headers.set(
      line.slice(0, colon).trim().toLowerCase(),
      line.slice(colon + 1).trim(),
    );
  }
  return { status: Number(match[1]), headers };
}
