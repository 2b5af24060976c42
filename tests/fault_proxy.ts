/**
 * A fault-injecting HTTP proxy for tests, put between Corral and the
 * Kubernetes API stand-in: point Corral at `kubeconfigFor(proxy.url)`, then
 * switch what the "Kubernetes API" does while Corral runs: pass requests
 * through, refuse connections (the listener is closed, as when the API
 * server is down), reset them, answer late, or answer 429 or 500. Every
 * request that reaches the proxy is recorded, so a test can count the calls
 * (and retries) that reached Kubernetes and see which ones the caller gave
 * up on.
 */
import http from "node:http";
import { Buffer } from "node:buffer";
import type { Socket } from "node:net";

/** What the proxy does with a request. */
export type Fault =
  /** Forwards it to the upstream and relays the answer. */
  | { kind: "pass" }
  /** Accepts the connection, then closes it without an answer. */
  | { kind: "reset" }
  /** Waits `ms`, then forwards it (unless the caller went away meanwhile). */
  | { kind: "delay"; ms: number }
  /**
   * Answers `status` with a Kubernetes Status body itself; the upstream
   * never sees the request. `retryAfter` (seconds) sets Retry-After.
   */
  | { kind: "status"; status: number; retryAfter?: number };

/** Which requests a fault applies to; all when a part is left out. */
export interface Match {
  method?: string;
  /** The URL path (no query); a string matches a prefix. */
  path?: string | RegExp;
}

export interface ProxiedRequest {
  method: string;
  /** The URL path, without the query. */
  path: string;
  /** The query, with its "?", or "". */
  search: string;
  /** The fault applied: "pass", "reset", "delay" or "status". */
  fault: Fault["kind"];
  /** The status answered, once answered. */
  status?: number;
  /** The caller closed the connection before the answer was complete. */
  aborted: boolean;
  /** The request was sent on to the upstream. */
  forwarded: boolean;
  /** Settles when the proxy is done with the request, answered or not. */
  done: Promise<void>;
}

export interface FaultProxy {
  /** Base URL, e.g. `http://127.0.0.1:43123`; stays the same across refuse(). */
  readonly url: string;
  readonly port: number;
  /** Every request that reached the proxy, in order of arrival. */
  readonly requests: readonly ProxiedRequest[];
  /** How many requests with `method` (and a path matching `path`) arrived. */
  count(method: string, path?: string | RegExp): number;
  /** Forgets the requests recorded so far. */
  clearRequests(): void;
  /**
   * Applies `fault` to the requests `match` selects from now on; rules set
   * later win. The others pass through.
   */
  inject(fault: Fault, match?: Match): void;
  /** Passes everything through again, listening again after refuse(). */
  heal(): Promise<void>;
  /**
   * Closes the listener and every open connection: new connections are
   * refused until heal().
   */
  refuse(): Promise<void>;
  /** Waits until every recorded request is done. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

interface Rule {
  fault: Fault;
  match: Match;
}

/** Hop-by-hop headers and those fetch sets itself. */
const SKIPPED_HEADERS = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "content-encoding",
  "host",
  "upgrade",
]);

function matches(match: Match, method: string, path: string): boolean {
  if (match.method && match.method !== method) return false;
  if (match.path === undefined) return true;
  return typeof match.path === "string"
    ? path.startsWith(match.path)
    : match.path.test(path);
}

/** Starts the proxy on 127.0.0.1 (a free port) in front of `upstream`. */
export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const requests: ProxiedRequest[] = [];
  let rules: Rule[] = [];
  let server: http.Server | undefined;
  const sockets = new Set<Socket>();
  let port = 0;

  function faultFor(method: string, path: string): Fault {
    for (let i = rules.length - 1; i >= 0; i--) {
      if (matches(rules[i].match, method, path)) return rules[i].fault;
    }
    return { kind: "pass" };
  }

  async function handle(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    record: ProxiedRequest,
    fault: Fault,
  ): Promise<void> {
    const gone = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) {
        record.aborted = true;
        gone.abort();
      }
    });
    const chunks: Uint8Array[] = [];
    for await (const chunk of req) chunks.push(chunk as Uint8Array);
    if (fault.kind === "reset") {
      req.socket.destroy();
      return;
    }
    if (fault.kind === "status") {
      const body = JSON.stringify({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: `injected fault: HTTP ${fault.status}`,
        reason: fault.status === 429 ? "TooManyRequests" : "InternalError",
        code: fault.status,
      });
      res.statusCode = fault.status;
      res.setHeader("content-type", "application/json");
      if (fault.retryAfter !== undefined) {
        res.setHeader("retry-after", String(fault.retryAfter));
      }
      record.status = fault.status;
      res.end(body);
      return;
    }
    if (fault.kind === "delay") {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, fault.ms);
        gone.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (gone.signal.aborted) return;
    }
    const headers = new Headers();
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      if (!SKIPPED_HEADERS.has(req.rawHeaders[i].toLowerCase())) {
        headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
      }
    }
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    record.forwarded = true;
    let answer: Response;
    try {
      answer = await fetch(upstream + (req.url ?? "/"), {
        method: req.method,
        headers,
        body,
        signal: gone.signal,
      });
    } catch {
      // The caller went away, or the upstream is down: as a proxy would,
      // close the connection.
      req.socket.destroy();
      return;
    }
    if (gone.signal.aborted) return;
    res.statusCode = answer.status;
    answer.headers.forEach((value, name) => {
      if (!SKIPPED_HEADERS.has(name)) res.setHeader(name, value);
    });
    record.status = answer.status;
    // Relayed as it comes, so that watches stream through the proxy.
    res.flushHeaders();
    try {
      for await (const chunk of answer.body ?? []) {
        if (gone.signal.aborted) return;
        res.write(chunk);
      }
    } catch {
      req.socket.destroy();
      return;
    }
    res.end();
  }

  function onRequest(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? "/", "http://proxy.invalid");
    const method = req.method ?? "GET";
    const fault = faultFor(method, url.pathname);
    const { promise: done, resolve } = Promise.withResolvers<void>();
    const record: ProxiedRequest = {
      method,
      path: url.pathname,
      search: url.search,
      fault: fault.kind,
      aborted: false,
      forwarded: false,
      done,
    };
    requests.push(record);
    handle(req, res, record, fault).catch(() => req.socket.destroy())
      .finally(resolve);
  }

  async function listen(): Promise<void> {
    const next = http.createServer(onRequest);
    next.on("connection", (socket: Socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      next.once("error", reject);
      next.listen(port, "127.0.0.1", () => {
        next.off("error", reject);
        resolve();
      });
    });
    const address = next.address();
    port = typeof address === "object" && address ? address.port : port;
    server = next;
  }

  async function stopListening(): Promise<void> {
    const current = server;
    if (!current) return;
    server = undefined;
    const closed = new Promise<void>((resolve) =>
      current.close(() => resolve())
    );
    for (const socket of sockets) socket.destroy();
    await closed;
  }

  await listen();
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    port,
    requests,
    count(method, path) {
      return requests.filter((r) => matches({ method, path }, r.method, r.path))
        .length;
    },
    clearRequests() {
      requests.length = 0;
    },
    inject(fault, match = {}) {
      rules.push({ fault, match });
    },
    async heal() {
      rules = [];
      if (!server) await listen();
    },
    refuse: stopListening,
    async settled() {
      await Promise.all(requests.map((r) => r.done));
    },
    async close() {
      rules = [];
      await stopListening();
      await Promise.all(requests.map((r) => r.done));
    },
  };
}
