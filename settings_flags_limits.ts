/** The flags of request limits, the Kubernetes client and its cache. */
import { DEFAULT_LIMITS } from "./domain/limits.ts";
import type { Spec } from "./settings_flags_spec.ts";

export const LIMIT_SPECS = {
  "max-body-bytes": {
    env: "CORRAL_MAX_BODY_BYTES",
    default: "3Mi",
    value: "SIZE",
    help:
      "largest request body (HTTP) or message (gRPC); larger ones are refused with code 8 (e.g. 3Mi, 512Ki)",
  },
  "max-replicas": {
    env: "CORRAL_MAX_REPLICAS",
    default: String(DEFAULT_LIMITS.maxReplicas),
    value: "N",
    help:
      "most replicas, minReplicas and maxReplicas of one worker group; more is refused with code 3",
  },
  "max-worker-groups": {
    env: "CORRAL_MAX_WORKER_GROUPS",
    default: String(DEFAULT_LIMITS.maxWorkerGroups),
    value: "N",
    help: "most worker groups of one cluster; more is refused with code 3",
  },
  "max-template-cpu": {
    env: "CORRAL_MAX_TEMPLATE_CPU",
    default: String(DEFAULT_LIMITS.maxTemplateCpu),
    value: "N",
    help: "most CPU cores of a compute template; more is refused with code 3",
  },
  "max-template-memory": {
    env: "CORRAL_MAX_TEMPLATE_MEMORY",
    default: String(DEFAULT_LIMITS.maxTemplateMemory),
    value: "GIB",
    help:
      "most memory of a compute template, in GiB; more is refused with code 3",
  },
  "max-template-gpu": {
    env: "CORRAL_MAX_TEMPLATE_GPU",
    default: String(DEFAULT_LIMITS.maxTemplateGpu),
    value: "N",
    help:
      "most GPUs of a compute template (0 allows none); more is refused with code 3",
  },
  "max-map-entries": {
    env: "CORRAL_MAX_MAP_ENTRIES",
    default: String(DEFAULT_LIMITS.maxMapEntries),
    value: "N",
    help:
      "most entries of each map field (envs, engineStartParams); more is refused with code 3",
  },
  "kube-timeout": {
    env: "CORRAL_KUBE_TIMEOUT",
    default: "10s",
    value: "DURATION",
    help:
      "time limit of each Kubernetes API call; past it the request fails with code 4",
  },
  cache: {
    env: "CORRAL_CACHE",
    default: "on",
    value: "on|off",
    help:
      "on: reads come from a watch-backed cache of the clusters, templates and events (list once, then watch); off: every read asks Kubernetes",
  },
  "cache-stale-after": {
    env: "CORRAL_CACHE_STALE_AFTER",
    default: "30s",
    value: "DURATION",
    help:
      "a lost watch (its connection failed, or the API server ended it early) makes the cache not ready at once, until it is listed again; reads come from memory while the API server does not answer, for up to this long (or while a watch is quiet and the API server does not answer a probe), then go to Kubernetes (503 code 14 at once while it does not answer)",
  },
  "cache-miss-qps": {
    env: "CORRAL_CACHE_MISS_QPS",
    default: "20",
    value: "N",
    help:
      "most Kubernetes lookups a second of names the cache does not hold (one per name at a time, a 404 remembered for 1 s); past it such a get answers 404 from the cache at once; 0 makes none",
  },
  "cache-bookmark-interval": {
    env: "CORRAL_CACHE_BOOKMARK_INTERVAL",
    default: "60s",
    value: "DURATION",
    help:
      "how often the API server sends each watch a BOOKMARK (kube-apiserver: about every minute); a cache watch silent for twice this is restarted",
  },
  "watch-max-duration": {
    env: "CORRAL_WATCH_MAX_DURATION",
    default: "30m",
    value: "DURATION",
    help:
      "the longest a watch stream lasts: each ends, cleanly and after a BOOKMARK to resume from, at a random time between half this and this, so that clients reconnect and are authorized again",
  },
} as const satisfies Record<string, Spec>;
