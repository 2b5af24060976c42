/**
 * The caller of one request as the handlers see it: who it is, and the
 * questions a handler asks of the policy, each answered or refused with
 * PERMISSION_DENIED in the handler's own words (the action first).
 */
import type { ExpiryLimit } from "../../domain/expiry.ts";
import { expiryLimitFor } from "./expiry_policy.ts";
import { type QueueLimit, queueLimitFor } from "./queue_policy.ts";
import type { Workload } from "./workload.ts";
import type { Identity } from "./identity.ts";
import type { Quota } from "./quota.ts";
import { AuthorizationError } from "./authorization_error.ts";
import type { Policy, Resource, Rule, Verb } from "./policy.ts";
import { admitWorkload } from "./workload_decision.ts";
import { DEFAULT_ACCELERATORS } from "./accelerators.ts";
import { invalidArgument } from "../../domain/errors.ts";

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
  /** Whether the caller may; no refusal, no metrics (a filter's question). */
  may(verb: Verb, resource: Resource, namespace: string): boolean;
  /** Where the caller may `verb` `resource`: "*" for every namespace. */
  namespaces(verb: Verb, resource: Resource): "*" | string[];
  /**
   * Refuses the RayCluster or RayJob about to be written unless one of
   * `rules` allows all of its workload (admission.ts), naming the first
   * field at fault: the request field it comes from, and the resource's.
   * PERMISSION_DENIED, but INVALID_ARGUMENT when what is at fault is an
   * extended resource neither an accelerator nor allowed by a rule.
   */
  admit(
    action: string,
    rules: Rule[],
    resource: Workload,
    /** The verb the workload is checked for; create by default. */
    verb?: Verb,
    /**
     * The request field the cluster comes from: "cluster" by default, a
     * service's "service"; refusals name its fields.
     */
    subject?: string,
  ): void;
  /** The policy's quotas (quota.ts); absent or [] for none. */
  quotas?(): readonly Quota[];
  /** The policy's accelerators (accelerators.ts); absent: the defaults. */
  accelerators?(): readonly string[];
  /**
   * The policy's lifetime limit of clusters in `namespace` (its `expiry:`
   * section): default and maximum, each absent when the policy sets none.
   */
  expiryLimit?(namespace: string): ExpiryLimit;
  /**
   * The policy's queues for the caller's creates in `namespace` (its
   * `queues:` section): the default queue and those allowed, each absent
   * when the policy sets none.
   */
  queueLimit?(namespace: string): QueueLimit;
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
  return new PolicyCaller(identity, policy, options.onDecision);
}

/**
 * A class, its methods shared: every request makes a caller, which as an
 * object of closures was nine functions made a request.
 */
class PolicyCaller implements Caller {
  readonly identity: Identity;
  readonly #policy: Policy;
  readonly #onDecision: CallerOptions["onDecision"];

  constructor(
    identity: Identity,
    policy: Policy,
    onDecision: CallerOptions["onDecision"],
  ) {
    this.identity = identity;
    this.#policy = policy;
    this.#onDecision = onDecision;
  }

  // Who decided, never the name: a name can be claimed, the anonymous
  // authenticator only decides for a request without credentials.
  get authenticated(): boolean {
    return this.identity.authenticator !== "anonymous";
  }

  authorize(
    action: string,
    verb: Verb,
    resource: Resource,
    namespace: string,
  ): Rule[] {
    const decision = this.#policy.authorize({
      identity: this.identity,
      verb,
      resource,
      namespace,
    });
    this.#decided(verb, resource, decision.allowed ? "allowed" : "no-rule");
    if (!decision.allowed) {
      throw new AuthorizationError(
        "no-rule",
        `${action}: ${this.#who} may not ${verb} ${resource} in namespace "${namespace}"`,
      );
    }
    return decision.rules;
  }

  expiryLimit(namespace: string): ExpiryLimit {
    return expiryLimitFor(this.#policy.expiry?.() ?? [], namespace);
  }

  queueLimit(namespace: string): QueueLimit {
    return queueLimitFor(
      this.#policy.queues?.() ?? [],
      this.identity,
      namespace,
    );
  }

  may(verb: Verb, resource: Resource, namespace: string): boolean {
    return this.#policy.authorize({
      identity: this.identity,
      verb,
      resource,
      namespace,
    }).allowed;
  }

  namespaces(verb: Verb, resource: Resource): "*" | string[] {
    const namespaces = this.#policy.namespacesFor(
      this.identity,
      verb,
      resource,
    );
    this.#decided(
      verb,
      resource,
      namespaces === "*" || namespaces.length > 0 ? "allowed" : "no-rule",
    );
    return namespaces;
  }

  admit(
    action: string,
    rules: Rule[],
    resource: Workload,
    verb: Verb = "create",
    subject = "cluster",
  ): void {
    const decision = admitWorkload(
      rules,
      resource,
      subject,
      this.accelerators(),
    );
    if (decision.allowed) return;
    const [first] = decision.refusals;
    const reason = first?.reason ?? "no-rule";
    this.#decided(verb, resourceOf(resource, subject), reason);
    if (reason === "extended-resource") {
      throw invalidArgument(action, [{
        field: first.field ?? first.path,
        description: `${first.what} (${resource.kind} ${first.path})`,
      }]);
    }
    const who = this.#who;
    const detail = first
      ? first.field
        ? `${first.field}: ${who} may not ${first.what} (${resource.kind} ${first.path})`
        : `${first.path}: ${who} may not ${first.what}`
      : `${who} may not ${verb} this`;
    throw new AuthorizationError(reason, `${action}: ${detail}`);
  }

  quotas(): readonly Quota[] {
    return this.#policy.quotas?.() ?? [];
  }

  accelerators(): readonly string[] {
    return this.#policy.accelerators?.() ?? DEFAULT_ACCELERATORS;
  }

  /** The caller as refusals name it. */
  get #who(): string {
    return `user "${this.identity.user}"`;
  }

  #decided(verb: Verb, resource: Resource, decision: string): void {
    this.#onDecision?.(verb, resource, decision);
  }
}

function resourceOf(resource: Workload, subject: string): Resource {
  if (resource.kind === "RayJob") return "jobs";
  return subject === "service" ? "services" : "clusters";
}
