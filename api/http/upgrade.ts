/**
 * HTTP upgrades (WebSocket) through the pure `(HttpRequest) => Response`
 * handler: a side channel between a handler that accepts an upgrade and the
 * listener (listener.ts) that owns the connection.
 *
 * Contract:
 * - The listener hands an `Upgrade:` request to the same handler as any
 *   other (so the browser checks, the router, authentication and audit all
 *   apply), as a GET without a body.
 * - A handler that takes the upgrade answers upgradeAnswer(tunnel): a
 *   placeholder Response, never written, that this module maps to the
 *   tunnel. The listener then gives the tunnel the client's socket and the
 *   bytes already read after the request's head; from then on the tunnel
 *   owns the socket (writes the 101 itself, pipes, closes).
 * - Any other answer is written to the socket as a whole HTTP/1.1 message
 *   and the connection closes: a refusal (401, 403, 404) reads as it would
 *   for a plain request.
 * - A handler that does not look for upgrades answers as for a plain GET:
 *   the upgrade is simply not taken.
 */
import type { Duplex } from "node:stream";
import type { RequestHeaders } from "./http_request.ts";

/** Takes over an upgraded connection. */
export type Tunnel = (socket: Duplex, head: Uint8Array) => void;

const tunnels = new WeakMap<Response, Tunnel>();

/** The answer that tells the listener to hand the connection to `tunnel`. */
export function upgradeAnswer(tunnel: Tunnel): Response {
  // 200 because a Response cannot say 101; the listener never writes it.
  const response = new Response(null, { status: 200 });
  tunnels.set(response, tunnel);
  return response;
}

/** The tunnel `response` stands for, if it is an upgradeAnswer(). */
export function tunnelOf(response: Response): Tunnel | undefined {
  return tunnels.get(response);
}

/** Whether `headers` ask for a WebSocket (Connection: upgrade and Upgrade: websocket). */
export function isWebSocketUpgrade(headers: RequestHeaders): boolean {
  const connection = (headers.get("connection") ?? "").toLowerCase();
  return headers.get("upgrade")?.toLowerCase() === "websocket" &&
    connection.split(",").some((token) => token.trim() === "upgrade");
}
