/**
 * Queues (Kueue): how a cluster's or job's `queue` is written on its
 * RayCluster or RayJob and read back. Kueue's integrations take the object
 * labelled `kueue.x-k8s.io/queue-name: <LocalQueue>`, expect it created
 * suspended (`spec.suspend: true`, what Kueue's own webhook would set), and
 * clear spec.suspend once the queue's ClusterQueue has room for it.
 *
 * While a queued object is suspended it has not been admitted (or was
 * evicted): Corral answers "waiting for capacity" where the operator would
 * say "suspended" or nothing, a state people understand.
 */
import type { FieldViolation } from "./errors.ts";
import { isDns1123Label, MAX_LABEL_LENGTH } from "./kubernetes_names.ts";

/** Kueue's label naming the LocalQueue of a workload. */
export const QUEUE_LABEL = "kueue.x-k8s.io/queue-name";

/** A queued cluster's state until Kueue admits it. */
export const WAITING_FOR_CAPACITY = "waiting for capacity";

/**
 * The problem of a queue name, or undefined when it is one. A LocalQueue
 * is a Kubernetes object, and its name is a label value too: a DNS-1123
 * label (at most 63 characters).
 */
export function queueNameProblem(name: string): string | undefined {
  return isDns1123Label(name)
    ? undefined
    : `must be a Kubernetes object name: lower case letters, digits and '-', starting and ending with a letter or digit, at most ${MAX_LABEL_LENGTH} characters`;
}

/** The violations of `queue` at `field` ("cluster.queue"); [] when empty. */
export function queueViolations(
  field: string,
  queue: string | undefined,
): FieldViolation[] {
  if (!queue) return [];
  const problem = queueNameProblem(queue);
  return problem ? [{ field, description: problem }] : [];
}

/** The labels that put an object in `queue`: none when empty. */
export function queueLabels(queue: string | undefined): Record<string, string> {
  return queue ? { [QUEUE_LABEL]: queue } : {};
}

/** The queue an object's labels name; "" for none. */
export function queueOf(labels: Record<string, string> | undefined): string {
  return labels?.[QUEUE_LABEL] ?? "";
}

/**
 * Whether an object waits in its queue: labelled with one and suspended.
 * Kueue clears spec.suspend when it admits the object.
 */
export function isWaitingInQueue(
  labels: Record<string, string> | undefined,
  spec: { readonly [key: string]: unknown } | undefined,
): boolean {
  return queueOf(labels) !== "" && spec?.suspend === true;
}

/**
 * A queued cluster's state: "waiting for capacity" while it waits, in
 * place of the operator's "suspended" (or nothing yet); `state` otherwise.
 */
export function queuedClusterState(
  labels: Record<string, string> | undefined,
  spec: { readonly [key: string]: unknown } | undefined,
  state: string,
): string {
  if (!isWaitingInQueue(labels, spec)) return state;
  return state === "" || state === "suspended" ? WAITING_FOR_CAPACITY : state;
}

/**
 * A queued job's message while it waits: the operator's deployment status
 * stays (Suspended, as KubeRay writes it), and the message says why.
 */
export function queuedJobMessage(
  labels: Record<string, string> | undefined,
  spec: { readonly [key: string]: unknown } | undefined,
  message: string,
): string {
  if (!isWaitingInQueue(labels, spec)) return message;
  return `${WAITING_FOR_CAPACITY} in queue "${queueOf(labels)}"`;
}
