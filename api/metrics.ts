/**
 * Prometheus metrics in the text exposition format (version 0.0.4): a tiny
 * registry of counters, gauges and histograms with labels, and Corral's own
 * metrics on top of it.
 */

type Labels = Record<string, string>;

interface Metric {
  render(): string[];
}

function labelText(labels: Labels): string {
  const parts = Object.entries(labels).map(([k, v]) =>
    `${k}="${
      v.replaceAll("\\", "\\\\").replaceAll("\n", "\\n").replaceAll('"', '\\"')
    }"`
  );
  return parts.length ? `{${parts.join(",")}}` : "";
}

function key(labels: Labels): string {
  return JSON.stringify(Object.entries(labels).sort());
}

export class Counter implements Metric {
  #values = new Map<string, { labels: Labels; value: number }>();
  constructor(readonly name: string, readonly help: string) {}

  inc(labels: Labels = {}, by = 1): void {
    const k = key(labels);
    const entry = this.#values.get(k) ?? { labels, value: 0 };
    entry.value += by;
    this.#values.set(k, entry);
  }

  get(labels: Labels = {}): number {
    return this.#values.get(key(labels))?.value ?? 0;
  }

  render(): string[] {
    return [
      `# HELP ${this.name} ${this.help}`,
      `# TYPE ${this.name} counter`,
      ...[...this.#values.values()].map((e) =>
        `${this.name}${labelText(e.labels)} ${e.value}`
      ),
    ];
  }
}

export class Gauge implements Metric {
  #values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    /** Read at render time instead of set values, e.g. memory in use. */
    readonly collect?: () => { labels: Labels; value: number }[],
  ) {}

  add(labels: Labels, by: number): void {
    const k = key(labels);
    const entry = this.#values.get(k) ?? { labels, value: 0 };
    entry.value += by;
    this.#values.set(k, entry);
  }

  get(labels: Labels = {}): number {
    return this.#values.get(key(labels))?.value ?? 0;
  }

  render(): string[] {
    const values = this.collect ? this.collect() : [...this.#values.values()];
    return [
      `# HELP ${this.name} ${this.help}`,
      `# TYPE ${this.name} gauge`,
      ...values.map((e) => `${this.name}${labelText(e.labels)} ${e.value}`),
    ];
  }
}

export class Histogram implements Metric {
  #series = new Map<
    string,
    { labels: Labels; counts: number[]; sum: number; count: number }
  >();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: number[],
  ) {}

  observe(labels: Labels, value: number): void {
    const k = key(labels);
    let series = this.#series.get(k);
    if (!series) {
      series = {
        labels,
        counts: this.buckets.map(() => 0),
        sum: 0,
        count: 0,
      };
      this.#series.set(k, series);
    }
    this.buckets.forEach((bound, i) => {
      if (value <= bound) series.counts[i]++;
    });
    series.sum += value;
    series.count++;
  }

  render(): string[] {
    const lines = [
      `# HELP ${this.name} ${this.help}`,
      `# TYPE ${this.name} histogram`,
    ];
    for (const s of this.#series.values()) {
      this.buckets.forEach((bound, i) => {
        lines.push(
          `${this.name}_bucket${
            labelText({ ...s.labels, le: String(bound) })
          } ${s.counts[i]}`,
        );
      });
      lines.push(
        `${this.name}_bucket${
          labelText({ ...s.labels, le: "+Inf" })
        } ${s.count}`,
        `${this.name}_sum${labelText(s.labels)} ${s.sum}`,
        `${this.name}_count${labelText(s.labels)} ${s.count}`,
      );
    }
    return lines;
  }
}

const LATENCY_BUCKETS = [
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
];

/** Corral's metrics. */
export class Metrics {
  readonly requests = new Counter(
    "corral_requests_total",
    "Requests handled, by transport, route or RPC, and gRPC status code.",
  );
  readonly requestDuration = new Histogram(
    "corral_request_duration_seconds",
    "Time to answer a request, by transport and route or RPC.",
    LATENCY_BUCKETS,
  );
  readonly inFlight = new Gauge(
    "corral_requests_in_flight",
    "Requests being handled now, by transport.",
  );
  readonly kubernetesCalls = new Counter(
    "corral_kubernetes_requests_total",
    "Kubernetes API calls, by verb, resource and outcome (ok or the service code of the failure).",
  );
  readonly kubernetesDuration = new Histogram(
    "corral_kubernetes_request_duration_seconds",
    "Kubernetes API call latency, by verb and resource.",
    LATENCY_BUCKETS,
  );
  readonly memory = new Gauge(
    "process_memory_bytes",
    "Memory of the process, by kind (rss, heap_total, heap_used, external).",
    () => {
      const m = Deno.memoryUsage();
      return [
        { labels: { kind: "rss" }, value: m.rss },
        { labels: { kind: "heap_total" }, value: m.heapTotal },
        { labels: { kind: "heap_used" }, value: m.heapUsed },
        { labels: { kind: "external" }, value: m.external },
      ];
    },
  );

  render(): string {
    return [
      this.requests,
      this.requestDuration,
      this.inFlight,
      this.kubernetesCalls,
      this.kubernetesDuration,
      this.memory,
    ].flatMap((m) => m.render()).join("\n") + "\n";
  }
}
