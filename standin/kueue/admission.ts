/**
 * The simulated Kueue's decisions, pure: what a workload (a queued
 * RayCluster or RayJob) asks of its ClusterQueue, and which of the waiting
 * ones to admit. Kueue's own rules, cut down:
 *
 * - A workload's request is its pods': the head and each worker group at
 *   its replicas, each pod its containers' requests (a resource without a
 *   request counts its limit, as Kubernetes defaults the one to the other),
 *   for the resources the ClusterQueue covers (cpu, memory,
 *   nvidia.com/gpu, ...). (Kueue counts a RayJob's submitter pod too; it
 *   is left out here.)
 * - A ClusterQueue's capacity is its first flavor's nominalQuota per
 *   resource (no borrowing, no cohorts, no preemption).
 * - Waiting workloads are taken in creation order (then as first seen); one
 *   whose request fits beside those admitted is admitted. StrictFIFO stops
 *   at the first that does not fit; BestEffortFIFO, Kueue's default, goes
 *   on to smaller ones behind it.
 */

/** A queued object as the simulated Kueue sees it. */
export interface Workload {
  /** "RayCluster" or "RayJob". */
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  creationTimestamp: string;
  /**
   * The order it was first seen in: creationTimestamp has whole seconds,
   * and Kueue's Workload a finer one; what a watch delivers is in creation
   * order (a relist, by name within a second).
   */
  seen: number;
  /** The LocalQueue its label names. */
  queue: string;
  /** Suspended: waiting (or never admitted); false: admitted. */
  suspended: boolean;
  /** Amounts by resource name: cores, bytes, devices. */
  request: Record<string, number>;
}

/** A ClusterQueue's capacity and order. */
export interface Capacity {
  name: string;
  strategy: "StrictFIFO" | "BestEffortFIFO";
  /** Nominal quota by resource name, in the request's units. */
  nominal: Record<string, number>;
}

/** What one pass decides for one ClusterQueue. */
export interface Decision {
  admit: Workload[];
  /** Those left waiting, each with Kueue's kind of reason. */
  pending: { workload: Workload; reason: string }[];
  /** Admitted (before this pass or by it). */
  admitted: Workload[];
}

const BINARY: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
};
const DECIMAL: Record<string, number> = {
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
};

/**
 * A Kubernetes quantity ("500m", "4Gi", "2", 2) as a number of its base
 * unit; 0 for what is not one.
 */
export function quantityOf(value: unknown): number {
  if (typeof value === "number") return Number.isFinite(value) ? value : 0;
  if (typeof value !== "string") return 0;
  const match = /^([0-9]+(?:\.[0-9]+)?)([A-Za-z]*)$/.exec(value.trim());
  if (!match) return 0;
  const scale = BINARY[match[2]] ?? DECIMAL[match[2]] ??
    (match[2] === "" ? 1 : 0);
  return Number(match[1]) * scale;
}

type Obj = Record<string, unknown>;

function obj(value: unknown): Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Obj
    : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Adds one pod's requests, `times` over, to `into`. */
function addPod(
  into: Record<string, number>,
  template: unknown,
  times: number,
) {
  for (const container of list(obj(obj(template).spec).containers)) {
    const resources = obj(obj(container).resources);
    const requests = obj(resources.requests);
    const limits = obj(resources.limits);
    for (
      const name of new Set([...Object.keys(limits), ...Object.keys(requests)])
    ) {
      const amount = quantityOf(requests[name] ?? limits[name]);
      into[name] = (into[name] ?? 0) + amount * times;
    }
  }
}

/**
 * What a RayCluster spec asks for: the head pod and each worker group at
 * its replicas (its minReplicas when replicas is not set, the CRD's 0
 * otherwise).
 */
export function clusterRequest(spec: unknown): Record<string, number> {
  const request: Record<string, number> = {};
  addPod(request, obj(obj(spec).headGroupSpec).template, 1);
  for (const group of list(obj(spec).workerGroupSpecs)) {
    const g = obj(group);
    const replicas = typeof g.replicas === "number"
      ? g.replicas
      : typeof g.minReplicas === "number"
      ? g.minReplicas
      : 0;
    addPod(request, g.template, replicas);
  }
  return request;
}

/** A ClusterQueue object's capacity (its first flavor of each group). */
export function capacityOf(clusterQueue: Obj): Capacity {
  const spec = obj(clusterQueue.spec);
  const nominal: Record<string, number> = {};
  for (const group of list(spec.resourceGroups)) {
    const [flavor] = list(obj(group).flavors);
    for (const resource of list(obj(flavor).resources)) {
      const r = obj(resource);
      if (typeof r.name === "string") {
        nominal[r.name] = quantityOf(r.nominalQuota);
      }
    }
  }
  return {
    name: String(obj(clusterQueue.metadata).name ?? ""),
    strategy: spec.queueingStrategy === "StrictFIFO"
      ? "StrictFIFO"
      : "BestEffortFIFO",
    nominal,
  };
}

/** Creation order (then the order seen): the queue's order. */
export function byCreation(a: Workload, b: Workload): number {
  return a.creationTimestamp.localeCompare(b.creationTimestamp) ||
    a.seen - b.seen;
}

/** How a resource's amount reads in a reason: cores, Gi, devices. */
function shown(resource: string, amount: number): string {
  if (resource === "memory") {
    return `${Math.round((amount / 2 ** 30) * 100) / 100}Gi`;
  }
  return `${Math.round(amount * 1000) / 1000}`;
}

/**
 * Why `request` does not fit beside `used` in `capacity`, as Kueue words
 * it; undefined when it fits.
 */
export function misfit(
  request: Record<string, number>,
  used: Record<string, number>,
  capacity: Capacity,
): string | undefined {
  for (const [resource, amount] of Object.entries(request)) {
    if (amount <= 0) continue;
    const nominal = capacity.nominal[resource];
    if (nominal === undefined) {
      return `couldn't assign flavors to pod set main: resource ${resource} unavailable in ClusterQueue`;
    }
    const free = nominal - (used[resource] ?? 0);
    if (amount > free + 1e-9) {
      return amount > nominal
        ? `couldn't assign flavors to pod set main: insufficient quota for ${resource} in flavor default-flavor, request > maximum capacity (${
          shown(resource, amount)
        } > ${shown(resource, nominal)})`
        : `couldn't assign flavors to pod set main: insufficient unused quota for ${resource} in flavor default-flavor, ${
          shown(resource, amount - free)
        } more needed`;
    }
  }
  return undefined;
}

/**
 * One pass over a ClusterQueue's workloads: which waiting ones to admit
 * now, in creation order, while they fit beside those admitted.
 */
export function decide(
  workloads: readonly Workload[],
  capacity: Capacity,
): Decision {
  const admitted = workloads.filter((w) => !w.suspended);
  const used: Record<string, number> = {};
  for (const w of admitted) {
    for (const [resource, amount] of Object.entries(w.request)) {
      used[resource] = (used[resource] ?? 0) + amount;
    }
  }
  const admit: Workload[] = [];
  const pending: Decision["pending"] = [];
  let blocked = false;
  for (
    const workload of workloads.filter((w) => w.suspended).sort(byCreation)
  ) {
    const why = blocked
      ? "waiting for the workloads ahead of it in the queue (StrictFIFO)"
      : misfit(workload.request, used, capacity);
    if (why) {
      pending.push({ workload, reason: why });
      if (capacity.strategy === "StrictFIFO") blocked = true;
      continue;
    }
    admit.push(workload);
    for (const [resource, amount] of Object.entries(workload.request)) {
      used[resource] = (used[resource] ?? 0) + amount;
    }
  }
  return { admit, pending, admitted: [...admitted, ...admit] };
}
