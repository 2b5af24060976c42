/**
 * The handlers of WatchClusters and WatchRayJobs: a stream of the clusters'
 * or the jobs' changes from the cache (kind_watch.ts), of one namespace or
 * of every namespace the dispatcher found the caller may watch.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import type {
  WatchClustersRequest,
  WatchClustersResponse,
  WatchRayJobsRequest,
  WatchRayJobsResponse,
} from "../../domain/types.ts";
import { validateClusterKey } from "../../domain/key_validation.ts";
import type { ClusterWatch, JobWatch } from "./kind_watch.ts";
import type { CallContext } from "./rpcs.ts";
import type { WatchRequest } from "./watch_fanout.ts";

export class WatchHandlers {
  constructor(
    private readonly watches: ClusterWatch | undefined,
    private readonly jobWatches?: JobWatch,
  ) {}

  // deno-lint-ignore require-await
  async watchClusters(
    request: WatchClustersRequest,
    call: CallContext,
  ): Promise<AsyncIterableIterator<WatchClustersResponse>> {
    const watch = watchRequest(request, call);
    return servedBy(this.watches, call).watch(watch);
  }

  /** WatchRayJobs: as WatchClusters, of the jobs. */
  // deno-lint-ignore require-await
  async watchRayJobs(
    request: WatchRayJobsRequest,
    call: CallContext,
  ): Promise<AsyncIterableIterator<WatchRayJobsResponse>> {
    const watch = watchRequest(request, call);
    return servedBy(this.jobWatches, call).watch(watch);
  }
}

/**
 * What the fan-out is asked for: the namespaces of the call's scope, and
 * the name filter, validated as a key (INVALID_ARGUMENT naming `name`).
 */
function watchRequest(
  request: { name: string; resourceVersion: string },
  { scope, action }: CallContext,
): WatchRequest {
  const { name } = request;
  const namespaces = scope.kind === "namespace"
    ? [scope.namespace]
    : scope.namespaces;
  if (name !== "") {
    const namespace = scope.kind === "namespace" ? scope.namespace : undefined;
    validateClusterKey({ namespace, name }, action);
  }
  return {
    namespaces,
    hidden: scope.kind === "namespaces" ? scope.hidden : undefined,
    name,
    resourceVersion: request.resourceVersion,
  };
}

/** `fanout`; UNIMPLEMENTED when there is none (no cache). */
function servedBy<T>(fanout: T | undefined, { action }: CallContext): T {
  if (fanout) return fanout;
  throw new ServiceError(
    Code.UNIMPLEMENTED,
    `${action}: watching needs the cache, and this Corral runs without it (--cache off)`,
  );
}
