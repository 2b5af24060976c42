/**
 * The flags of Corral, in --help order: each one's environment variable,
 * default and help text. settings.ts parses them; this is the table.
 */
import { SERVING_SPECS } from "./settings_flags_serving.ts";
import { LIMIT_SPECS } from "./settings_flags_limits.ts";
import { FAIR_USE_SPECS } from "./settings_flags_fair_use.ts";
import { DASHBOARD_SPECS } from "./settings_flags_dashboard.ts";
import { EXPIRY_SPECS } from "./settings_flags_expiry.ts";
import { HTTP_SPECS } from "./settings_flags_http.ts";
import { AUTH_SPECS } from "./settings_flags_auth.ts";
import { LOG_SPECS } from "./settings_flags_log.ts";
import { type Mode, MODES, type Spec } from "./settings_flags_spec.ts";

export { type Mode, MODES, type Spec };

/**
 * The flags, in --help order. The shutdown delay follows the Kubernetes API
 * server's --shutdown-delay-duration; its default in kubernetes mode covers
 * deploy/'s readiness probe (periodSeconds 5 x failureThreshold 2): by then
 * every endpoint controller and load balancer has stopped sending. A dev
 * server has no load balancer to wait for.
 */
export const SPECS = {
  ...SERVING_SPECS,
  ...LIMIT_SPECS,
  ...FAIR_USE_SPECS,
  ...DASHBOARD_SPECS,
  ...EXPIRY_SPECS,
  ...HTTP_SPECS,
  ...AUTH_SPECS,
  ...LOG_SPECS,
} as const satisfies Record<string, Spec>;

export type Flag = keyof typeof SPECS;
export const FLAGS = Object.keys(SPECS) as Flag[];

/** The environment variables the settings are read from. */
export const ENVIRONMENT: readonly string[] = FLAGS.map((f) => SPECS[f].env);
