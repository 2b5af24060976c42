/**
 * The --authorization-policy-file followed as it changes: re-read when it
 * does (a new file that does not validate keeps the previous policy; see
 * watched_file.ts), the policy of its latest good text answering.
 */
import type { Logger } from "../../domain/log.ts";
import { watchFile } from "./watched_file.ts";
import { type Policy, policyOf } from "./policy.ts";
import { parsePolicyDocument } from "./policy_document.ts";
import type { GroupRateLimit } from "./rate_limit.ts";
import type { ExpiryRule } from "./expiry_policy.ts";

export interface PolicyFileOptions {
  /** --authorization-policy-file */
  path: string;
  log: Logger;
  /** How often the file is read for changes; 5 s by default. */
  intervalMs?: number;
  /** Told after a new policy was taken (open streams are checked again). */
  onReload?: () => void;
  /** Corral's own namespace, reserved (policyOf). */
  ownNamespace?: string;
}

export interface PolicyFile extends Policy {
  rateLimits(): readonly GroupRateLimit[];
  expiry(): readonly ExpiryRule[];
  /** Reads the file now; resolves true when a new policy was taken. */
  reload(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The policy of a file, followed as it changes. Rejects with
 * INVALID_ARGUMENT listing every problem if the file does not validate.
 */
export async function policyFile(
  options: PolicyFileOptions,
): Promise<PolicyFile> {
  const log = options.log.with({ component: "authorization" });
  const file = await watchFile({
    path: options.path,
    kind: "authorization policy file",
    intervalMs: options.intervalMs,
    log,
    parse: (text) => {
      const { rules, rateLimits, quotas, expiry, queues } = parsePolicyDocument(
        text,
      );
      return policyOf(rules, {
        ownNamespace: options.ownNamespace,
        rateLimits,
        quotas,
        expiry,
        queues,
      });
    },
    onReload: (policy) => {
      log.info("Loaded authorization policy", {
        path: options.path,
        rules: policy.rules().length,
      });
      options.onReload?.();
    },
  });
  log.info("Loaded authorization policy", {
    path: options.path,
    rules: file.current().rules().length,
  });
  return {
    authorize: (request) => file.current().authorize(request),
    namespacesFor: (identity, verb, resource) =>
      file.current().namespacesFor(identity, verb, resource),
    rules: () => file.current().rules(),
    rateLimits: () => file.current().rateLimits?.() ?? [],
    quotas: () => file.current().quotas?.() ?? [],
    expiry: () => file.current().expiry?.() ?? [],
    queues: () => file.current().queues?.() ?? [],
    reload: () => file.check(),
    close: () => file.close(),
  };
}
