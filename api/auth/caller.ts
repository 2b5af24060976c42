/**
 * The caller of one request as the handlers see it: who it is, and the
 * questions a handler asks of the policy, each answered or refused with
 * PERMISSION_DENIED in the handler's own words (the action first).
 */
import type { Identity } from "./identity.ts";
import {
  admitWorkload,
  AuthorizationError,
  type DenialReason,
  type Policy,
  type Resource,
  type Rule,
  type Verb,
  type Workload,
} from "./policy.ts";

export interface Caller {
  identity: Identity;
  /**
   * False when the anonymous authenticator decided (no credentials, and
   * anonymous mode): then a cluster's user is not enforced.
   */
  authenticated: boolean;
  /**
   * The rules that let the caller `verb` `resource` in `namespace`; throws
   * an AuthorizationError (PERMISSION_DENIED) saying `action` failed.
   */
  authorize(
    action: string,
    verb: Verb,
    resource: Resource,
    namespace: string,
  ): Rule[];
  /** Where the caller may `verb` `resource`: "*" for every namespace. */
  namespaces(verb: Verb, resource: Resource): "*" | string[];
  /**
   * Refuses a workload (images, HOST_PATH volumes) none of `rules` allows
   * whole, naming the field at fault.
   */
  admit(
    action: string,
    rules: Rule[],
    workload: Workload,
    fieldOf: (denial: { reason: DenialReason; image?: string }) => string,
    /** The verb the workload is checked for; create by default. */
    verb?: Verb,
  ): void;
}

export interface CallerOptions {
  /** Told of every decision: "allowed" or the reason of a denial. */
  onDecision?: (verb: Verb, resource: Resource, decision: string) => void;
}

export function callerOf(
  identity: Identity,
  policy: Policy,
  options: CallerOptions = {},
): Caller {
  const who = `user "${identity.user}"`;
  const decided = (verb: Verb, resource: Resource, decision: string) =>
    options.onDecision?.(verb, resource, decision);
  return {
    identity,
    // Who decided, never the name: a name can be claimed, the anonymous
    // authenticator only decides for a request without credentials.
    authenticated: identity.authenticator !== "anonymous",
    authorize(action, verb, resource, namespace) {
      const decision = policy.authorize({
        identity,
        verb,
        resource,
        namespace,
      });
      decided(verb, resource, decision.allowed ? "allowed" : "no-rule");
      if (!decision.allowed) {
        throw new AuthorizationError(
          "no-rule",
          `${action}: ${who} may not ${verb} ${resource} in namespace "${namespace}"`,
        );
      }
      return decision.rules;
    },
    namespaces(verb, resource) {
      const namespaces = policy.namespacesFor(identity, verb, resource);
      decided(
        verb,
        resource,
        namespaces === "*" || namespaces.length > 0 ? "allowed" : "no-rule",
      );
      return namespaces;
    },
    admit(action, rules, workload, fieldOf, verb = "create") {
      const decision = admitWorkload(rules, workload);
      if (decision.allowed) return;
      decided(verb, "clusters", decision.reason);
      const field = fieldOf(decision);
      const detail = decision.reason === "image"
        ? `${who} may not use the image "${decision.image}"`
        : decision.reason === "host-path"
        ? `${who} may not mount HOST_PATH volumes`
        : `${who} may not ${verb} this`;
      throw new AuthorizationError(
        decision.reason,
        `${action}: ${field}: ${detail}`,
      );
    },
  };
}
