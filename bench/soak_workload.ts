/**
 * bench/soak.ts's workload: a steady mix of calls over HTTP/JSON at a set
 * rate, by several users in turn, as a team's tools make them. Clusters and
 * jobs are created under names never used before and the oldest deleted
 * again, so that the objects alive stay about the same while every name
 * passes through: whatever Corral keeps of an object after it is gone
 * shows as growth.
 *
 * The mix, one call a slot, in a cycle: creates and deletes of clusters
 * and jobs, gets, lists of a namespace and of all of them, reads of the
 * compute templates, a get of a cluster that is not there, and watches of
 * clusters and jobs that stay open a while (at most `maxWatches` at once).
 */

export interface WorkloadOptions {
  /** Corral's HTTP base URL. */
  http: string;
  /** The users who take turns, with their bearer tokens. */
  callers: Caller[];
  namespaces: string[];
  /** Calls a second. */
  rate: number;
  /** Clusters (and as many jobs) alive before the oldest is deleted. */
  alive: number;
  /** How long a watch stays open, in ms. */
  watchMs: number;
  maxWatches: number;
}

export interface Caller {
  user: string;
  token: string;
}

/** The answers of each kind of call, by HTTP status. */
export type Outcomes = Record<string, Record<number, number>>;

interface Live {
  namespace: string;
  name: string;
}

/** The workload; `stop()` ends it and waits for what is in flight. */
export class Workload {
  readonly outcomes: Outcomes = {};
  readonly #options: WorkloadOptions;
  readonly #clusters: Live[] = [];
  readonly #jobs: Live[] = [];
  readonly #watches = new Set<AbortController>();
  readonly #inFlight = new Set<Promise<void>>();
  #serial = 0;
  #calls = 0;
  #watchesOpened = 0;
  #timer?: ReturnType<typeof setInterval>;

  constructor(options: WorkloadOptions) {
    this.#options = options;
  }

  /** The compute template every namespace's clusters use. */
  async prepare(): Promise<void> {
    for (const namespace of this.#options.namespaces) {
      await this.#call(
        "createTemplate",
        "POST",
        `/apis/v1/namespaces/${namespace}/compute_templates`,
        { name: "small", cpu: 1, memory: 1 },
      );
    }
  }

  start(): void {
    this.#timer = setInterval(() => {
      // A call that has not been answered when the next is due is not
      // waited for; past 64 in flight, slots are skipped.
      if (this.#inFlight.size >= 64) return;
      const call = this.#slot(this.#calls++).catch((error) => {
        this.#count("failed", 0);
        console.error(`soak: ${(error as Error).message}`);
      });
      this.#inFlight.add(call);
      call.finally(() => this.#inFlight.delete(call));
    }, 1000 / this.#options.rate);
  }

  /**
   * Stops making calls, ends the watches and waits for the calls in
   * flight, at most `waitMs`; answers how many had not ended by then.
   */
  async stop(waitMs = 30_000): Promise<number> {
    clearInterval(this.#timer);
    for (const watch of this.#watches) watch.abort();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all(this.#inFlight),
      new Promise((resolve) => timer = setTimeout(resolve, waitMs)),
    ]);
    clearTimeout(timer);
    return this.#inFlight.size;
  }

  get calls(): number {
    return this.#calls;
  }

  /** The cycle of the mix: the `n`th call. */
  #slot(n: number): Promise<void> {
    const slots = [
      () => this.#createCluster(),
      () => this.#getCluster(),
      () => this.#list("clusters"),
      () => this.#createJob(),
      () => this.#getCluster(),
      () => this.#watch(),
      () => this.#list("jobs"),
      () => this.#deleteOldest(this.#clusters, "clusters"),
      () => this.#listAll("clusters"),
      () => this.#getJob(),
      () => this.#createCluster(),
      () => this.#templates(),
      () => this.#getMissing(),
      () => this.#deleteOldest(this.#jobs, "jobs"),
      () => this.#list("clusters"),
      () => this.#getCluster(),
      () => this.#deleteOldest(this.#clusters, "clusters"),
      () => this.#listAll("jobs"),
    ];
    return slots[n % slots.length]();
  }

  #namespace(): string {
    const { namespaces } = this.#options;
    return namespaces[this.#serial % namespaces.length];
  }

  async #createCluster(): Promise<void> {
    const namespace = this.#namespace();
    const name = `soak-${this.#serial++}`;
    const group = { computeTemplate: "small", image: "" };
    const status = await this.#call(
      "createCluster",
      "POST",
      `/apis/v1alpha2/namespaces/${namespace}/clusters`,
      {
        name,
        user: this.#caller().user,
        version: "2.9.0",
        clusterSpec: {
          headGroupSpec: group,
          workerGroupSpec: [{
            ...group,
            groupName: "workers",
            replicas: 1,
            minReplicas: 0,
            maxReplicas: 2,
          }],
        },
      },
    );
    if (status === 200) this.#clusters.push({ namespace, name });
  }

  async #createJob(): Promise<void> {
    const namespace = this.#namespace();
    const name = `soak-job-${this.#serial++}`;
    const group = { computeTemplate: "small", image: "" };
    const status = await this.#call(
      "createJob",
      "POST",
      `/apis/v1alpha2/namespaces/${namespace}/jobs`,
      {
        name,
        user: this.#caller().user,
        version: "2.9.0",
        entrypoint: "python -c 'print(1)'",
        shutdownAfterJobFinishes: true,
        ttlSecondsAfterFinished: 5,
        clusterSpec: {
          headGroupSpec: group,
          workerGroupSpec: [{ ...group, groupName: "workers", replicas: 1 }],
        },
      },
    );
    if (status === 200) this.#jobs.push({ namespace, name });
  }

  async #getCluster(): Promise<void> {
    const live = pick(this.#clusters, this.#calls);
    if (!live) return await this.#list("clusters");
    await this.#call(
      "getCluster",
      "GET",
      `/apis/v1alpha2/namespaces/${live.namespace}/clusters/${live.name}`,
    );
  }

  async #getJob(): Promise<void> {
    const live = pick(this.#jobs, this.#calls);
    if (!live) return await this.#list("jobs");
    await this.#call(
      "getJob",
      "GET",
      `/apis/v1alpha2/namespaces/${live.namespace}/jobs/${live.name}`,
    );
  }

  async #getMissing(): Promise<void> {
    await this.#call(
      "getMissing",
      "GET",
      `/apis/v1alpha2/namespaces/${this.#namespace()}/clusters/gone-${this.#serial}`,
    );
  }

  async #list(kind: "clusters" | "jobs"): Promise<void> {
    await this.#call(
      `list_${kind}`,
      "GET",
      `/apis/v1alpha2/namespaces/${this.#namespace()}/${kind}`,
    );
  }

  async #listAll(kind: "clusters" | "jobs"): Promise<void> {
    await this.#call(`listAll_${kind}`, "GET", `/apis/v1alpha2/${kind}`);
  }

  async #templates(): Promise<void> {
    await this.#call("listTemplates", "GET", "/apis/v1/compute_templates");
  }

  async #deleteOldest(
    alive: Live[],
    kind: "clusters" | "jobs",
  ): Promise<void> {
    if (alive.length <= this.#options.alive) return await this.#listAll(kind);
    const { namespace, name } = alive.shift()!;
    await this.#call(
      `delete_${kind}`,
      "DELETE",
      `/apis/v1alpha2/namespaces/${namespace}/${kind}/${name}`,
    );
  }

  /** A watch of clusters or jobs, of a namespace or all, left open a while. */
  async #watch(): Promise<void> {
    if (this.#watches.size >= this.#options.maxWatches) {
      return await this.#listAll("clusters");
    }
    const n = this.#watchesOpened++;
    const kind = n % 2 ? "clusters" : "jobs";
    const path = n % 3
      ? `/apis/v1alpha2/watch/namespaces/${this.#namespace()}/${kind}`
      : `/apis/v1alpha2/watch/${kind}`;
    const abort = new AbortController();
    this.#watches.add(abort);
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    // The reader is cancelled too: an abort alone was seen to leave a
    // stream read for minutes.
    const end = () => {
      abort.abort();
      reader?.cancel().catch(() => {});
    };
    abort.signal.addEventListener("abort", () => end(), { once: true });
    const timer = setTimeout(end, this.#options.watchMs);
    try {
      const response = await fetch(`${this.#options.http}${path}`, {
        headers: this.#headers(),
        signal: abort.signal,
      });
      this.#count(`watch_${kind}`, response.status);
      if (!response.body) return;
      reader = response.body.getReader();
      if (abort.signal.aborted) return void reader.cancel().catch(() => {});
      // Read to the end, which the timer makes.
      while (!(await reader.read()).done) { /* events */ }
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    } finally {
      clearTimeout(timer);
      this.#watches.delete(abort);
    }
  }

  /** Whose turn it is: the caller of the `n`th call. */
  #caller(n = this.#calls): Caller {
    const { callers } = this.#options;
    return callers[n % callers.length];
  }

  #headers(): Record<string, string> {
    return { authorization: `Bearer ${this.#caller().token}` };
  }

  async #call(
    what: string,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<number> {
    const response = await fetch(`${this.#options.http}${path}`, {
      method,
      headers: { ...this.#headers(), "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    await response.body?.cancel();
    this.#count(what, response.status);
    return response.status;
  }

  #count(what: string, status: number): void {
    const counts = this.outcomes[what] ??= {};
    counts[status] = (counts[status] ?? 0) + 1;
  }
}

function pick<T>(items: readonly T[], n: number): T | undefined {
  return items.length ? items[n % items.length] : undefined;
}
