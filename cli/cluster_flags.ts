/**
 * A new cluster described by flags instead of a file: `--template` (the
 * compute template of the head and the workers), `--workers` (how many),
 * `--image` or `--version` (what they run). One reading of those flags, so
 * that every command making a cluster this way takes them alike (`jobs
 * submit` does; `clusters create` may take them next to -f).
 */
import {
  type Flags,
  type ParsedArgs,
  stringFlag,
  wholeNumber,
} from "./args.ts";

/** The group the workers are in. */
export const WORKER_GROUP = "workers";

export const NEW_CLUSTER_FLAGS: Flags = {
  template: {
    type: "string",
    value: "NAME",
    help: "compute template of the new cluster's head and workers",
  },
  workers: {
    type: "string",
    value: "N",
    help: "workers of the new cluster (default 1)",
  },
  image: {
    type: "string",
    value: "IMAGE",
    help: "image of the new cluster, e.g. rayproject/ray:2.9.0",
  },
  version: {
    type: "string",
    value: "VERSION",
    help: "Ray version of the new cluster (its default image), e.g. 2.9.0",
  },
};

/**
 * `--queue`: the Kueue LocalQueue a new cluster waits in for capacity (the
 * API's `queue`); the policy's default queue when not given.
 */
export const QUEUE_FLAG: Flags = {
  queue: {
    type: "string",
    value: "NAME",
    help:
      "Kueue queue the cluster waits in for capacity (default: the policy's)",
  },
};

/** The `queue` field `--queue` sets, or nothing when it is not given. */
export function queueOf(values: ParsedArgs["values"]): { queue?: string } {
  const queue = stringFlag(values, "queue");
  return queue === undefined ? {} : { queue };
}

/** Whether any flag of a new cluster is given. */
export function wantsNewCluster(values: ParsedArgs["values"]): boolean {
  return Object.keys(NEW_CLUSTER_FLAGS).some((name) =>
    values[name] !== undefined
  );
}

/** The cluster spec the flags describe (clusterSpecOf). */
export type NewClusterSpec = ReturnType<typeof clusterSpecOf>;

/**
 * The cluster spec the flags describe, in the API's JSON: a head and one
 * worker group of `--workers` replicas (0 to that many), on `--template`,
 * with `--image` when given. Corral checks the rest (that the template
 * exists, that an image or version is given) and names the field.
 */
export function clusterSpecOf(values: ParsedArgs["values"]) {
  const computeTemplate = stringFlag(values, "template") ?? "";
  const replicas = wholeNumber(values, "workers") ?? 1;
  const imageFlag = stringFlag(values, "image");
  const image = imageFlag ? { image: imageFlag } : {};
  return {
    headGroupSpec: { computeTemplate, ...image },
    workerGroupSpec: replicas === 0 ? [] : [{
      groupName: WORKER_GROUP,
      computeTemplate,
      replicas,
      minReplicas: 0,
      maxReplicas: replicas,
      ...image,
    }],
  };
}
