/**
 * `corral clusters connect NAME`: a cluster's Ray client port on a local
 * port, so that `ray.init("ray://127.0.0.1:10001")` on this machine
 * reaches the cluster. A listener on 127.0.0.1 turns every connection it
 * accepts into one WebSocket to Corral (`.../clusters/NAME/client`), with
 * the command's token, CA and client certificate, whose binary messages
 * carry the connection's bytes both ways; until Ctrl-C.
 *
 * Corral is asked once before anything listens (a GET without the
 * upgrade), so that a cluster that is not ready, missing, or not the
 * caller's to proxy is refused at once, in the API's words.
 */
import { onePositional, type ParsedArgs, wholeNumber } from "./args.ts";
import type { CorralClient } from "./client.ts";
import { type Command, withClient } from "./command.ts";
import { EXIT_OK, UsageError } from "./errors.ts";

/** The Ray client server's port, which `ray.init` users expect locally too. */
const DEFAULT_PORT = 10001;

/** The cluster's client tunnel path on Corral. */
export function clientPath(namespace: string, name: string): string {
  return `/apis/v1alpha2/namespaces/${encodeURIComponent(namespace)}/clusters/${
    encodeURIComponent(name)
  }/client`;
}

/** Asks Corral once whether the tunnel would be opened: 204, or its error. */
async function checkReachable(
  client: CorralClient,
  path: string,
): Promise<void> {
  const answer = await client.forward(path, {
    method: "GET",
    headers: new Headers({ accept: "application/json" }),
  });
  const text = await answer.text();
  if (!answer.ok) throw client.errorOf(answer.status, text);
}

/** Listens on 127.0.0.1:`port`; a taken port names --port. */
function listen(port: number): Deno.TcpListener {
  try {
    return Deno.listen({ hostname: "127.0.0.1", port });
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) {
      throw new UsageError(
        `port ${port} on 127.0.0.1 is taken: pass another --port (0 picks a free one)`,
      );
    }
    throw error;
  }
}

/**
 * Joins a local connection to a WebSocket through Corral: what is read
 * from one is written to the other, until either ends. Resolves once both
 * are closed; `refused` is told of a WebSocket that did not open.
 */
export async function splice(
  conn: Deno.Conn,
  socket: WebSocket,
  refused: () => Promise<void>,
): Promise<void> {
  socket.binaryType = "arraybuffer";
  const opened = await new Promise<boolean>((resolve) => {
    socket.onopen = () => resolve(true);
    socket.onerror = () => resolve(false);
  });
  if (!opened) {
    conn.close();
    await refused();
    return;
  }
  const closed = Promise.withResolvers<void>();
  let writes = Promise.resolve();
  let connClosed = false;
  const closeConn = () => {
    if (connClosed) return;
    connClosed = true;
    // After what was received has been written.
    writes = writes.then(() => conn.close()).catch(() => {});
  };
  socket.onmessage = (event) => {
    const bytes = new Uint8Array(event.data as ArrayBuffer);
    writes = writes.then(() => writeAll(conn, bytes)).catch(() => {
      socket.close();
    });
  };
  socket.onclose = () => {
    closeConn();
    writes.then(() => closed.resolve());
  };
  socket.onerror = () => {};
  try {
    for await (const chunk of conn.readable) {
      if (socket.readyState !== WebSocket.OPEN) break;
      socket.send(chunk);
    }
  } catch {
    // the local side reset: the tunnel closes as after its end
  }
  if (socket.readyState === WebSocket.OPEN) socket.close(1000);
  await closed.promise;
}

/**
 * A WebSocket that did not open says nothing of why: Corral is asked
 * again, and its error printed.
 */
async function sayWhyRefused(
  client: CorralClient,
  path: string,
): Promise<void> {
  const start = "Cannot open the tunnel of a local connection";
  try {
    await checkReachable(client, path);
    console.error(`${start}: Corral did not accept the WebSocket`);
  } catch (error) {
    console.error(`${start}: ${(error as Error).message}`);
  }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    written += await conn.write(bytes.subarray(written));
  }
}

/** Forwards the cluster's client port to a local one until SIGINT. */
async function connectCommand(
  { values, positionals }: ParsedArgs,
): Promise<number> {
  const name = onePositional(positionals, "a cluster name", USAGE);
  const port = wholeNumber(values, "port") ?? DEFAULT_PORT;
  if (port > 65535) throw new UsageError(`--port ${port} is not a port`);
  return await withClient(values, async (client, connection) => {
    const path = clientPath(connection.namespace, name);
    await checkReachable(client, path);
    const listener = listen(port);
    const address = `ray://127.0.0.1:${listener.addr.port}`;
    const server = connection.server.replace(/\/+$/, "");
    console.log(
      `Ray client of cluster ${connection.namespace}/${name}: ${address}`,
    );
    console.log(`  ray.init("${address}")`);
    console.log(`Forwarding through ${server}${path} (Ctrl-C to stop)`);
    const open = new Set<Promise<void>>();
    const conns = new Set<Deno.Conn>();
    const accepting = (async () => {
      try {
        for await (const conn of listener) {
          conns.add(conn);
          const spliced = splice(
            conn,
            client.webSocket(path),
            () => sayWhyRefused(client, path),
          ).finally(() => {
            conns.delete(conn);
            open.delete(spliced);
          });
          open.add(spliced);
        }
      } catch {
        // the listener closed
      }
    })();
    const stopped = Promise.withResolvers<void>();
    const stop = () => stopped.resolve();
    Deno.addSignalListener("SIGINT", stop);
    await stopped.promise;
    Deno.removeSignalListener("SIGINT", stop);
    listener.close();
    await accepting;
    for (const conn of conns) {
      try {
        conn.close();
      } catch {
        // closed already
      }
    }
    await Promise.all(open);
    return EXIT_OK;
  });
}

const USAGE = "clusters connect NAME [-n NS] [--port N]";

/** The command, as `clusters` lists it. */
export const CONNECT_COMMAND: Command = {
  name: "connect",
  completeNames: "clusters",
  summary:
    "forward a local port to a ready cluster's Ray client (ray://), until Ctrl-C",
  usage: USAGE,
  flags: {
    port: {
      type: "string",
      value: "N",
      help:
        `local port on 127.0.0.1 (default ${DEFAULT_PORT}; 0 picks a free one)`,
    },
  },
  examples: ["corral clusters connect blue -n team-a --port 10001"],
  run: connectCommand,
};
