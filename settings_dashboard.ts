import {
  CLUSTER_ACCESS_MODES,
  type ClusterAccessMode,
} from "./domain/dashboard_ports.ts";
import { bytes, duration, oneOf, positive } from "./settings_values.ts";
import type { Flag } from "./settings_flags.ts";
import { checkFlag, type RawSettings } from "./settings_raw.ts";

export interface DashboardProxySettings {
  clusterAccess: ClusterAccessMode;
  timeoutMs: number;
  maxRequestBytes: number;
  maxResponseBytes: number;
  sessionTtlMs: number;
  /** The key dashboard cookies are sealed with; "": one made at start. */
  sessionKeyFile: string;
}

/**
 * The dashboard proxy's flags. --cluster-access defaults to direct where
 * Corral runs in a pod (kubernetes mode without a kubeconfig: the in-cluster
 * service account), where the head services' names resolve; elsewhere, dev
 * mode included, to the API server's service proxy, which reaches them from
 * anywhere Corral reaches the API.
 */
export function dashboardProxySettings(
  raw: RawSettings,
  problems: string[],
): DashboardProxySettings {
  const check = <T>(flag: Flag, parse: (text: string) => T, fallback: T) =>
    checkFlag(raw, problems, flag, parse, fallback);
  const inPod = raw.mode === "kubernetes" &&
    raw.values.kubeconfig.trim() === "";
  const asked = raw.values["cluster-access"].trim();
  return {
    clusterAccess: asked === ""
      ? (inPod ? "direct" : "apiserver-proxy")
      : check("cluster-access", oneOf(CLUSTER_ACCESS_MODES), "direct"),
    timeoutMs: check("dashboard-proxy-timeout", positive(duration), 0),
    maxRequestBytes: check("dashboard-proxy-max-request-bytes", bytes, 0),
    maxResponseBytes: check("dashboard-proxy-max-response-bytes", bytes, 0),
    sessionTtlMs: check("dashboard-session-ttl", positive(duration), 0),
    sessionKeyFile: raw.values["dashboard-session-key-file"].trim(),
  };
}
