/**
 * ExtendCluster: pushes a cluster's expiry (the RayCluster's annotation
 * corral.dev/expires-at) back by a duration, within the policy's maximum
 * for the namespace. The new time is computed from the stored one and
 * written with the read's resourceVersion as the precondition, so two
 * extends at once both count (the loser is redone on the fresh cluster).
 * A cluster the operator made for a RayJob or a RayService expires with
 * its owner, whose expiry it carries (domain/expiring.ts): extending it is
 * FAILED_PRECONDITION naming the owner, where it would move a time that
 * nothing acts on. The deleting of what expired is expiry_worker.ts.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import { clusterFromResource } from "../../domain/conversions.ts";
import {
  EXPIRES_AT_ANNOTATION,
  expiryAnnotation,
  expiryOf,
  extendedExpiry,
} from "../../domain/expiry.ts";
import { clusterOwner } from "../../domain/expiring.ts";
import { KINDS } from "../../domain/kinds.ts";
import type { RayCluster } from "../../domain/resources.ts";
import type { Cluster, ExtendClusterRequest } from "../../domain/types.ts";
import { UPDATE_CLUSTER } from "./clusters.ts";
import { checkOwner } from "../auth/owners.ts";
import type { CallContext, NamespaceScope } from "./rpcs.ts";
import type { Service } from "./service.ts";

/** Writes of one extend, when other writers keep winning. */
const EXTEND_ATTEMPTS = 5;

export class ExpiryHandlers {
  constructor(private readonly service: Service) {}

  async extendCluster(
    request: ExtendClusterRequest,
    call: CallContext<NamespaceScope>,
  ): Promise<Cluster> {
    const { log, kube, scope, caller, action } = call;
    const { orchestrator } = this.service;
    const limit = caller.expiryLimit?.(scope.namespace) ?? {};
    for (let attempt = 1;; attempt++) {
      const resource = await orchestrator.clusters.get(
        scope.namespace,
        request.name,
        { ...kube, fresh: true },
      );
      checkOwner(call, resource, UPDATE_CLUSTER);
      checkOwnExpiry(resource, action);
      const expiresAt = extendedExpiry(
        expiryOf(resource.metadata.annotations),
        request.by,
        limit,
        this.service.now(),
        action,
      );
      const next = {
        ...resource,
        metadata: {
          ...resource.metadata,
          annotations: {
            ...resource.metadata.annotations,
            [EXPIRES_AT_ANNOTATION]: expiryAnnotation(expiresAt),
          },
        },
      };
      try {
        const updated = await orchestrator.clusters.update(next, kube);
        log.info("Extended cluster", {
          namespace: scope.namespace,
          name: request.name,
          expiresAt: expiryAnnotation(expiresAt),
        });
        return clusterFromResource(updated, []);
      } catch (error) {
        if (
          !(error instanceof ServiceError) || error.code !== Code.ABORTED ||
          attempt >= EXTEND_ATTEMPTS
        ) throw error;
      }
    }
  }
}

/** FAILED_PRECONDITION for a cluster whose expiry is its owner's. */
function checkOwnExpiry(resource: RayCluster, action: string): void {
  const owner = clusterOwner(resource.metadata);
  if (!owner) return;
  const noun = KINDS[owner.kind].noun;
  throw new ServiceError(
    Code.FAILED_PRECONDITION,
    `${action}: the cluster is ${noun} "${owner.name}"'s, and expires with the ${noun}`,
  );
}
