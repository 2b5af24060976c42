/**
 * A client of a Deno process's V8 inspector (`deno run --inspect=HOST:PORT`),
 * for what bench/soak.ts asks of Corral's heap: a full collection with the
 * heap in use after it (the live heap, which the /metrics figure blurs
 * with garbage not yet collected), and heap snapshots, which Chrome's
 * DevTools (Memory tab, Load) or bench/heap_diff.ts compare.
 */

/** The inspector of one process. */
export class Inspector {
  readonly #socket: WebSocket;
  #next = 1;
  readonly #pending = new Map<
    number,
    { resolve(value: unknown): void; reject(error: Error): void }
  >();
  #chunks: string[] | undefined;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.onmessage = (event) => this.#receive(JSON.parse(event.data));
  }

  /** Connects to the inspector listening on `hostPort` ("127.0.0.1:9229"). */
  static async connect(hostPort: string): Promise<Inspector> {
    const targets = await (await fetch(`http://${hostPort}/json/list`)).json();
    const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
    await new Promise((resolve, reject) => {
      socket.onopen = resolve;
      socket.onerror = () => reject(new Error(`cannot reach ${hostPort}`));
    });
    const inspector = new Inspector(socket);
    await inspector.call("HeapProfiler.enable");
    return inspector;
  }

  /** One method of the protocol; resolves with its result. */
  call(method: string, params: unknown = {}): Promise<unknown> {
    const id = this.#next++;
    const { promise, resolve, reject } = Promise.withResolvers<unknown>();
    this.#pending.set(id, { resolve, reject });
    this.#socket.send(JSON.stringify({ id, method, params }));
    return promise;
  }

  /** A full collection, then the heap in use, in MiB. */
  async liveHeapMb(): Promise<number> {
    await this.call("HeapProfiler.collectGarbage");
    const usage = await this.call("Runtime.getHeapUsage") as {
      usedSize: number;
    };
    return usage.usedSize / 2 ** 20;
  }

  /** A heap snapshot (after V8's own full collection), written to `path`. */
  async snapshot(path: string): Promise<void> {
    this.#chunks = [];
    await this.call("HeapProfiler.takeHeapSnapshot", {
      reportProgress: false,
    });
    await Deno.writeTextFile(path, this.#chunks.join(""));
    this.#chunks = undefined;
  }

  close(): void {
    this.#socket.close();
  }

  #receive(message: {
    id?: number;
    method?: string;
    params?: { chunk?: string };
    result?: unknown;
    error?: { message: string };
  }): void {
    if (message.method === "HeapProfiler.addHeapSnapshotChunk") {
      this.#chunks?.push(message.params!.chunk!);
      return;
    }
    if (message.id === undefined) return;
    const pending = this.#pending.get(message.id);
    this.#pending.delete(message.id);
    if (message.error) pending?.reject(new Error(message.error.message));
    else pending?.resolve(message.result);
  }
}
