/**
 * The `owners: only` rule, one place for every resource: when every rule
 * that let the caller act in a namespace says `owners: only`, only an
 * object's owner (the identity recorded at create), or a caller granted
 * `admin` on that resource there, changes, deletes or uses it; teammates
 * still read it.
 */
import { ANNOTATION, LABEL } from "../../domain/resources.ts";
import type { Caller } from "./caller.ts";
import { AuthorizationError } from "./authorization_error.ts";
import type { Resource, Rule } from "./policy.ts";

/**
 * Who acts where, under which rules: a handler's call context (rpcs.ts)
 * is one, and so is the dashboard proxy's.
 */
export interface OwnerScope {
  caller: Caller;
  scope: { namespace: string; rules: readonly Rule[] };
  /** The action refusals start with. */
  action: string;
}

/** What an object must carry for its owner to be known. */
interface Owned {
  metadata: {
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
  };
}

/** What the caller is about to do, in the refusal's words. */
export interface OwnerCheck {
  /** The resource whose `admin` grant lifts the rule. */
  resource: Resource;
  /** "update a job", "run jobs on a cluster". */
  doing: string;
}

/** Whether `owners: only` binds the caller in the call's namespace. */
export function ownersOnly(
  { caller, scope }: OwnerScope,
  resource: Resource,
): boolean {
  return scope.rules.length > 0 &&
    scope.rules.every((rule) => rule.owners === "only") &&
    !caller.may("admin", resource, scope.namespace);
}

/**
 * PERMISSION_DENIED when `owners: only` binds the caller and `object` is
 * not the caller's.
 */
export function checkOwner(
  call: OwnerScope,
  object: Owned,
  check: OwnerCheck,
): void {
  if (!ownersOnly(call, check.resource)) return;
  const owner = ownerOf(object);
  const user = call.caller.identity.user;
  if (owner === user) return;
  throw new AuthorizationError(
    "owner",
    `${call.action}: user "${user}" may not ${check.doing} of ${
      owner === "" ? "no recorded owner" : `"${owner}"`
    }: only its owner or a caller granted "admin" may`,
  );
}

/**
 * Who created an object, as recorded then: the ray.io/user annotation, or
 * the label when the name fits in one; "" when nothing says.
 */
export function ownerOf({ metadata }: Owned): string {
  const { annotations, labels } = metadata;
  return annotations?.[ANNOTATION.user] ?? labels?.[LABEL.user] ?? "";
}
