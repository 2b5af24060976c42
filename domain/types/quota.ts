// Generated from proto/quota.proto by `deno task types:gen` (tools/types_gen.ts).
// Do not edit: change the .proto files and run the task again.

/** The namespace whose usage to read. */
export interface GetQuotaUsageRequest {
  /** The namespace. */
  namespace: string;
}

/**
 * What some workloads hold: clusters, workers (the sum of worker groups'
 * max replicas), and CPUs, accelerators and memory (GiB) of their pods,
 * head included, each worker group at its max replicas, and jobs'
 * submitter pods.
 */
export interface QuotaAmounts {
  /** Clusters: RayClusters, jobs' own clusters and services' clusters. */
  clusters: number;
  /** Workers: the sum of worker groups' max replicas. */
  workers: number;
  /** CPUs of the pods. */
  cpu: number;
  /**
   * Accelerators of the pods: the devices of every resource the policy's
   * `accelerators` names (by default nvidia.com/gpu, nvidia.com/mig-*,
   * amd.com/gpu, gpu.intel.com/*, google.com/tpu, aws.amazon.com/neuron*,
   * habana.ai/gaudi).
   */
  gpu: number;
  /** Memory of the pods, in GiB. */
  memoryGib: number;
  /**
   * Accelerators by resource name ("nvidia.com/mig-1g.10gb"), each also
   * counted in `gpu`: all of them in what a namespace holds, those a quota
   * names in a quota's limits and usage.
   */
  accelerators: Record<string, number>;
}

/** One quota of the policy as it applies to the caller. */
export interface QuotaStatus {
  /**
   * "team-a" for the namespace's total, `user "ada" in team-a` for a
   * quota that counts each user's own clusters.
   */
  scope: string;
  /**
   * The limits; a dimension the quota does not limit is absent from
   * `limited`.
   */
  limits?: QuotaAmounts;
  /**
   * The dimensions the quota limits: clusters, workers, cpu, gpu, memory,
   * and the accelerator resources it names ("nvidia.com/mig-1g.10gb").
   */
  limited: string[];
  /** What the quota counts now. */
  used?: QuotaAmounts;
}

/** A namespace's usage and the quotas that apply to the caller there. */
export interface GetQuotaUsageResponse {
  /** The namespace. */
  namespace: string;
  /** What the whole namespace holds. */
  used?: QuotaAmounts;
  /** The quotas that apply to the caller here, in the policy's order. */
  quotas: QuotaStatus[];
}
