/**
 * Leader election over a coordination.k8s.io/v1 Lease, as client-go's
 * tools/leaderelection does it, so that of several Corral replicas exactly
 * one does the work that must happen once (deleting expired clusters).
 *
 * The contract, as client-go's:
 * - A candidate takes the Lease when it does not exist, when it holds it
 *   already, or when the holder has not renewed it for `leaseDurationMs`
 *   as this candidate observed it: time is measured on the local clock from
 *   the moment the record last changed, never from the `renewTime` written
 *   by another machine, so clock skew between replicas does not matter.
 * - Every write is a replace carrying the resourceVersion read just before:
 *   of two candidates racing, the API server lets one win (409 for the
 *   other).
 * - The leader renews every `retryPeriodMs`; when it has not renewed for
 *   `renewDeadlineMs` it stops leading (before the others may take over,
 *   since the renew deadline is shorter than the lease duration).
 * - `isLeader()` is true only while the last successful renew is younger
 *   than the renew deadline, so work checked against it stops in time.
 */

import type { CoordinationV1Api, V1Lease } from "@kubernetes/client-node";
import { Code, ServiceError } from "../domain/errors.ts";
import type { Logger } from "../domain/log.ts";
import { KubernetesCaller } from "./kubernetes_call.ts";
import type { KubernetesCall } from "./errors.ts";

/** The CoordinationV1Api methods the elector calls. */
export type LeasePort = Pick<
  CoordinationV1Api,
  "readNamespacedLease" | "createNamespacedLease" | "replaceNamespacedLease"
>;

export interface LeaderElectionOptions {
  leases: LeasePort;
  /** Where the Lease lives and what it is called. */
  namespace: string;
  name: string;
  /** This candidate, unique among replicas: pod name or hostname + random. */
  identity: string;
  /** client-go's defaults: 15 s, 10 s and 2 s. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  log: Logger;
  /** Local monotonic-enough clock in ms; a test may move it. */
  now?: () => number;
}

export const DEFAULT_LEASE_DURATION_MS = 15_000;
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
export const DEFAULT_RETRY_PERIOD_MS = 2_000;

/** The Lease spec fields the election reads and writes. */
interface LeaseRecord {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: Date;
  renewTime?: Date;
  leaseTransitions?: number;
}

/** One candidate; start() runs it until stop(). */
export class LeaderElector {
  readonly identity: string;
  readonly #options: LeaderElectionOptions;
  readonly #leaseDurationMs: number;
  readonly #renewDeadlineMs: number;
  readonly #retryPeriodMs: number;
  readonly #caller: KubernetesCaller;
  readonly #now: () => number;
  readonly #stopped = new AbortController();
  /** The record as last read or written, and when it last changed locally. */
  #observed = "";
  #observedAt = 0;
  #lastRenew = -Infinity;
  #leading = false;
  #running: Promise<void> | undefined;

  constructor(options: LeaderElectionOptions) {
    this.#options = options;
    this.identity = options.identity;
    this.#leaseDurationMs = options.leaseDurationMs ??
      DEFAULT_LEASE_DURATION_MS;
    this.#renewDeadlineMs = options.renewDeadlineMs ??
      DEFAULT_RENEW_DEADLINE_MS;
    this.#retryPeriodMs = options.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
    if (
      !(this.#renewDeadlineMs < this.#leaseDurationMs) ||
      !(this.#retryPeriodMs < this.#renewDeadlineMs)
    ) {
      throw new Error(
        "Cannot start leader election: the renew deadline must be shorter than the lease duration, and the retry period shorter than the renew deadline",
      );
    }
    // Each call is bounded by the retry period so a hung API server does
    // not keep a leader believing it renewed.
    this.#caller = new KubernetesCaller({
      timeoutMs: this.#retryPeriodMs,
      readAttempts: 1,
    });
    this.#now = options.now ?? (() => performance.now());
  }

  /** Starts campaigning; idempotent. */
  start(): void {
    this.#running ??= this.#run();
  }

  /**
   * True while this candidate holds the Lease and renewed it within the
   * renew deadline: work that must happen once checks it right before.
   */
  isLeader(): boolean {
    return this.#leading &&
      this.#now() - this.#lastRenew < this.#renewDeadlineMs;
  }

  /**
   * Stops campaigning. With `release`, a leader gives the Lease up (holder
   * emptied, as client-go's ReleaseOnCancel) so another takes over at once;
   * without, the others wait for the lease to run out, as after a crash.
   */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    this.#stopped.abort();
    await this.#running;
    if (options.release && this.#leading) await this.#release();
    this.#setLeading(false);
  }

  async #run(): Promise<void> {
    const signal = this.#stopped.signal;
    while (!signal.aborted) {
      const renewed = await this.#tryAcquireOrRenew();
      if (renewed) this.#lastRenew = this.#now();
      this.#setLeading(
        this.#leading
          ? this.#now() - this.#lastRenew < this.#renewDeadlineMs
          : renewed,
      );
      await pause(this.#retryPeriodMs, signal);
    }
  }

  #setLeading(leading: boolean): void {
    if (leading === this.#leading) return;
    this.#leading = leading;
    const fields = {
      namespace: this.#options.namespace,
      lease: this.#options.name,
      identity: this.identity,
    };
    if (leading) this.#options.log.info("Became leader", fields);
    else this.#options.log.info("Stopped leading", fields);
  }

  /** One attempt: true when this candidate holds the Lease afterwards. */
  async #tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name } = this.#options;
    const now = new Date();
    try {
      const lease = await this.#read();
      if (lease === undefined) {
        await this.#write("create", {
          metadata: { name, namespace },
          spec: this.#record({}, now),
        });
        return true;
      }
      const spec: LeaseRecord = lease.spec ?? {};
      const raw = JSON.stringify(spec);
      if (raw !== this.#observed) {
        this.#observed = raw;
        this.#observedAt = this.#now();
      }
      const holder = spec.holderIdentity ?? "";
      const duration = (spec.leaseDurationSeconds ?? 0) * 1000;
      if (
        holder !== "" && holder !== this.identity &&
        this.#now() - this.#observedAt < duration
      ) return false;
      await this.#write("update", {
        ...lease,
        spec: this.#record(spec, now),
      });
      return true;
    } catch (error) {
      if (!this.#stopped.signal.aborted) {
        this.#options.log.debug("Failed to acquire or renew lease", {
          namespace,
          lease: name,
          error: error instanceof Error ? error.message : String(error),
        });
      }
      return false;
    }
  }

  /** The record this candidate writes over `previous` at `now`. */
  #record(previous: LeaseRecord, now: Date): LeaseRecord {
    const mine = previous.holderIdentity === this.identity;
    return {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.max(
        1,
        Math.ceil(this.#leaseDurationMs / 1000),
      ),
      acquireTime: mine && previous.acquireTime ? previous.acquireTime : now,
      renewTime: now,
      leaseTransitions: (previous.leaseTransitions ?? 0) +
        (mine || previous.holderIdentity === undefined ? 0 : 1),
    };
  }

  async #read(): Promise<V1Lease | undefined> {
    const { namespace, name } = this.#options;
    try {
      return await this.#caller.call(
        this.#call("get"),
        "leases",
        (config) =>
          this.#options.leases.readNamespacedLease({ name, namespace }, config),
      );
    } catch (error) {
      if (error instanceof ServiceError && error.code === Code.NOT_FOUND) {
        return undefined;
      }
      throw error;
    }
  }

  /** A create or a replace; the replace carries the read resourceVersion. */
  async #write(verb: "create" | "update", body: V1Lease): Promise<void> {
    const { namespace, name } = this.#options;
    const written = await this.#caller.call(
      this.#call(verb),
      "leases",
      (config) =>
        verb === "create"
          ? this.#options.leases.createNamespacedLease(
            { namespace, body },
            config,
          )
          : this.#options.leases.replaceNamespacedLease(
            { name, namespace, body },
            config,
          ),
    );
    this.#observed = JSON.stringify(written.spec ?? {});
    this.#observedAt = this.#now();
  }

  /** Empties the holder so the next candidate need not wait (best effort). */
  async #release(): Promise<void> {
    try {
      const lease = await this.#read();
      if (lease?.spec?.holderIdentity !== this.identity) return;
      await this.#write("update", {
        ...lease,
        spec: {
          ...lease.spec,
          holderIdentity: undefined,
          leaseDurationSeconds: 1,
        },
      });
    } catch {
      // The lease then runs out on its own.
    }
  }

  #call(verb: KubernetesCall["verb"]): KubernetesCall {
    const { namespace, name } = this.#options;
    return {
      action: `Cannot ${verb} lease "${namespace}/${name}"`,
      verb,
      noun: "lease",
    };
  }
}

/** Waits `ms`, or less when `signal` aborts; never rejects. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

/**
 * This replica's identity: the pod name (HOSTNAME in a pod) or the host's
 * name, with a random suffix so two processes on one host differ.
 */
export function leaderIdentity(hostname: string): string {
  const suffix = crypto.randomUUID().slice(0, 8);
  return `${hostname || "corral"}_${suffix}`;
}
