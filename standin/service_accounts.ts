/**
 * ServiceAccounts (core/v1 `serviceaccounts`): stored like any kind, with
 * the `token` subresource (token_request.ts); and the "default" account
 * every namespace gets, which kube-controller-manager's serviceaccounts
 * controller creates in a real cluster (here at once, when the namespace
 * is).
 */

import { formatKubernetesTime } from "../domain/timestamps.ts";
import type { State } from "./state.ts";
import type { StoreEvent } from "./store.ts";
import { TOKEN_REQUEST_ACTION } from "./token_request.ts";
import type { KubeObject, ResourceType } from "./types.ts";

export const SERVICE_ACCOUNT: ResourceType = {
  group: "",
  version: "v1",
  kind: "ServiceAccount",
  plural: "serviceaccounts",
  singular: "serviceaccount",
  namespaced: true,
  shortNames: ["sa"],
  actions: { token: TOKEN_REQUEST_ACTION },
};

export function isServiceAccountResource(resource: ResourceType): boolean {
  return resource.group === "" && resource.plural === "serviceaccounts";
}

/** The served ServiceAccount type; undefined when the stand-in serves none. */
export function serviceAccountResource(
  state: State,
): ResourceType | undefined {
  return state.resources.find((r) =>
    isServiceAccountResource(r) && r.version === "v1"
  );
}

/**
 * A store listener: a namespace that was added gets its "default"
 * ServiceAccount, as the serviceaccounts controller gives it.
 */
export function createDefaultServiceAccount(
  state: State,
  event: StoreEvent,
): void {
  const { resource, object } = event;
  if (
    event.type !== "ADDED" || resource.group !== "" ||
    resource.kind !== "Namespace"
  ) return;
  const accounts = serviceAccountResource(state);
  const namespace = object.metadata.name ?? "";
  if (!accounts || state.store.get(accounts, namespace, "default")) return;
  const account: KubeObject = {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: {
      name: "default",
      namespace,
      uid: crypto.randomUUID(),
      resourceVersion: state.store.nextRevision(),
      creationTimestamp: formatKubernetesTime(),
    },
  };
  state.store.put(accounts, account);
}
