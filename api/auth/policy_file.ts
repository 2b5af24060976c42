/**
 * The --authorization-policy-file followed as it changes: re-read when it
 * does (a new file that does not validate keeps the previous policy; see
 * watched_file.ts), the policy of its latest good text answering.
 */
import {
  type Reloadable,
  type WatchedFileSettings,
  watchFile,
} from "./watched_file.ts";
import { type Policy, policyOf } from "./policy.ts";
import { parsePolicyDocument } from "./policy_document.ts";
import type { GroupRateLimit } from "./rate_limit.ts";
import type { ExpiryRule } from "./expiry_policy.ts";
import { DEFAULT_ACCELERATORS } from "./accelerators.ts";

export interface PolicyFileOptions extends WatchedFileSettings {
  /** Corral's own namespace, reserved (policyOf). */
  ownNamespace?: string;
}

export interface PolicyFile extends Policy, Reloadable {
  rateLimits(): readonly GroupRateLimit[];
  expiry(): readonly ExpiryRule[];
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
    ...options,
    kind: "authorization policy file",
    log,
    parse: (text) => {
      const { rules, ...sections } = parsePolicyDocument(text);
      return policyOf(rules, {
        ownNamespace: options.ownNamespace,
        ...sections,
      });
    },
    onLoad: (policy) =>
      log.info("Loaded authorization policy", {
        path: options.path,
        rules: policy.rules().length,
      }),
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
    accelerators: () => file.current().accelerators?.() ?? DEFAULT_ACCELERATORS,
    reload: () => file.reload(),
    close: () => file.close(),
  };
}
