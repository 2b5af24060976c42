/** The flags of fair use. */
import {
  DEFAULT_MAX_STREAMS,
  DEFAULT_RATE_LIMIT,
} from "./api/auth/rate_limit.ts";
import type { Spec } from "./settings_flags_spec.ts";

export const FAIR_USE_SPECS = {
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
} as const satisfies Record<string, Spec>;
