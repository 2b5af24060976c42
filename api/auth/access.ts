/**
 * Who may call, as the settings configure it: the authenticator chain, the
 * authorization policy and the audit trail, built once at start-up and
 * handed to the dispatcher. Nothing here knows a transport.
 */
import type { Logger } from "../../domain/log.ts";
import { type AuditLog, createAuditLog } from "./audit.ts";
import {
  createAuthenticator,
  type RequestAuthenticator,
} from "./authenticate.ts";
import {
  AUTHENTICATED_GROUP,
  type Authenticator,
  UNAUTHENTICATED_GROUP,
} from "./identity.ts";
import type { FailureLimitSettings } from "./failure_limit.ts";
import { oidcAuthenticator } from "./oidc.ts";
import { allowGroups, type Policy } from "./policy.ts";
import { policyFile } from "./policy_file.ts";
import { tokenFileAuthenticator } from "./token_file.ts";
import {
  tokenReviewAuthenticator,
  type TokenReviewPort,
} from "./token_review.ts";

/** Who may call, and what is recorded of it: settings.ts fills it. */
export interface AuthSettings {
  /** "" for none. */
  tokenAuthFile: string;
  oidc?: {
    issuerUrl: string;
    clientId: string;
    /** "" trusts the system's certificate authorities. */
    caFile: string;
    /** "": `sub` (oidc.ts's claimMapping). */
    usernameClaim: string;
    /** "": `groups`. */
    groupsClaim: string;
    /** "": the issuer URL and "#" (none for the email claim); "-": none. */
    usernamePrefix: string;
    /** "" for none. */
    groupsPrefix?: string;
    /**
     * What the command line and the console ask the issuer for
     * (auth_config.ts); the authenticator does not read them.
     */
    scopes?: readonly string[];
  };
  tokenReview: boolean;
  /** Requests without credentials are served as system:anonymous. */
  anonymous: boolean;
  /** "" for none: every authenticated caller may do everything. */
  policyFile: string;
  /**
   * Corral's own namespace, reserved with kube-* ("*" of the policy file
   * does not cover it); "" or absent for none.
   */
  ownNamespace?: string;
  /** "" for standard error. */
  auditLogPath: string;
  metricsRequireAuth: boolean;
  /** Failed authentications per source address; no limit when absent. */
  failureLimit?: FailureLimitSettings;
}

export interface Access {
  /** What the start-up log says of who may call and do what. */
  summary?: { authentication: string[]; authorization: string };
  authenticator: RequestAuthenticator;
  /** The rules in force; a policy file's are re-read when it changes. */
  policy: Policy;
  audit: AuditLog;
  /**
   * Tells `listener` whenever the token file or the policy file has
   * changed, so that open streams are authorized again; returns the
   * unsubscribe. Absent where nothing ever changes.
   */
  onChange?(listener: () => void): () => void;
  /** Stops re-reading files and closes the audit log. */
  close(): Promise<void>;
}

export interface AccessOptions {
  log: Logger;
  /** The Kubernetes API's TokenReview, for --authentication-token-review. */
  tokenReview?: TokenReviewPort;
  /** How often the token and policy files are read for changes; 5 s. */
  reloadIntervalMs?: number;
}

/**
 * The authenticators in the Kubernetes API server's order: client
 * certificates (inside the chain), then the token file, OIDC, TokenReview.
 */
export async function createAccess(
  settings: AuthSettings,
  options: AccessOptions,
): Promise<Access> {
  const log = options.log.with({ component: "authentication" });
  const authenticators: Authenticator[] = [];
  const closers: (() => unknown)[] = [];
  const listeners = new Set<() => void>();
  // Each listener on its own: one that throws must not keep the others
  // from hearing of a revoked token.
  const changed = () => {
    for (const listener of [...listeners]) queueMicrotask(listener);
  };
  const intervalMs = options.reloadIntervalMs;
  try {
    if (settings.tokenAuthFile) {
      authenticators.push(
        await tokenFileAuthenticator({
          path: settings.tokenAuthFile,
          log,
          intervalMs,
          onReload: changed,
        }),
      );
    }
    if (settings.oidc) {
      // The scopes are the clients' (auth_config.ts), not the verifier's.
      const { caFile, scopes: _scopes, ...oidc } = settings.oidc;
      authenticators.push(
        await oidcAuthenticator({
          ...oidc,
          ...(caFile ? { caFile } : {}),
          log,
        }),
      );
    }
    if (settings.tokenReview) {
      if (!options.tokenReview) {
        throw new Error(
          "--authentication-token-review needs the Kubernetes API",
        );
      }
      authenticators.push(
        tokenReviewAuthenticator({ api: options.tokenReview, log }),
      );
    }
    const authenticator = createAuthenticator(authenticators, {
      anonymous: settings.anonymous,
      failureLimit: settings.failureLimit,
    });
    closers.push(() => authenticator.close());
    let policy: Policy;
    if (settings.policyFile) {
      const file = await policyFile({
        path: settings.policyFile,
        log: options.log,
        intervalMs,
        onReload: changed,
        ownNamespace: settings.ownNamespace,
      });
      closers.push(() => file.close());
      policy = file;
    } else {
      // Anonymous callers and everyone else may do everything: embedded
      // mode's default, and kubernetes mode's with --allow-anonymous.
      policy = allowGroups(
        settings.anonymous
          ? [AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP]
          : [AUTHENTICATED_GROUP],
      );
    }
    const audit = await createAuditLog({
      path: settings.auditLogPath,
      log: options.log,
    });
    closers.push(() => audit.close());
    return {
      summary: {
        authentication: [
          ...authenticators.map((a) => a.name),
          ...(settings.anonymous ? ["anonymous"] : []),
        ],
        authorization: settings.policyFile
          ? `policy file ${settings.policyFile}`
          : settings.anonymous
          ? "none: every caller may do everything, without credentials too"
          : "none: every authenticated caller may do everything",
      },
      authenticator,
      policy,
      audit,
      onChange(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      async close() {
        for (const close of closers.reverse()) await close();
      },
    };
  } catch (error) {
    // Nothing is left re-reading files: the chain closes its authenticators
    // once it exists, before that they are closed one by one.
    if (closers.length === 0) {
      for (const authenticator of authenticators) authenticator.close?.();
    }
    for (const close of closers.reverse()) await close();
    throw error;
  }
}

/**
 * Every caller is system:anonymous and may do everything, and nothing is
 * audited: for tests of other parts than access.
 */
export function openAccess(): Access {
  return {
    authenticator: createAuthenticator([], { anonymous: true }),
    policy: allowGroups([AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP]),
    audit: { record() {}, async close() {} },
    async close() {},
  };
}
