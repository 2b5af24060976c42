/**
 * The refusal of an authorization check: PERMISSION_DENIED with a short
 * reason. Its own module because the policy (policy.ts) and the sections
 * of the policy file that refuse on their own (queue_policy.ts, owners.ts)
 * all throw it, and the handlers, the audit and the metrics read its reason.
 */
import { Code, ServiceError } from "../../domain/errors.ts";

/** Short words for why a request was denied: a metrics and audit label. */
export type DenialReason =
  | "no-rule"
  | "host-path"
  | "image"
  | "workload"
  | "owner";

/**
 * PERMISSION_DENIED for a denied request, with its reason for metrics and
 * audit. The message names the user, as kube-apiserver's 403 does, and what
 * was refused.
 */
export class AuthorizationError extends ServiceError {
  readonly reason: DenialReason;

  constructor(reason: DenialReason, message: string) {
    super(Code.PERMISSION_DENIED, message);
    this.name = "AuthorizationError";
    this.reason = reason;
  }
}
