/** The flags of TLS, authentication, authorization and audit. */
import { DEFAULT_FAILURE_LIMIT } from "./api/auth/failure_limit.ts";
import type { Spec } from "./settings_flags_spec.ts";

export const AUTH_SPECS = {
  "tls-cert-file": {
    env: "CORRAL_TLS_CERT_FILE",
    default: "",
    value: "FILE",
    help:
      "PEM certificate (chain) for HTTPS and gRPC over TLS on both ports, with --tls-private-key-file; re-read when it changes. Without it both ports are plaintext",
  },
  "tls-private-key-file": {
    env: "CORRAL_TLS_PRIVATE_KEY_FILE",
    default: "",
    value: "FILE",
    help: "PEM private key of --tls-cert-file",
  },
  "client-ca-file": {
    env: "CORRAL_CLIENT_CA_FILE",
    default: "",
    value: "FILE",
    help:
      "with TLS: PEM certificate authorities to verify client certificates against; a client may present one (a verified one identifies the caller), or none",
  },
  "token-auth-file": {
    env: "CORRAL_TOKEN_AUTH_FILE",
    default: "",
    value: "FILE",
    help:
      'static bearer tokens in the Kubernetes API server\'s CSV format (token,user,uid,"group1,group2"); re-read when it changes',
  },
  "oidc-issuer-url": {
    env: "CORRAL_OIDC_ISSUER_URL",
    default: "",
    value: "URL",
    help:
      "accept OIDC ID tokens of this issuer (https://), found by discovery; needs --oidc-client-id",
  },
  "oidc-client-id": {
    env: "CORRAL_OIDC_CLIENT_ID",
    default: "",
    value: "ID",
    help: "the audience an ID token must be issued for",
  },
  "oidc-scopes": {
    env: "CORRAL_OIDC_SCOPES",
    default: "openid profile email groups offline_access",
    value: "SCOPES",
    help:
      "the scopes, space-separated, that corral login and the console ask the issuer for (served at /apis/v1alpha2/auth-config); offline_access asks for a refresh token",
  },
  "oidc-ca-file": {
    env: "CORRAL_OIDC_CA_FILE",
    default: "",
    value: "FILE",
    help: "PEM certificate authorities trusted for the issuer's TLS",
  },
  "oidc-username-claim": {
    env: "CORRAL_OIDC_USERNAME_CLAIM",
    default: "sub",
    value: "CLAIM",
    help: "the ID token claim that is the username",
  },
  "oidc-groups-claim": {
    env: "CORRAL_OIDC_GROUPS_CLAIM",
    default: "groups",
    value: "CLAIM",
    help: "the ID token claim that lists the user's groups",
  },
  "oidc-username-prefix": {
    env: "CORRAL_OIDC_USERNAME_PREFIX",
    default: "",
    value: "PREFIX",
    help:
      'put before every OIDC username (e.g. oidc:); by default the issuer URL and "#", unless the claim is email; "-" for none',
  },
  "oidc-groups-prefix": {
    env: "CORRAL_OIDC_GROUPS_PREFIX",
    default: "",
    value: "PREFIX",
    help: "put before every OIDC group (e.g. oidc:); none by default",
  },
  "auth-failure-rate": {
    env: "CORRAL_AUTH_FAILURE_RATE",
    default: String(DEFAULT_FAILURE_LIMIT.perSecond),
    value: "N",
    help: "failed authentications per second per source address; 0: no limit",
  },
  "auth-failure-burst": {
    env: "CORRAL_AUTH_FAILURE_BURST",
    default: String(DEFAULT_FAILURE_LIMIT.burst),
    value: "N",
    help: "failed authentications a source address may make in a row",
  },
  "authentication-token-review": {
    env: "CORRAL_AUTHENTICATION_TOKEN_REVIEW",
    default: "false",
    value: "BOOL",
    boolean: true,
    help:
      "ask the Kubernetes API server (TokenReview) about tokens no other authenticator knows: service-account tokens of in-cluster workloads",
  },
  "allow-anonymous": {
    env: "CORRAL_ALLOW_ANONYMOUS",
    default: "false",
    value: "BOOL",
    boolean: true,
    help:
      "serve requests without credentials as system:anonymous; embedded mode does so when no authenticator is configured",
  },
  "authorization-policy-file": {
    env: "CORRAL_AUTHORIZATION_POLICY_FILE",
    default: "",
    value: "FILE",
    help:
      "YAML rules of who may do what where (deny unless a rule grants); re-read when it changes. Without it every authenticated caller may do everything",
  },
  "own-namespace": {
    env: "CORRAL_OWN_NAMESPACE",
    default: "",
    value: "NAME",
    help:
      "Corral's own namespace, which a policy rule's \"*\" does not cover (nor kube-*); empty: the in-cluster service account's namespace, when Corral runs in a pod",
  },
  "audit-log-path": {
    env: "CORRAL_AUDIT_LOG_PATH",
    default: "",
    value: "FILE",
    help:
      "append the audit trail (one JSON line per mutating or denied request) to this file; standard error by default",
  },
  "metrics-require-auth": {
    env: "CORRAL_METRICS_REQUIRE_AUTH",
    default: "false",
    value: "BOOL",
    boolean: true,
    help: "/metrics needs credentials, as the API does",
  },
} as const satisfies Record<string, Spec>;
