/**
 * Owner-reference garbage collection, as kube-controller-manager's garbage
 * collector does it with background propagation: once an object is
 * deleted, every object of its namespace whose metadata.ownerReferences
 * name it (by uid) and no other owner still there is deleted too, and so
 * on down (a RayJob's RayCluster when the RayJob goes). The real collector
 * works asynchronously, a moment after the delete; so does this one (on a
 * microtask, which also keeps a watch from seeing the dependent's DELETED
 * before its owner's). Finalizers hold a dependent as any delete does.
 */

import type { State } from "./state.ts";
import { StatusError } from "./status.ts";
import { type StoreEvent, storeKey } from "./store.ts";
import { groupVersion, type KubeObject, type ResourceType } from "./types.ts";
import { remove } from "./verbs.ts";

interface OwnerReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
}

function ownersOf(object: KubeObject): OwnerReference[] {
  const owners = object.metadata.ownerReferences;
  return Array.isArray(owners) ? owners as OwnerReference[] : [];
}

/** The namespaced resource types, each store table once. */
function namespacedTypes(state: State): ResourceType[] {
  const seen = new Set<string>();
  return state.resources.filter((resource) => {
    if (!resource.namespaced || seen.has(storeKey(resource))) return false;
    seen.add(storeKey(resource));
    return true;
  });
}

/** Whether the owner a reference names still exists (same namespace). */
function ownerExists(
  state: State,
  namespace: string,
  owner: OwnerReference,
): boolean {
  const resource = state.resources.find((r) =>
    groupVersion(r) === owner.apiVersion && r.kind === owner.kind
  );
  if (!resource || !owner.name) return false;
  const found = state.store.get(resource, namespace, owner.name);
  return found?.metadata.uid === owner.uid;
}

/** Deletes the dependents of `deleted` that have no other owner left. */
function collect(state: State, deleted: KubeObject): void {
  const uid = deleted.metadata.uid;
  const namespace = deleted.metadata.namespace;
  if (!uid || !namespace) return;
  for (const resource of namespacedTypes(state)) {
    for (const dependent of state.store.list(resource, namespace)) {
      const owners = ownersOf(dependent);
      if (!owners.some((o) => o.uid === uid)) continue;
      if (
        owners.some((o) => o.uid !== uid && ownerExists(state, namespace, o))
      ) {
        continue;
      }
      const name = dependent.metadata.name ?? "";
      try {
        remove(state, {
          kind: "item",
          resource,
          namespace,
          name,
          status: false,
        }, {});
        state.logger?.info("Collected dependent of deleted owner", {
          kind: resource.kind,
          namespace,
          name,
          owner: deleted.metadata.name,
        });
      } catch (error) {
        // Gone meanwhile, or held: the collector moves on, as the real one.
        if (!(error instanceof StatusError)) throw error;
      }
    }
  }
}

/**
 * The store listener: schedules the collection of a deleted object's
 * dependents. Objects without a uid or namespace own nothing here.
 */
export function collectGarbage(state: State, event: StoreEvent): void {
  if (event.type !== "DELETED" || !event.resource.namespaced) return;
  const deleted = event.object;
  queueMicrotask(() => collect(state, deleted));
}
