/** The flags of the HTTP listener's time-outs and budget, and of shutdown. */
import type { Spec } from "./settings_flags_spec.ts";

export const HTTP_SPECS = {
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
} as const satisfies Record<string, Spec>;
