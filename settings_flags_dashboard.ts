/** The flags of the dashboard proxy. */
import type { Spec } from "./settings_flags_spec.ts";

export const DASHBOARD_SPECS = {
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
} as const satisfies Record<string, Spec>;
