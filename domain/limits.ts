/**
 * Upper bounds on what one request may ask for. Each has a flag, so a
 * platform team can raise it (settings.ts parses them); a violation names
 * the flag. The defaults are generous for one team's clusters and small
 * enough that a careless or hostile caller cannot write a RayCluster that
 * asks the scheduler for two billion pods.
 */

export interface Limits {
  /** replicas, minReplicas and maxReplicas of each worker group. */
  maxReplicas: number;
  /** Worker groups of one cluster. */
  maxWorkerGroups: number;
  /** A compute template's cpu (cores). */
  maxTemplateCpu: number;
  /** A compute template's memory (GiB). */
  maxTemplateMemory: number;
  /** A compute template's gpu (devices). */
  maxTemplateGpu: number;
  /** Entries of each map field (envs, engineStartParams). */
  maxMapEntries: number;
}

export const DEFAULT_LIMITS: Readonly<Limits> = {
  maxReplicas: 1_000,
  maxWorkerGroups: 20,
  maxTemplateCpu: 1_024,
  maxTemplateMemory: 16_384,
  maxTemplateGpu: 64,
  maxMapEntries: 100,
};

/** The flag that sets each limit, as violations name it. */
export const LIMIT_FLAGS: Readonly<Record<keyof Limits, string>> = {
  maxReplicas: "max-replicas",
  maxWorkerGroups: "max-worker-groups",
  maxTemplateCpu: "max-template-cpu",
  maxTemplateMemory: "max-template-memory",
  maxTemplateGpu: "max-template-gpu",
  maxMapEntries: "max-map-entries",
};

/**
 * The largest value a limit flag takes: replicas are int32 in the CRD, and
 * no other bound needs more.
 */
export const MAX_LIMIT = 2_147_483_647;

/**
 * Fixed bounds on keys and values, set by the places they land rather than
 * by policy, so they have no flag.
 *
 * An environment variable's value lands in the container's environment:
 * Linux takes each `NAME=value` string up to 128 KiB and all of argv and
 * the environment together up to about 2 MiB (ARG_MAX), so 100 values of
 * 4 KiB leave room for the image's own. Kubernetes sets no limit on the
 * name; 256 characters keeps a name a name.
 *
 * A start parameter lands in the ray start command line, which the
 * operator hands to the shell as one argument (`bash -lc -- "... ray start
 * --key=value ..."`); Linux takes one argument up to 128 KiB. At the
 * default of 100 entries, keys of 63 and values of 1 KiB stay under that
 * (100 x (2 + 63 + 1 + 1024 + 1) = 109,100 bytes).
 */
export const MAX_ENV_NAME_LENGTH = 256;
export const MAX_ENV_VALUE_LENGTH = 4_096;
export const MAX_START_PARAM_NAME_LENGTH = 63;
export const MAX_START_PARAM_VALUE_LENGTH = 1_024;
