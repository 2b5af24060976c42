/**
 * The start-up step that readies the dashboard proxy's parts: the way to
 * the clusters' head services and the browsers' sessions. One of the steps
 * main.ts wires together (startup/kubernetes.ts says why they have a folder
 * of their own).
 */
import type * as k8s from "@kubernetes/client-node";
import { DashboardSessions } from "../api/auth/dashboard_sessions.ts";
import { loadSessionKeyFile } from "../api/auth/dashboard_session_key.ts";
import { type Closer, named } from "../api/shutdown.ts";
import type { Logger } from "../domain/log.ts";
import {
  apiserverProxyAccess,
  directAccess,
} from "../orchestrator/cluster_access.ts";
import { DashboardJobs } from "../orchestrator/dashboard_jobs.ts";
import type { Settings } from "../settings.ts";

/**
 * The dashboard proxy's parts: the way to the head services
 * (--cluster-access), closed with the rest, and to their dashboards' job
 * API, and the sessions of browsers,
 * sealed with the key of --dashboard-session-key-file (re-read as it
 * changes), else with a key made now.
 */
export async function dashboardProxyOf(
  settings: Settings,
  kubeConfig: k8s.KubeConfig,
  closers: Closer[],
  log: Logger,
) {
  const proxy = settings.dashboardProxy;
  const keys = proxy.sessionKeyFile
    ? await loadSessionKeyFile({ path: proxy.sessionKeyFile, log })
    : undefined;
  if (keys) closers.push(named("dashboard session keys", keys));
  const clusterAccess = proxy.clusterAccess === "direct"
    ? directAccess()
    : apiserverProxyAccess(kubeConfig);
  closers.push({
    name: "dashboard connections",
    close: () => Promise.resolve(clusterAccess.close()),
  });
  return {
    clusterAccess,
    jobs: new DashboardJobs({
      access: clusterAccess,
      timeoutMs: proxy.timeoutMs,
      maxResponseBytes: proxy.maxResponseBytes,
    }),
    sessions: new DashboardSessions({
      ttlMs: proxy.sessionTtlMs,
      ...(keys ? { keys } : {}),
    }),
    timeoutMs: proxy.timeoutMs,
    maxRequestBytes: proxy.maxRequestBytes,
    maxResponseBytes: proxy.maxResponseBytes,
  };
}
