/**
 * The cache's reflectors: one list-then-watch (reflector.ts) per cached
 * resource and served namespace (or one cluster-wide per resource), each
 * applying what it sees to the cache's stores; and whether, together, they
 * keep the cache in step.
 *
 * While a reflector is down, one probe (GET /version, every first backoff)
 * watches for the API server's return: once it answers after failing,
 * every reflector waiting out its backoff lists at once, so readiness
 * comes back within a probe of the API server's return rather than after
 * a backoff grown to 30 s.
 *
 * A reflector whose watch was lost is not in step until its list is in
 * (reflector.ts: relisting): an API server that went away may come back
 * without its data. /readyz says not ready meanwhile. Reads still come
 * from memory while the API server does not answer the probe (for up to
 * `staleAfterMs`, as before the loss: there is nothing fresher to read),
 * but go to Kubernetes from the moment it answers until the lists are in.
 *
 * While they are up, a watch that has been quiet (no event, no bookmark)
 * for half of `staleAfterMs` has the API server asked whether it still
 * answers (the same probe): a quiet watch on a live API server is in step,
 * but a hung one (or a network black hole) keeps its connection open and
 * says nothing. When nothing was heard for `staleAfterMs`, neither from
 * the watch nor from a probe, the cache is stale, without waiting for the
 * silent watch to be restarted at twice the bookmark interval.
 */
import type { Logger } from "../domain/log.ts";
import type { SyncAge } from "../domain/ports.ts";
import {
  KIND_NAMES,
  type KindName,
  type KindObjects,
  KINDS,
} from "../domain/kinds.ts";
import type { KubeEvent } from "../domain/resources.ts";
import type { CacheStores } from "./cache_stores.ts";
import type { RayClusterCoordinates } from "./client_ports.ts";
import { asEvent, objectOf } from "./json.ts";
import { currentVersion, listInPages } from "./list_pages.ts";
import {
  type Reflected,
  type Reflector,
  startReflector,
  type StoreChange,
} from "./reflector.ts";
import { collectionPath, servedAt } from "./resource_calls.ts";
import { trimEvent } from "./trim.ts";
import { VersionLine } from "./version_line.ts";
import type { WatchTransport } from "./watch_stream.ts";

/**
 * The stores of every kind (domain/kinds.ts: store), the names its counts
 * go by: "rayclusters", "events", "configmaps", ...
 */
const CACHED_RESOURCES: readonly string[] = KIND_NAMES.flatMap((name) => {
  const { objects, events } = KINDS[name].store;
  return events === undefined ? [objects] : [objects, events];
});

export interface CacheReflectorsOptions {
  watch: WatchTransport;
  rayCluster: RayClusterCoordinates;
  /** Served namespaces; empty watches every namespace. */
  namespaces: readonly string[];
  /** A watch down longer than this makes the cache stale. */
  staleAfterMs: number;
  log: Logger;
  /** First backoff after a failure; the reflector's default when unset. */
  backoffMs?: number;
  /**
   * How often the API server sends a watch a BOOKMARK (kube-apiserver:
   * about every minute); a watch silent for twice this is restarted.
   */
  bookmarkIntervalMs?: number;
}

/** Where the Events about every kind are listed and watched. */
const EVENTS = { group: "", version: "v1", plural: "events" };

/** How a stale reason ends when the API server does not answer probes. */
const NOT_ANSWERING = "(quiet, and the API server does not answer)";

/** A probe of the API server waits this long for its answer at most. */
const PROBE_TIMEOUT_MS = 2_000;

/** One resource as a reflector of one namespace lists and watches it. */
interface Reflection<T extends Reflected> {
  /** Its store's name (CACHED_RESOURCES). */
  resource: string;
  path: string;
  selector: { labelSelector?: string; fieldSelector?: string };
  /**
   * client-node's shape of a listed or watched object to the domain's,
   * trimmed to what reads use (trim.ts).
   */
  normalize: (item: unknown) => T;
  apply: (change: StoreChange<T>, namespace: string) => void;
}

function counts(): Record<string, number> {
  return Object.fromEntries(CACHED_RESOURCES.map((resource) => [resource, 0]));
}

export class CacheReflectors {
  /** Resolves once every first list is in. */
  readonly synced: Promise<void>;
  #markSynced!: () => void;
  #isSynced = false;
  #running = false;
  readonly #options: CacheReflectorsOptions;
  readonly #stores: CacheStores;
  readonly #reflectors: {
    resource: string;
    namespace: string;
    reflector: Reflector;
  }[] = [];
  #probing = false;
  /** When a probe of a live API server last answered (performance.now()). */
  #lastAnswered = -Infinity;
  /** The last probe while a reflector was down failed. */
  #unreachable = false;
  /** The versions every reflector shares (version_line.ts). */
  readonly #versions = new VersionLine();
  /** Ends the probe's pause and its request when the reflectors stop. */
  readonly #stopping = new AbortController();
  readonly #clock = { wall: Date.now(), mono: performance.now() };
  readonly #relists = counts();
  readonly #restarts = counts();

  constructor(options: CacheReflectorsOptions, stores: CacheStores) {
    this.#options = options;
    this.#stores = stores;
    this.synced = new Promise<void>((resolve) => this.#markSynced = resolve);
  }

  /** Starts every reflector; once only. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#clock.wall = Date.now();
    this.#clock.mono = performance.now();
    const { namespaces } = this.#options;
    for (const namespace of namespaces.length > 0 ? namespaces : [""]) {
      this.#startIn(namespace);
    }
    Promise.all(this.#reflectors.map((r) => r.reflector.synced)).then(() => {
      this.#isSynced = true;
      const { clusters, templates } = this.#stores.kinds;
      this.#options.log.info("Cache in step", {
        clusters: clusters.objects.size,
        templates: templates.objects.size,
        events: clusters.events?.size ?? 0,
        seconds: (performance.now() - this.#clock.mono) / 1000,
      });
      this.#markSynced();
      collectFirstListsGarbage();
      this.#checkQuietWatches();
    });
  }

  /**
   * Why the cache is not in step now (not ready, no watch starts, no
   * answer kept); undefined when it is.
   */
  notInStep(): string | undefined {
    return this.#whyStale() ?? this.#whyRelisting();
  }

  /**
   * Why reads cannot come from the cache now, and whether it is because
   * the API server does not answer (a quiet watch, a failed probe): then a
   * read sent to it would only wait out its time limit. Reads come from
   * memory while a lost watch lists again only if the API server does not
   * answer (see above).
   */
  staleness(): { reason: string; unanswered: boolean } | undefined {
    const stale = this.#whyStale();
    if (stale !== undefined) {
      return { reason: stale, unanswered: stale.endsWith(NOT_ANSWERING) };
    }
    const relisting = this.#whyRelisting();
    if (relisting === undefined || this.#unreachable) return undefined;
    return { reason: relisting, unanswered: false };
  }

  /** Why a reflector's store may hold what the API server lost. */
  #whyRelisting(): string | undefined {
    const lost = this.#reflectors.find((r) => r.reflector.relisting);
    if (lost === undefined) return undefined;
    const down = lost.reflector.downSince;
    return down === undefined
      ? `cache not in step: Kubernetes' resource versions started again, and the ${lost.resource} are listed again`
      : `cache not in step: the ${lost.resource} watch has been down for ${
        Math.round((performance.now() - down) / 1000)
      } s, and is listed again when the API server answers`;
  }

  #whyStale(): string | undefined {
    if (!this.#running) return "cache not started";
    if (!this.#isSynced) {
      // Why, when a list failed: /readyz says it, not only the log.
      const failed = this.#reflectors.find((r) => r.reflector.lastFailure);
      return `cache has not listed everything yet${
        failed ? `: ${failed.resource}: ${failed.reflector.lastFailure}` : ""
      }`;
    }
    const now = performance.now();
    const limit = this.#options.staleAfterMs;
    for (const { resource, reflector } of this.#reflectors) {
      // A silent watch is down since it last said something.
      const down = reflector.downSince;
      if (down !== undefined && now - down > limit) {
        return `cache stale: the ${resource} watch has been down for ${
          Math.round((now - down) / 1000)
        } s`;
      }
      const heard = Math.max(reflector.lastInStep, this.#lastAnswered);
      if (down === undefined && now - heard > limit) {
        return `cache stale: the ${resource} watch has been down for ${
          Math.round((now - heard) / 1000)
        } s ${NOT_ANSWERING}`;
      }
    }
    return undefined;
  }

  /**
   * When each resource was last known in step in every namespace, in ms
   * since the epoch; 0 when never.
   */
  lastInStep(): Record<string, number> {
    const clock = this.#clock;
    return Object.fromEntries(
      CACHED_RESOURCES.map((resource) => {
        const times = this.#reflectors.filter((r) => r.resource === resource)
          .map((r) => r.reflector.lastInStep);
        const oldest = Math.min(...times);
        return [
          resource,
          Number.isFinite(oldest) ? clock.wall + (oldest - clock.mono) : 0,
        ];
      }),
    );
  }

  /**
   * Per reflector, the seconds since its store was last known in step (its
   * last list, event or bookmark); since start when never.
   */
  syncAges(): SyncAge[] {
    const now = performance.now();
    return this.#reflectors.map(({ resource, namespace, reflector }) => ({
      resource,
      namespace,
      seconds: (now - Math.max(reflector.lastInStep, this.#clock.mono)) /
        1000,
    }));
  }

  /** Lists made, per resource. */
  relists(): Record<string, number> {
    return { ...this.#relists };
  }

  /** Watches ended or failed and started again, per resource. */
  restarts(): Record<string, number> {
    return { ...this.#restarts };
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#stopping.abort();
    await Promise.all(this.#reflectors.map((r) => r.reflector.stop()));
  }

  /**
   * Asks the API server, every first backoff while a reflector is down,
   * whether it answers; once it answers after failing to, wakes every
   * reflector. An API server that answers probes but fails lists wakes
   * nobody: their backoff grows as it should.
   */
  async #probeUntilBack(): Promise<void> {
    const ping = this.#options.watch.ping?.bind(this.#options.watch);
    if (ping === undefined || this.#probing) return;
    this.#probing = true;
    const every = Math.max(this.#options.backoffMs ?? 1_000, 10);
    let failed = false;
    try {
      // At once, then every first backoff: whether the API server answers
      // decides where reads go (see above).
      while (this.#running && this.#anyDown()) {
        try {
          await ping(
            AbortSignal.any([
              AbortSignal.timeout(PROBE_TIMEOUT_MS),
              this.#stopping.signal,
            ]),
          );
          this.#unreachable = false;
          if (failed) {
            failed = false;
            for (const { reflector } of this.#reflectors) reflector.retryNow();
          }
        } catch {
          failed = this.#unreachable = true;
        }
        await this.#pause(every);
      }
    } finally {
      this.#probing = false;
      this.#unreachable = false;
    }
  }

  /**
   * While running, asks the API server whether it answers whenever a watch
   * has been quiet for half the stale limit (see above); every sixth of
   * the limit, so that a hung API server is noticed within it.
   */
  async #checkQuietWatches(): Promise<void> {
    const ping = this.#options.watch.ping?.bind(this.#options.watch);
    if (ping === undefined) return;
    const limit = this.#options.staleAfterMs;
    while (this.#running) {
      await this.#pause(Math.max(limit / 6, 10));
      const now = performance.now();
      const quiet = this.#reflectors.some(({ reflector }) =>
        reflector.downSince === undefined &&
        now - Math.max(reflector.lastInStep, this.#lastAnswered) > limit / 2
      );
      if (!this.#running || !quiet) continue;
      try {
        await ping(
          AbortSignal.any([
            AbortSignal.timeout(Math.min(PROBE_TIMEOUT_MS, limit / 2)),
            this.#stopping.signal,
          ]),
        );
        this.#lastAnswered = now;
      } catch {
        // Not answering: the quiet watches grow stale.
      }
    }
  }

  /** Waits `ms`, or until stop(). */
  #pause(ms: number): Promise<void> {
    const stopping = this.#stopping.signal;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        stopping.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      stopping.addEventListener("abort", done);
    });
  }

  #anyDown(): boolean {
    return this.#reflectors.some((r) => r.reflector.downSince !== undefined);
  }

  /**
   * The reflectors of one namespace ("" for all): per kind, of its objects
   * and of the Events about them.
   */
  #startIn(namespace: string): void {
    for (const name of KIND_NAMES) this.#reflectKind(name, namespace);
  }

  /** The reflectors of one kind's objects and Events in `namespace`. */
  #reflectKind<K extends KindName>(name: K, namespace: string): void {
    const kind = KINDS[name];
    const held = this.#stores.kinds[name];
    this.#reflect<KindObjects[K]>(namespace, {
      resource: kind.store.objects,
      path: collectionPath(
        servedAt(kind.resource, this.#options.rayCluster),
        namespace,
      ),
      selector: { labelSelector: kind.selector },
      // Trimmed as each page arrives (KindStore.trim).
      normalize: (item) =>
        held.trim(objectOf<KindObjects[K]>(kind.resource, item)),
      apply: (change, ns) => held.applyKept(change, ns),
    });
    if (kind.events === undefined || kind.store.events === undefined) return;
    this.#reflect<KubeEvent>(namespace, {
      resource: kind.store.events,
      path: collectionPath(EVENTS, namespace),
      selector: { fieldSelector: kind.events },
      normalize: (item) => trimEvent(asEvent(item)),
      apply: (change, ns) => held.applyKeptEvents(change, ns),
    });
  }

  #reflect<T extends Reflected>(
    namespace: string,
    { resource, path, selector, normalize, apply }: Reflection<T>,
  ): void {
    const { watch, log, backoffMs, bookmarkIntervalMs } = this.#options;
    const reflector = startReflector<T>({
      resource,
      namespace,
      list: (from) => listInPages(watch, path, selector, normalize, from),
      currentVersion: (signal) => currentVersion(watch, path, selector, signal),
      watchPath: path,
      ...selector,
      watch,
      onChange: (change) =>
        apply(
          change.type === "replace"
            ? change
            : { ...change, item: normalize(change.item) },
          namespace,
        ),
      onEvent: (event) => {
        if (event === "relist") this.#relists[resource]++;
        else if (event !== "reset") this.#restarts[resource]++;
        if (event === "failure") this.#probeUntilBack();
      },
      log,
      backoffMs,
      silenceLimitMs: bookmarkIntervalMs && 2 * bookmarkIntervalMs,
      versions: this.#versions,
    });
    this.#reflectors.push({ resource, namespace, reflector });
  }
}

/**
 * One full garbage collection once the first lists are in, when V8 lets
 * Corral ask for it (--v8-flags=--expose-gc, as `deno task start` and the
 * image run it): the first lists leave tens of MB of parsed pages behind
 * at once, which V8 would otherwise keep, and the RSS with them, until the
 * old generation grows enough to be collected (bench/size.ts measures it).
 * The "last-resort" flavour is V8's collection under memory pressure: it
 * also gives the freed pages back to the system, which a plain one keeps
 * for later (at 50,000 clusters a plain one left the RSS where it was).
 */
function collectFirstListsGarbage(): void {
  const gc = (globalThis as { gc?: (options?: GcOptions) => void }).gc;
  gc?.({ type: "major", execution: "sync", flavor: "last-resort" });
}

/** What V8's exposed gc() takes. */
export interface GcOptions {
  type: "major" | "minor";
  execution: "sync" | "async";
  flavor: "regular" | "last-resort";
}
