/** The flags of cluster expiry and the leader election. */
import type { Spec } from "./settings_flags_spec.ts";

export const EXPIRY_SPECS = {
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
} as const satisfies Record<string, Spec>;
