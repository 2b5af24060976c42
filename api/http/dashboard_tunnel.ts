/**
 * A WebSocket through the dashboard proxy: the upgrade request sent on to
 * the dashboard on a connection of its own, and, once the dashboard has
 * answered 101, the two connections joined byte for byte.
 *
 * dashboard_proxy.ts has authenticated and authorized the caller and
 * checked the cluster before; the browser guard has checked the Origin.
 * The handshake with the dashboard happens before the caller is answered,
 * so a dashboard that refuses or does not answer in time is the caller's
 * 502/504 JSON error like any other, and audited as such. What is sent
 * carries none of the caller's credentials (upstreamHeaders()); the 101
 * passed back carries only the WebSocket handshake's own headers.
 *
 * Frames are not parsed: the tunnel is bytes both ways, so extensions
 * (permessage-deflate) and subprotocols are the two ends' business. Either
 * end closing closes the other. How long it may last is the chain's to
 * say, as for a watch stream (api/service/stream_lifetime.ts): it follows
 * the tunnel's TunnelLifetime, and ends it (both connections close; the
 * browser sees 1006 and reconnects, as after a network cut) when its
 * caller loses access or at --watch-max-duration.
 */
import type { Duplex } from "node:stream";
import { Code } from "../../domain/errors.ts";
import type { Logger } from "../../domain/log.ts";
import type { ClusterAccess } from "../../domain/dashboard_ports.ts";
import { HttpError } from "../errors.ts";
import { upgradeAnswer } from "./upgrade.ts";
import {
  type AnswerHead,
  readAnswerHead,
} from "../../orchestrator/answer_head.ts";
import { dashboardFailure } from "./dashboard_failures.ts";

/** The headers of the dashboard's 101 passed back to the caller. */
const HANDSHAKE_HEADERS = [
  "sec-websocket-accept",
  "sec-websocket-protocol",
  "sec-websocket-extensions",
];

export interface TunnelOptions {
  clusterAccess: ClusterAccess;
  /** The URL the upgrade goes to, under the dashboard's base URL. */
  upstream: string;
  /** What to send, credentials of the caller's already taken out. */
  headers: Headers;
  /** The handshake's bound: dial, send, and the 101's head. */
  timeoutMs: number;
  /** The caller's request: its end before the join ends the dial too. */
  signal: AbortSignal;
  /** `Cannot proxy to cluster "team-a/blue"`, for errors. */
  action: string;
  log: Logger;
  /** Told when the tunnel opens and closes; closes it when returned. */
  lifetime?: TunnelLifetime;
}

/**
 * A tunnel's life as the chain follows it (HttpAnswer's lifetime): a
 * stream of no messages that ends once the tunnel has closed, or once it
 * is clear it never opens (its caller went away before the join).
 * return() closes the tunnel, now or as soon as it opens.
 */
export class TunnelLifetime implements AsyncIterableIterator<never> {
  readonly #ended = Promise.withResolvers<IteratorResult<never>>();
  #close: (() => void) | undefined;
  #closing = false;

  /** The two connections are joined; `close` ends them. */
  opened(close: () => void): void {
    this.#close = close;
    if (this.#closing) close();
  }

  /** The tunnel has closed, or will never open. */
  closed(): void {
    this.#ended.resolve({ done: true, value: undefined });
  }

  next(): Promise<IteratorResult<never>> {
    return this.#ended.promise;
  }

  return(): Promise<IteratorResult<never>> {
    this.#closing = true;
    this.#close?.();
    this.closed();
    return this.#ended.promise;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<never> {
    return this;
  }
}

/**
 * The upgrade done with the dashboard; an upgradeAnswer() that joins the
 * caller's connection to it. Throws HttpError 502 (unreachable or refused,
 * 404 for a path it does not serve) or 504 (too slow).
 */
export async function openTunnel(options: TunnelOptions): Promise<Response> {
  const { action, timeoutMs } = options;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([timeout, options.signal]);
  let upstream: Duplex | undefined;
  let head: AnswerHead;
  try {
    const dialed = await options.clusterAccess.dial(options.upstream, signal);
    upstream = dialed.socket;
    upstream.write(requestHead(options.upstream, options.headers, dialed));
    head = await readAnswerHead(upstream, signal, "the dashboard");
  } catch (error) {
    upstream?.destroy();
    if (error instanceof HttpError) throw error;
    throw dashboardFailure(
      {
        action,
        upstream: options.upstream,
        timeoutMs,
        awaited: "answer the WebSocket upgrade",
      },
      error,
      timeout.aborted,
      options.log,
    );
  }
  if (head.status !== 101) {
    upstream.destroy();
    throw head.status === 404
      ? new HttpError(
        404,
        Code.NOT_FOUND,
        `${action}: the dashboard has no WebSocket at this path`,
      )
      : new HttpError(
        502,
        Code.UNAVAILABLE,
        `${action}: the dashboard refused the WebSocket upgrade with status ${head.status}`,
      );
  }
  return joined(upstream, head, options);
}

/** The upgrade request's head, as written on the dialed connection. */
function requestHead(
  url: string,
  headers: Headers,
  dialed: { headers: Record<string, string> },
): string {
  const target = new URL(url);
  const lines = [
    `GET ${target.pathname}${target.search} HTTP/1.1`,
    `host: ${target.host}`,
    "connection: Upgrade",
    "upgrade: websocket",
  ];
  // Headers refuses CR and LF in values: nothing here can split the head.
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  for (const [name, value] of Object.entries(dialed.headers)) {
    lines.push(`${name}: ${value}`);
  }
  return lines.join("\r\n") + "\r\n\r\n";
}

/**
 * The answer that, given the caller's connection, sends it the 101 and
 * joins the two. Until then the caller going away closes the dashboard's.
 */
function joined(
  upstream: Duplex,
  head: AnswerHead,
  options: TunnelOptions,
): Response {
  let started = false;
  const abandon = () => {
    if (started) return;
    upstream.destroy();
    options.lifetime?.closed();
  };
  options.signal.addEventListener("abort", abandon, { once: true });
  return upgradeAnswer((client, clientHead) => {
    started = true;
    options.signal.removeEventListener("abort", abandon);
    const lines = [
      "HTTP/1.1 101 Switching Protocols",
      "connection: Upgrade",
      "upgrade: websocket",
    ];
    for (const name of HANDSHAKE_HEADERS) {
      const value = head.headers.get(name);
      if (value !== undefined) lines.push(`${name}: ${value}`);
    }
    client.write(lines.join("\r\n") + "\r\n\r\n");
    if (head.rest.length > 0) client.write(head.rest);
    if (clientHead.length > 0) upstream.write(clientHead);
    options.lifetime?.opened(end);
    function end() {
      client.destroy();
      upstream.destroy();
      options.lifetime?.closed();
    }
    for (const socket of [client, upstream]) {
      socket.once("close", end);
      socket.on("error", end);
    }
    client.pipe(upstream);
    upstream.pipe(client);
    upstream.resume();
  });
}
