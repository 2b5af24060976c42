/**
 * The quota tests' policy: the people's rules (access_fixtures.ts) and one
 * quota per namespace, each limiting one dimension.
 */
import { RULES } from "./access_fixtures.ts";
import { policyText } from "./policy_fixtures.ts";

/** One quota per namespace, each limiting one dimension. */
export const POLICY_WITH_QUOTAS = policyText(RULES, {
  quotas: [
    { namespaces: ["q-clusters"], maxClusters: 2 },
    { namespaces: ["q-workers"], maxWorkers: 2 },
    { namespaces: ["q-cpu"], cpu: 8 },
    { namespaces: ["q-gpu"], gpu: 4 },
    { namespaces: ["q-memory"], memory: 16 },
    { namespaces: ["team-a"], users: ["alice"], maxClusters: 1 },
    { namespaces: ["q-replicas"], maxClusters: 2, cpu: 8 },
    { namespaces: ["q-scale-replicas"], cpu: 12 },
    { namespaces: ["q-mixed-replicas"], cpu: 4 },
  ],
});
