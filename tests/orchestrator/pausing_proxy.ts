/**
 * A proxy for the cache's tests that can go quiet the way a hung API server
 * (or a network black hole) does: pause() holds every new request and every
 * byte of the answers streaming through, connections staying open, until
 * resume(). endStreams() ends the answers streaming now, cleanly (a watch
 * that timed out) or abruptly (a dropped connection). Each request is
 * recorded with its query, so a test can see which version a list asked for.
 */

export interface PausingProxy {
  readonly url: string;
  /** Every request that reached the proxy, in order, with its query. */
  readonly requests: readonly URL[];
  /** Holds new requests and the answers in flight until resume(). */
  pause(): void;
  resume(): void;
  /** Ends every answer streaming now; what is held is dropped. */
  endStreams(how: "cleanly" | "abruptly"): void;
  close(): Promise<void>;
}

/** Answer headers a relay must not copy (the body is sent afresh). */
const SKIPPED = ["content-length", "content-encoding", "transfer-encoding"];

/** Starts the proxy on 127.0.0.1 (a free port) in front of `upstream`. */
export function startPausingProxy(upstream: string): PausingProxy {
  const requests: URL[] = [];
  let gate = Promise.resolve();
  let open: (() => void) | undefined;
  const streams = new Set<(clean: boolean) => void>();
  const upstreams = new Set<AbortController>();

  async function relay(request: Request): Promise<Response> {
    const url = new URL(request.url);
    requests.push(url);
    await gate;
    const aborter = new AbortController();
    upstreams.add(aborter);
    request.signal.addEventListener("abort", () => aborter.abort());
    let answer: Response;
    try {
      answer = await fetch(upstream + url.pathname + url.search, {
        method: request.method,
        headers: request.headers,
        body: request.body === null ? null : await request.arrayBuffer(),
        signal: aborter.signal,
      });
    } catch {
      upstreams.delete(aborter);
      return new Response(null, { status: 502 });
    }
    const headers = new Headers(answer.headers);
    for (const name of SKIPPED) headers.delete(name);
    return new Response(held(answer, aborter), {
      status: answer.status,
      headers,
    });
  }

  /** The answer's body, each chunk waiting for the gate. */
  function held(
    answer: Response,
    aborter: AbortController,
  ): ReadableStream<Uint8Array> | null {
    if (answer.body === null) return null;
    const reader = answer.body.getReader();
    let ended = false;
    const finish = () => {
      ended = true;
      streams.delete(end);
      upstreams.delete(aborter);
      aborter.abort();
      reader.cancel().catch(() => {});
    };
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const end = (clean: boolean) => {
      if (ended) return;
      finish();
      if (clean) controller.close();
      else controller.error(new Error("connection reset by the proxy"));
    };
    streams.add(end);
    return new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
      },
      async pull(c) {
        const read = await reader.read().catch(() => ({
          done: true,
          value: undefined,
        }));
        await gate;
        if (ended) return;
        if (read.done) {
          finish();
          c.close();
        } else c.enqueue(read.value);
      },
      cancel: finish,
    });
  }

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    relay,
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    requests,
    pause() {
      if (open) return;
      gate = new Promise((resolve) => open = resolve);
    },
    resume() {
      open?.();
      open = undefined;
      gate = Promise.resolve();
    },
    endStreams(how) {
      for (const end of [...streams]) end(how === "cleanly");
    },
    async close() {
      this.resume();
      this.endStreams("abruptly");
      for (const aborter of upstreams) aborter.abort();
      await server.shutdown();
    },
  };
}
