/**
 * The start-up step that sets cluster expiry going: the expiry worker, the
 * leader election it acts under and the Kubernetes events it records; and
 * the quota records' sweep, under the same leader. One
 * of the steps main.ts wires together (startup/kubernetes.ts says why they
 * have a folder of their own).
 */
import * as k8s from "@kubernetes/client-node";
import type { Closer } from "../api/shutdown.ts";
import { ExpiryWorker } from "../api/service/expiry_worker.ts";
import { QuotaLedger } from "../api/service/quota_ledger.ts";
import { QuotaSweeper } from "../api/service/quota_sweeper.ts";
import type { Logger } from "../domain/log.ts";
import type { Orchestrator } from "../domain/ports.ts";
import { KubernetesEventRecorder } from "../orchestrator/expiry_events.ts";
import {
  LeaderElector,
  leaderIdentity,
} from "../orchestrator/leader_election.ts";
import type { Settings } from "../settings.ts";
import { podNamespace } from "./kubernetes.ts";

/**
 * Cluster expiry: the worker that deletes expired clusters, acting only
 * while this replica leads (a Lease in Corral's own namespace, else
 * default), or always with --leader-elect=false. Stopping releases the
 * Lease, so another replica takes over at once during a rollout.
 */
export function startExpiry(
  settings: Settings,
  kubeConfig: k8s.KubeConfig,
  orchestrator: Orchestrator,
  log: Logger,
): Closer {
  const expiry = settings.expiry;
  const elector = expiry.leaderElect
    ? new LeaderElector({
      leases: kubeConfig.makeApiClient(k8s.CoordinationV1Api),
      namespace: expiry.leaseNamespace || settings.auth.ownNamespace ||
        podNamespace(settings.orchestrator, settings.kubeconfig, kubeConfig) ||
        "default",
      name: "corral-expiry",
      identity: leaderIdentity(expiry.identity),
      leaseDurationMs: expiry.leaseDurationMs,
      renewDeadlineMs: expiry.renewDeadlineMs,
      retryPeriodMs: expiry.retryPeriodMs,
      log: log.with({ component: "leader-election" }),
    })
    : undefined;
  const worker = new ExpiryWorker({
    orchestrator,
    events: new KubernetesEventRecorder(
      kubeConfig.makeApiClient(k8s.CoreV1Api),
    ),
    leader: elector ?? { isLeader: () => true },
    log: log.with({ component: "expiry" }),
    warningMs: expiry.warningMs,
    intervalMs: expiry.intervalMs,
    namespaces: settings.namespaces,
  });
  // The quota records' charges left behind, swept under the same Lease.
  const sweeper = new QuotaSweeper({
    ledger: new QuotaLedger(orchestrator.quotaRecords),
    records: orchestrator.quotaRecords,
    leader: elector ?? { isLeader: () => true },
    log: log.with({ component: "quota" }),
    namespaces: settings.namespaces,
  });
  elector?.start();
  worker.start();
  sweeper.start();
  return {
    name: "expiry, the quota sweep and their lease",
    async close() {
      await Promise.all([worker.stop(), sweeper.stop()]);
      await elector?.stop({ release: true });
    },
  };
}
