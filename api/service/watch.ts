/**
 * The handler of WatchClusters: a stream of the clusters' changes from the
 * cache (cluster_watch.ts), of one namespace or of every namespace the
 * dispatcher found the caller may watch.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import type {
  WatchClustersRequest,
  WatchClustersResponse,
} from "../../domain/types.ts";
import { validateClusterKey } from "../../domain/validation.ts";
import type { ClusterWatch } from "./cluster_watch.ts";
import type { CallContext } from "./rpcs.ts";

export class WatchHandlers {
  constructor(private readonly watches: ClusterWatch | undefined) {}

  // deno-lint-ignore require-await
  async watchClusters(
    request: WatchClustersRequest,
    { scope, action }: CallContext,
  ): Promise<AsyncIterableIterator<WatchClustersResponse>> {
    const { name } = request;
    const namespaces = scope.kind === "namespace"
      ? [scope.namespace]
      : scope.namespaces;
    if (name !== "") {
      const namespace = scope.kind === "namespace"
        ? scope.namespace
        : undefined;
      validateClusterKey({ namespace, name }, action);
    }
    if (!this.watches) {
      throw new ServiceError(
        Code.UNIMPLEMENTED,
        `${action}: watching needs the cache, and this Corral runs without it (--cache off)`,
      );
    }
    return this.watches.watch({
      namespaces,
      hidden: scope.kind === "namespaces" ? scope.hidden : undefined,
      name,
      resourceVersion: request.resourceVersion,
    });
  }
}
