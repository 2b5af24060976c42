import {
  boolean,
  duration,
  namespaceOrNone,
  positive,
} from "./settings_values.ts";
import type { Flag } from "./settings_flags.ts";
import { checkFlag, type RawSettings } from "./settings_raw.ts";

/** The expiry worker's and its leader election's settings (--expiry-*, --leader-elect*). */
export interface ExpirySettings {
  warningMs: number;
  intervalMs: number;
  /** False: this replica always acts. */
  leaderElect: boolean;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** "": Corral's own namespace, else default. */
  leaseNamespace: string;
  identity: string;
}

/**
 * The expiry's flags; the leader election's three durations checked
 * together, as client-go's NewLeaderElector does.
 */
export function expirySettings(
  raw: RawSettings,
  problems: string[],
): ExpirySettings {
  const check = <T>(flag: Flag, parse: (text: string) => T, fallback: T) =>
    checkFlag(raw, problems, flag, parse, fallback);
  const settings = {
    warningMs: check("expiry-warning", duration, 0),
    intervalMs: check("expiry-interval", positive(duration), 0),
    leaderElect: check("leader-elect", boolean, false),
    leaseDurationMs: check(
      "leader-elect-lease-duration",
      positive(duration),
      0,
    ),
    renewDeadlineMs: check(
      "leader-elect-renew-deadline",
      positive(duration),
      0,
    ),
    retryPeriodMs: check("leader-elect-retry-period", positive(duration), 0),
    leaseNamespace: check("leader-elect-namespace", namespaceOrNone, ""),
    identity: raw.values["leader-elect-identity"].trim(),
  };
  if (
    settings.leaderElect && settings.leaseDurationMs > 0 &&
    settings.renewDeadlineMs > 0 && settings.retryPeriodMs > 0 &&
    !(settings.retryPeriodMs < settings.renewDeadlineMs &&
      settings.renewDeadlineMs < settings.leaseDurationMs)
  ) {
    problems.push(
      "--leader-elect-renew-deadline: must be shorter than --leader-elect-lease-duration and longer than --leader-elect-retry-period",
    );
  }
  return settings;
}
