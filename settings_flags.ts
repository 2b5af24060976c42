/**
 * The flags of Corral, in --help order: each one's environment variable,
 * default and help text. settings.ts parses them; this is the table.
 */
import { DEFAULT_FAILURE_LIMIT } from "./api/auth/failure_limit.ts";
import {
  DEFAULT_MAX_STREAMS,
  DEFAULT_RATE_LIMIT,
} from "./api/auth/rate_limit.ts";
import { LEVELS } from "./api/log.ts";
import { DEFAULT_LIMITS } from "./domain/limits.ts";

export type Mode = "kubernetes" | "embedded";
export const MODES: readonly Mode[] = ["kubernetes", "embedded"];

export interface Spec {
  env: string;
  /** A default per mode where dev mode differs. */
  default: string | Record<Mode, string>;
  help: string;
  /** The value's name in --help. */
  value: string;
  multiple?: true;
  /** A switch: `--flag` is `--flag=true`; its variable is true or false. */
  boolean?: true;
}

/**
 * The flags, in --help order. The shutdown delay follows the Kubernetes API
 * server's --shutdown-delay-duration; its default in kubernetes mode covers
 * deploy/'s readiness probe (periodSeconds 5 x failureThreshold 2): by then
 * every endpoint controller and load balancer has stopped sending. A dev
 * server has no load balancer to wait for.
 */
export const SPECS = {
  "http-port": {
    env: "CORRAL_HTTP_PORT",
    default: "8888",
    value: "PORT",
    help: "HTTP/JSON port (0 picks a free one)",
  },
  "grpc-port": {
    env: "CORRAL_GRPC_PORT",
    default: "8887",
    value: "PORT",
    help: "gRPC port (0 picks a free one)",
  },
  host: {
    env: "CORRAL_HOST",
    default: "0.0.0.0",
    value: "ADDRESS",
    help: "address both listeners bind",
  },
  "allowed-hosts": {
    env: "CORRAL_ALLOWED_HOSTS",
    default: { kubernetes: "*", embedded: "localhost,127.0.0.1,[::1]" },
    value: "LIST",
    help:
      "comma-separated Host header values the HTTP port serves (name or address, optional :port, *.domain, or * for any); others get 421 code 3, a defence against DNS rebinding. /healthz and /readyz answer any Host",
  },
  "cors-allowed-origins": {
    env: "CORRAL_CORS_ALLOWED_ORIGINS",
    default: "",
    value: "LIST",
    help:
      "comma-separated origins (scheme://host[:port]) whose pages may call the HTTP API: they get CORS answers and may send POST, PUT, PATCH and DELETE, which other origins' pages may not",
  },
  orchestrator: {
    env: "CORRAL_ORCHESTRATOR",
    default: "kubernetes",
    value: "MODE",
    help:
      "kubernetes: the cluster of --kubeconfig or the in-cluster service account; embedded: a local Kubernetes API stand-in with a simulated operator",
  },
  kubeconfig: {
    env: "KUBECONFIG",
    default: "",
    value: "FILE",
    help:
      "kubeconfig file (kubernetes mode); without one, the in-cluster service account",
  },
  "write-kubeconfig": {
    env: "CORRAL_WRITE_KUBECONFIG",
    default: "",
    value: "FILE",
    help:
      "embedded mode: write a kubeconfig for the stand-in to this path, for kubectl and other clients",
  },
  "operator-delay": {
    env: "CORRAL_OPERATOR_DELAY",
    default: "2s",
    value: "DURATION",
    help:
      "embedded mode: how long the simulated operator waits before a new cluster turns ready",
  },
  crd: {
    env: "CORRAL_CRDS",
    default: "",
    value: "FILE",
    multiple: true,
    help:
      "embedded mode: a CustomResourceDefinition file (YAML or JSON) to install into the stand-in, which then validates and prunes custom objects as a real API server; repeatable (env: comma-separated)",
  },
  "cluster-group": {
    env: "CORRAL_CLUSTER_GROUP",
    default: "ray.io",
    value: "GROUP",
    help: "API group of the cluster custom resource",
  },
  "cluster-version": {
    env: "CORRAL_CLUSTER_VERSION",
    default: "v1",
    value: "VERSION",
    help: "API version of the cluster custom resource",
  },
  "cluster-plural": {
    env: "CORRAL_CLUSTER_PLURAL",
    default: "rayclusters",
    value: "PLURAL",
    help: "plural resource name of the cluster custom resource",
  },
  namespaces: {
    env: "CORRAL_NAMESPACES",
    default: "",
    value: "LIST",
    help:
      "comma-separated namespaces to serve, for a namespaced install (others get code 7); empty serves all",
  },
  "kuberay-json": {
    env: "CORRAL_KUBERAY_JSON",
    default: "false",
    value: "BOOL",
    boolean: true,
    help:
      "HTTP answers in the JSON KubeRay's API server writes (enums as numbers, unpopulated fields left out) and request fields the API does not know are dropped with a warning instead of refused",
  },
  "max-body-bytes": {
    env: "CORRAL_MAX_BODY_BYTES",
    default: "3Mi",
    value: "SIZE",
    help:
      "largest request body (HTTP) or message (gRPC); larger ones are refused with code 8 (e.g. 3Mi, 512Ki)",
  },
  "max-replicas": {
    env: "CORRAL_MAX_REPLICAS",
    default: String(DEFAULT_LIMITS.maxReplicas),
    value: "N",
    help:
      "most replicas, minReplicas and maxReplicas of one worker group; more is refused with code 3",
  },
  "max-worker-groups": {
    env: "CORRAL_MAX_WORKER_GROUPS",
    default: String(DEFAULT_LIMITS.maxWorkerGroups),
    value: "N",
    help: "most worker groups of one cluster; more is refused with code 3",
  },
  "max-template-cpu": {
    env: "CORRAL_MAX_TEMPLATE_CPU",
    default: String(DEFAULT_LIMITS.maxTemplateCpu),
    value: "N",
    help: "most CPU cores of a compute template; more is refused with code 3",
  },
  "max-template-memory": {
    env: "CORRAL_MAX_TEMPLATE_MEMORY",
    default: String(DEFAULT_LIMITS.maxTemplateMemory),
    value: "GIB",
    help:
      "most memory of a compute template, in GiB; more is refused with code 3",
  },
  "max-template-gpu": {
    env: "CORRAL_MAX_TEMPLATE_GPU",
    default: String(DEFAULT_LIMITS.maxTemplateGpu),
    value: "N",
    help:
      "most GPUs of a compute template (0 allows none); more is refused with code 3",
  },
  "max-map-entries": {
    env: "CORRAL_MAX_MAP_ENTRIES",
    default: String(DEFAULT_LIMITS.maxMapEntries),
    value: "N",
    help:
      "most entries of each map field (envs, engineStartParams); more is refused with code 3",
  },
  "kube-timeout": {
    env: "CORRAL_KUBE_TIMEOUT",
    default: "10s",
    value: "DURATION",
    help:
      "time limit of each Kubernetes API call; past it the request fails with code 4",
  },
  cache: {
    env: "CORRAL_CACHE",
    default: "on",
    value: "on|off",
    help:
      "on: reads come from a watch-backed cache of the clusters, templates and events (list once, then watch); off: every read asks Kubernetes",
  },
  "cache-stale-after": {
    env: "CORRAL_CACHE_STALE_AFTER",
    default: "30s",
    value: "DURATION",
    help:
      "a cache whose watch has been down this long (or quiet, with the API server not answering a probe) is stale: not ready, and reads go to Kubernetes until it is back (503 code 14 at once while it does not answer)",
  },
  "cache-miss-qps": {
    env: "CORRAL_CACHE_MISS_QPS",
    default: "20",
    value: "N",
    help:
      "most Kubernetes lookups a second of names the cache does not hold (one per name at a time, a 404 remembered for 1 s); past it such a get answers 404 from the cache at once; 0 makes none",
  },
  "cache-bookmark-interval": {
    env: "CORRAL_CACHE_BOOKMARK_INTERVAL",
    default: "60s",
    value: "DURATION",
    help:
      "how often the API server sends each watch a BOOKMARK (kube-apiserver: about every minute); a cache watch silent for twice this is restarted",
  },
  "watch-max-duration": {
    env: "CORRAL_WATCH_MAX_DURATION",
    default: "30m",
    value: "DURATION",
    help:
      "the longest a watch stream lasts: each ends, cleanly and after a BOOKMARK to resume from, at a random time between half this and this, so that clients reconnect and are authorized again",
  },
  // Fair use (api/auth/rate_limit.ts).
  "rate-limit": {
    env: "CORRAL_RATE_LIMIT",
    default: String(DEFAULT_RATE_LIMIT.perSecond),
    value: "N",
    help:
      "requests per second each authenticated caller may make, in bursts of --rate-limit-burst; past it, 429 code 8 with Retry-After; the policy file's rateLimits: set groups' own; 0: no limit",
  },
  "rate-limit-anonymous": {
    env: "CORRAL_RATE_LIMIT_ANONYMOUS",
    default: "false",
    value: "BOOL",
    boolean: true,
    help:
      "hold anonymous callers to --rate-limit and --max-watches-per-user too, each source address (an IPv6 /64) as one caller; off: anonymous callers, who have no identity to be fair between, are not limited",
  },
  "rate-limit-burst": {
    env: "CORRAL_RATE_LIMIT_BURST",
    default: String(DEFAULT_RATE_LIMIT.burst),
    value: "N",
    help: "requests a caller may make in a row before --rate-limit applies",
  },
  "max-watches-per-user": {
    env: "CORRAL_MAX_WATCHES_PER_USER",
    default: String(DEFAULT_MAX_STREAMS),
    value: "N",
    help:
      "watch streams each authenticated caller may have open at once; the next is refused 429 code 8; 0: no cap",
  },
  // The dashboard proxy (api/http/dashboard_proxy.ts).
  "cluster-access": {
    env: "CORRAL_CLUSTER_ACCESS",
    default: "",
    value: "direct|apiserver-proxy",
    help:
      "how the dashboard proxy reaches a cluster's head service: direct (http://<service>.<namespace>.svc:8265, for a Corral in the cluster) or apiserver-proxy (the Kubernetes API server's service proxy, with Corral's Kubernetes credentials); by default direct in kubernetes mode without --kubeconfig (in a pod), apiserver-proxy otherwise (dev mode: the stand-in's service proxy)",
  },
  "dashboard-proxy-timeout": {
    env: "CORRAL_DASHBOARD_PROXY_TIMEOUT",
    default: "30s",
    value: "DURATION",
    help:
      "longest a request through the dashboard proxy may take, its answer's body included; a dashboard that has not answered by then gets 504 code 4, an answer still coming is cut",
  },
  "dashboard-proxy-max-request-bytes": {
    env: "CORRAL_DASHBOARD_PROXY_MAX_REQUEST_BYTES",
    default: "64Mi",
    value: "BYTES",
    help:
      "largest request body sent through the dashboard proxy; larger: 413 code 8",
  },
  "dashboard-proxy-max-response-bytes": {
    env: "CORRAL_DASHBOARD_PROXY_MAX_RESPONSE_BYTES",
    default: "64Mi",
    value: "BYTES",
    help:
      "largest dashboard answer passed on; a larger one announced by its Content-Length gets 502 code 14, one that grows past it is cut",
  },
  "dashboard-session-ttl": {
    env: "CORRAL_DASHBOARD_SESSION_TTL",
    default: "15m",
    value: "DURATION",
    help:
      "how long a dashboard cookie (POST .../dashboard:session) lasts; it also ends on sign-out and as soon as the caller's token or the policy no longer allows it",
  },
  "dashboard-session-key-file": {
    env: "CORRAL_DASHBOARD_SESSION_KEY_FILE",
    default: "",
    value: "FILE",
    help:
      "a file of at least 32 random bytes (e.g. a mounted Secret) that dashboard cookies are sealed with, the same for every replica, so a cookie opened on one replica works on all of them and across restarts; re-read when it changes (the key before still opens cookies until they expire); empty: a key made at start, and a browser's dashboard session stays with the replica that opened it",
  },
  // Cluster expiry and the leader election that lets one replica act
  // (api/service/expiry_worker.ts, orchestrator/leader_election.ts).
  "expiry-warning": {
    env: "CORRAL_EXPIRY_WARNING",
    default: "1h",
    value: "DURATION",
    help:
      "how long before a cluster expires a Warning event ExpiringSoon is recorded on it",
  },
  "expiry-interval": {
    env: "CORRAL_EXPIRY_INTERVAL",
    default: "5s",
    value: "DURATION",
    help:
      "how often the leader looks for clusters to warn of or delete (from the cache: no Kubernetes call)",
  },
  "leader-elect": {
    env: "CORRAL_LEADER_ELECT",
    default: { kubernetes: "true", embedded: "false" },
    value: "BOOL",
    boolean: true,
    help:
      "elect one replica, by a coordination.k8s.io Lease, to delete expired clusters; false: this replica always acts (one replica only)",
  },
  "leader-elect-lease-duration": {
    env: "CORRAL_LEADER_ELECT_LEASE_DURATION",
    default: "15s",
    value: "DURATION",
    help:
      "how long the others wait after the leader's last renewal before taking the Lease over",
  },
  "leader-elect-renew-deadline": {
    env: "CORRAL_LEADER_ELECT_RENEW_DEADLINE",
    default: "10s",
    value: "DURATION",
    help:
      "how long the leader keeps trying to renew before it stops acting; shorter than the lease duration",
  },
  "leader-elect-retry-period": {
    env: "CORRAL_LEADER_ELECT_RETRY_PERIOD",
    default: "2s",
    value: "DURATION",
    help:
      "time between attempts to take or renew the Lease; shorter than the renew deadline",
  },
  "leader-elect-namespace": {
    env: "CORRAL_LEADER_ELECT_NAMESPACE",
    default: "",
    value: "NAME",
    help:
      "the namespace of the Lease; empty: Corral's own namespace (--own-namespace or the pod's), else default",
  },
  "leader-elect-identity": {
    env: "CORRAL_POD_NAME",
    default: "",
    value: "NAME",
    help:
      "this replica's name in the Lease, with a random suffix; empty: corral (deploy/ sets the pod's name)",
  },
  "header-timeout": {
    env: "CORRAL_HEADER_TIMEOUT",
    default: "10s",
    value: "DURATION",
    help: "an HTTP client must send a request's headers within this",
  },
  "idle-timeout": {
    env: "CORRAL_IDLE_TIMEOUT",
    default: "60s",
    value: "DURATION",
    help: "an HTTP connection without traffic for this long is closed",
  },
  "body-timeout": {
    env: "CORRAL_BODY_TIMEOUT",
    default: "30s",
    value: "DURATION",
    help:
      "an HTTP request's body must arrive in full within this of its headers; past it: 408 code 4, connection closed",
  },
  "request-timeout": {
    env: "CORRAL_REQUEST_TIMEOUT",
    default: "60s",
    value: "DURATION",
    help:
      "longest an HTTP request may take, from its headers to the end of its answer; past it: 504 code 4",
  },
  "max-inflight-body-bytes": {
    env: "CORRAL_MAX_INFLIGHT_BODY_BYTES",
    default: "64Mi",
    value: "SIZE",
    help:
      "request bodies being received at once, in bytes (by Content-Length, or as chunks arrive); past it new bodies get 429 code 8 with Retry-After",
  },
  "shutdown-delay": {
    env: "CORRAL_SHUTDOWN_DELAY",
    default: { kubernetes: "10s", embedded: "0s" },
    value: "DURATION",
    help:
      "on SIGTERM or SIGINT, how long to keep serving while reporting not ready, so load balancers stop sending before the listeners close",
  },
  "shutdown-grace": {
    env: "CORRAL_SHUTDOWN_GRACE",
    default: "20s",
    value: "DURATION",
    help:
      "after the shutdown delay, how long requests in flight may take to finish",
  },
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
  "log-level": {
    env: "CORRAL_LOG_LEVEL",
    default: "info",
    value: "LEVEL",
    help: LEVELS.join(", "),
  },
  "log-format": {
    env: "CORRAL_LOG_FORMAT",
    default: "auto",
    value: "FORMAT",
    help:
      "json (a JSON object a line), text (a start-up banner, then a line per record), or auto: text when standard error is a terminal, else json",
  },
} as const satisfies Record<string, Spec>;

export type Flag = keyof typeof SPECS;
export const FLAGS = Object.keys(SPECS) as Flag[];

/** The environment variables the settings are read from. */
export const ENVIRONMENT: readonly string[] = FLAGS.map((f) => SPECS[f].env);
