/**
 * `GET /api/v1/namespaces/{ns}/pods/{name}/portforward?ports=P`, the
 * WebSocket form of port forwarding (subprotocol `v4.channel.k8s.io`), as
 * the API server passes it to the kubelet: for the one port asked, channel
 * 0 carries its data and channel 1 its errors, each message starting with
 * its channel's number, and each channel's first message the port's number
 * (two bytes, little-endian). A connection that cannot be made is an error
 * on channel 1, then the close.
 *
 * The stand-in runs no containers: a pod's port is what its annotation
 * `corral.dev/simulated-port-{P}` names, a 127.0.0.1 port where a test
 * runs a server standing in for the container's. Refusals are the API
 * server's: a pod that is not running (400), no `ports` or more than one
 * (400), and an upgrade that is not a WebSocket of that subprotocol (400).
 */

import { isRecord } from "./json.ts";
import { badRequest } from "./status.ts";
import type { ReadSubresource } from "./types.ts";
import { getOrNotFound } from "./verbs.ts";

/** The prefix of the annotation naming a pod port's local stand-in. */
export const SIMULATED_POD_PORT_ANNOTATION_PREFIX =
  "corral.dev/simulated-port-";

const PROTOCOL = "v4.channel.k8s.io";

/** Two bytes, little-endian: what each channel starts with. */
function portPrefix(channel: number, port: number): Uint8Array {
  return Uint8Array.of(channel, port & 0xff, port >> 8);
}

export const POD_PORT_FORWARD: ReadSubresource = {
  get(state, url, target, request) {
    const { resource, namespace, name } = target;
    const pod = getOrNotFound(state, resource, namespace, name);
    const phase = isRecord(pod.status) ? pod.status.phase : undefined;
    if (phase !== "Running") {
      throw badRequest(
        `unable to upgrade connection: pod ${name} is not running`,
      );
    }
    const ports = url.searchParams.getAll("ports").flatMap((p) => p.split(","));
    const port = Number(ports[0]);
    if (ports.length !== 1 || !Number.isInteger(port) || port <= 0) {
      throw badRequest("unable to upgrade connection: one port is served");
    }
    const offered = (request.headers.get("sec-websocket-protocol") ?? "")
      .split(",").map((p) => p.trim());
    if (
      request.headers.get("upgrade")?.toLowerCase() !== "websocket" ||
      !offered.includes(PROTOCOL)
    ) {
      throw badRequest(
        `unable to upgrade connection: a WebSocket of ${PROTOCOL} is served`,
      );
    }
    const local = Number(
      pod.metadata.annotations
        ?.[`${SIMULATED_POD_PORT_ANNOTATION_PREFIX}${port}`],
    );
    const { socket, response } = Deno.upgradeWebSocket(request, {
      protocol: PROTOCOL,
    });
    socket.binaryType = "arraybuffer";
    socket.onopen = () => {
      socket.send(portPrefix(0, port));
      socket.send(portPrefix(1, port));
      relay(socket, local, port, name);
    };
    return response;
  },
};

/**
 * Joins the WebSocket to 127.0.0.1:`local`; an error on channel 1 if none.
 * Its handlers are set at once, in the socket's open event: what the
 * client sends while the connection is being made waits for it instead of
 * being lost, and a socket that closes meanwhile still closes the
 * connection once it is made.
 */
function relay(
  socket: WebSocket,
  local: number,
  port: number,
  pod: string,
): void {
  const connected = connectLocal(local);
  let writes = Promise.resolve();
  socket.onmessage = (event) => {
    const bytes = new Uint8Array(event.data as ArrayBuffer);
    if (bytes[0] !== 0) return;
    writes = writes.then(async () => {
      // Refused: what was sent for it goes nowhere (the error says why).
      const conn = await connected.catch(() => undefined);
      let data = bytes.subarray(1);
      while (conn && data.length > 0) {
        data = data.subarray(await conn.write(data));
      }
    }).catch(() => socket.close(1000));
  };
  socket.onclose = () => {
    connected.then(
      (conn) => writes.finally(() => closeQuietly(conn)),
      () => {},
    );
  };
  connected.then(
    (conn) => toSocket(conn, socket),
    (error: Error) => {
      if (socket.readyState !== WebSocket.OPEN) return;
      const text =
        `error forwarding port ${port} to pod ${pod}: ${error.message}`;
      socket.send(new Uint8Array([1, ...new TextEncoder().encode(text)]));
      socket.close(1000);
    },
  );
}

/** A connection to 127.0.0.1:`local`, the pod port's stand-in. */
async function connectLocal(local: number): Promise<Deno.Conn> {
  if (!Number.isInteger(local) || local <= 0) throw new Error("no listener");
  return await Deno.connect({ hostname: "127.0.0.1", port: local });
}

/** What `conn` sends, on channel 0, until it or the socket closes. */
async function toSocket(conn: Deno.Conn, socket: WebSocket): Promise<void> {
  try {
    for await (const chunk of conn.readable) {
      if (socket.readyState !== WebSocket.OPEN) break;
      const message = new Uint8Array(chunk.length + 1);
      message.set(chunk, 1);
      socket.send(message);
    }
  } catch {
    // the connection closed under us
  }
  if (socket.readyState === WebSocket.OPEN) socket.close(1000);
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // closed already
  }
}
