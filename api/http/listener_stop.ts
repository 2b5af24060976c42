/**
 * How the HTTP listener stops, apart from what it does on each event
 * (listener.ts): the drain (every answer closes its connection, and idle
 * keep-alive connections close), the pause before the listening socket
 * closes (new requests held until nothing arrives: quiet.ts says why), and
 * the settling of the connections left. A connection is closed only once
 * idle; never with a request in flight or arriving.
 */
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { Quiet } from "./quiet.ts";

/** What the stop reads of a connection's state (listener.ts's). */
export interface ConnectionUse {
  /** Requests of this connection being handled. */
  active: number;
  /** Set once the connection has carried a request. */
  current?: unknown;
  /**
   * When the connection was last left without a request (accepted, or its
   * requests answered), on performance.now()'s scale, and the bytes read
   * from it by then: more read since is a request arriving.
   */
  idleSince: number;
  readAtIdle: number;
}

export class ListenerStop {
  readonly #connections: ReadonlyMap<Socket, ConnectionUse>;
  readonly #upgraded: ReadonlySet<Duplex>;
  readonly #quietMs: number;
  /** Whether connections and requests have stopped arriving. */
  readonly #quiet: Quiet;
  /** Every answer closes its connection (drain()). */
  #draining = false;
  /** The listening socket has closed: connections close as they idle. */
  #closing = false;
  /** Requests held until the listening socket has closed (quiesce()). */
  #held: (() => void)[] | undefined;
  /** The next look for idle connections to close. */
  #sweep: { at: number; timer: ReturnType<typeof setTimeout> } | undefined;
  /** Told when the last connection has closed (settle()). */
  #settled: (() => void) | undefined;

  /**
   * The stop of a listener's `connections` (and those it handed to an
   * upgrade), closing idle ones after `quietMs`.
   */
  constructor(
    connections: ReadonlyMap<Socket, ConnectionUse>,
    upgraded: ReadonlySet<Duplex>,
    quietMs: number,
  ) {
    this.#connections = connections;
    this.#upgraded = upgraded;
    this.#quietMs = quietMs;
    this.#quiet = new Quiet(quietMs);
  }

  /** Whether answers close their connections: the server is stopping. */
  get stopping(): boolean {
    return this.#draining || this.#closing;
  }

  /** A connection or a request arrived now. */
  arrived(): void {
    this.#quiet.note();
  }

  /** Calls `start` now, or once the listening socket has closed. */
  start(start: () => void): void {
    if (this.#held) this.#held.push(start);
    else start();
  }

  /** A connection that carried requests was left without one. */
  idle(): void {
    if (this.stopping) this.#closeIdleIn(this.#quietMs);
  }

  /** A connection has closed. */
  closed(): void {
    if (this.#connections.size === 0) this.#settled?.();
  }

  /**
   * From now on every answer closes its connection, and a keep-alive
   * connection left without a request for the quiet time is closed:
   * keep-alive clients move to new connections, which a load balancer
   * sends elsewhere. One idle for less is left to its next request (a
   * client may be sending it: closing the connection under it would reset
   * it) and closed once the quiet time is up; one with a request arriving,
   * never. Nor is a new connection without its first request yet: its
   * client connected to send one (a slow client may take a while), and
   * the header time-out bounds the wait.
   */
  drain(): void {
    this.#draining = true;
    this.#quiet.watch();
    this.#closeIdle();
  }

  /**
   * Before the listening socket closes: drains, holds the requests that
   * arrive from now on (answered by settle()), and resolves once no
   * connection nor request has arrived for the quiet time, or after
   * `maxMs` (quiet.ts says why).
   */
  quiesce(maxMs: number): Promise<void> {
    this.drain();
    this.#held ??= [];
    return this.#quiet.wait(maxMs);
  }

  /**
   * Once the listening socket has closed: answers the requests held, closes
   * each connection once it is idle as drain() says, waits for every one
   * to close (at most `graceMs`), then closes those left.
   */
  async settle(graceMs: number): Promise<void> {
    this.#closing = true;
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const start of held) start();
    this.#closeIdle();
    if (this.#connections.size > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.#settled = resolve),
        new Promise<void>((resolve) => timer = setTimeout(resolve, graceMs)),
      ]);
      clearTimeout(timer);
    }
    clearTimeout(this.#sweep?.timer);
    this.#sweep = undefined;
    this.#quiet.close();
    for (const socket of this.#connections.keys()) socket.destroy();
    for (const socket of this.#upgraded) socket.destroy();
  }

  /**
   * Closes the connections idle for the quiet time (drain() and quiet.ts
   * say why), and comes back when the next of those idle for less is due.
   */
  #closeIdle(): void {
    let next = Infinity;
    for (const [socket, use] of this.#connections) {
      // A request arriving, head incomplete, is a request in flight; a new
      // connection is one on its way (drain()).
      if (
        use.active > 0 || use.current === undefined ||
        socket.bytesRead !== use.readAtIdle
      ) continue;
      const left = this.#quiet.left(use.idleSince);
      if (left <= 0) socket.destroy();
      else next = Math.min(next, left);
    }
    if (next < Infinity) this.#closeIdleIn(next);
  }

  /** Looks for idle connections to close in `ms`, or sooner if set so. */
  #closeIdleIn(ms: number): void {
    const at = performance.now() + ms;
    if (this.#sweep && this.#sweep.at <= at) return;
    clearTimeout(this.#sweep?.timer);
    const timer = setTimeout(() => {
      this.#sweep = undefined;
      this.#closeIdle();
    }, ms);
    this.#sweep = { at, timer };
  }
}
