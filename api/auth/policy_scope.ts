/**
 * Whom an entry of a policy section is for. The entries of `quotas:`,
 * `queues:` and `expiry:` name namespaces ("*": each one), and those of
 * `quotas:` and `queues:` may name users and groups too: then only those
 * callers' requests; `rateLimits:` names groups alone. These say, once for
 * every section, whether an entry names a namespace or a caller.
 */
import type { Identity } from "./identity.ts";

/** Whether `entry` is for `namespace`: it names it, or "*". */
export function namesNamespace(
  entry: { readonly namespaces: readonly string[] },
  namespace: string,
): boolean {
  return entry.namespaces.includes(namespace) ||
    entry.namespaces.includes("*");
}

/** Whom an entry names: users and groups, either possibly absent or empty. */
export interface Callers {
  readonly users?: readonly string[];
  readonly groups?: readonly string[];
}

/** Whether `entry` names no users and no groups: it is for every caller. */
export function namesNoCaller(entry: Callers): boolean {
  return (entry.users ?? []).length === 0 && (entry.groups ?? []).length === 0;
}

/** Whether `entry` names `identity`'s user or one of its groups. */
export function namesCaller(entry: Callers, identity: Identity): boolean {
  return (entry.users ?? []).includes(identity.user) ||
    (entry.groups ?? []).some((group) => identity.groups.includes(group));
}

/** Whether `entry` is for `identity`: it names no caller, or names it. */
export function isForCaller(entry: Callers, identity: Identity): boolean {
  return namesNoCaller(entry) || namesCaller(entry, identity);
}
