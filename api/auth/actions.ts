/**
 * What each API method does, in the policy's words: a verb (Get* -> get,
 * List* and ListAll* -> list, Watch* -> watch, Create* -> create,
 * Update* -> update, Delete* -> delete) on a
 * resource (the service's: clusters, computetemplates). A method of a new
 * kind must be added here, or it is refused: see actionOf().
 */
import type { Resource, Verb } from "./policy.ts";

export interface Action {
  verb: Verb;
  resource: Resource;
  /** ListAll*: every namespace the caller may list, not one. */
  allNamespaces: boolean;
}

const RESOURCE_OF_SERVICE: Record<string, Resource> = {
  "proto.ClusterService": "clusters",
  "proto.ComputeTemplateService": "computetemplates",
};

const VERB_OF_PREFIX: [string, Verb][] = [
  ["Get", "get"],
  ["ListAll", "list"],
  ["List", "list"],
  ["Watch", "watch"],
  ["Create", "create"],
  ["Update", "update"],
  ["Delete", "delete"],
];

/** The action of "proto.ClusterService/CreateCluster"; undefined if none. */
export function actionOf(key: string): Action | undefined {
  const [service, method = ""] = key.split("/");
  const resource = RESOURCE_OF_SERVICE[service];
  const entry = VERB_OF_PREFIX.find(([prefix]) => method.startsWith(prefix));
  if (!resource || !entry) return undefined;
  return {
    verb: entry[1],
    resource,
    allNamespaces: method.startsWith("ListAll"),
  };
}

/** Whether the action changes something, so the audit trail records it. */
export function mutates(action: Action): boolean {
  return action.verb === "create" || action.verb === "update" ||
    action.verb === "delete";
}
