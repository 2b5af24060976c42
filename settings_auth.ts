import type { AuthSettings } from "./api/auth/access.ts";
import { boolean, count, namespaceOrNone } from "./settings_values.ts";
import type { Flag } from "./settings_flags.ts";
import { checkFlag, type RawSettings } from "./settings_raw.ts";

/**
 * Kubernetes mode never serves everyone unless told to in so many words;
 * embedded mode (loopback development) does when no authenticator is set.
 */
export function authSettings(
  raw: RawSettings,
  problems: string[],
): AuthSettings {
  const v = raw.values;
  const flag = (name: Flag) => v[name].trim();
  const check = <T>(name: Flag, parse: (text: string) => T, fallback: T) =>
    checkFlag(raw, problems, name, parse, fallback);
  const bool = (name: Flag) => check(name, boolean, false);
  const issuerUrl = flag("oidc-issuer-url");
  const clientId = flag("oidc-client-id");
  const scopes = flag("oidc-scopes").split(/\s+/).filter((s) => s !== "");
  if (issuerUrl) {
    if (!/^https:\/\/[^\s/?#]+/.test(issuerUrl) || /[?#]/.test(issuerUrl)) {
      problems.push(
        `--oidc-issuer-url must be an https:// URL without query or fragment, got "${issuerUrl}"`,
      );
    }
    if (!clientId) problems.push("--oidc-issuer-url needs --oidc-client-id");
    if (!scopes.includes("openid")) {
      problems.push(
        `--oidc-scopes must include openid, got "${scopes.join(" ")}"`,
      );
    }
  } else {
    for (
      const name of [
        "oidc-client-id",
        "oidc-ca-file",
        "oidc-username-prefix",
        "oidc-groups-prefix",
      ] as const
    ) {
      if (flag(name)) problems.push(`--${name} needs --oidc-issuer-url`);
    }
  }
  const auth: AuthSettings = {
    tokenAuthFile: flag("token-auth-file"),
    ...(issuerUrl
      ? {
        oidc: {
          issuerUrl,
          clientId,
          caFile: flag("oidc-ca-file"),
          usernameClaim: flag("oidc-username-claim"),
          groupsClaim: flag("oidc-groups-claim"),
          usernamePrefix: v["oidc-username-prefix"],
          groupsPrefix: v["oidc-groups-prefix"],
          scopes,
        },
      }
      : {}),
    tokenReview: bool("authentication-token-review"),
    anonymous: bool("allow-anonymous"),
    policyFile: flag("authorization-policy-file"),
    ownNamespace: check("own-namespace", namespaceOrNone, ""),
    auditLogPath: flag("audit-log-path"),
    metricsRequireAuth: bool("metrics-require-auth"),
    failureLimit: {
      perSecond: check("auth-failure-rate", count(0), 0),
      burst: check("auth-failure-burst", count(1), 0),
    },
  };
  const authenticates = auth.tokenAuthFile !== "" || issuerUrl !== "" ||
    auth.tokenReview || flag("client-ca-file") !== "";
  if (!authenticates) {
    if (raw.mode === "embedded") {
      auth.anonymous = true;
    } else if (!auth.anonymous && raw.mode === "kubernetes") {
      // An unknown --orchestrator is reported on its own: whether it needs
      // an authenticator depends on the mode meant.
      problems.push(
        "Kubernetes mode needs an authenticator: --token-auth-file, --oidc-issuer-url, --authentication-token-review or --client-ca-file; or --allow-anonymous to serve every caller as system:anonymous",
      );
    }
  }
  return auth;
}
