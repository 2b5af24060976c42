/**
 * A RayCluster as the admission sees it, with an empty head group and the
 * worker groups a test gives: the shape the admission tests build on.
 */
import type { RayCluster, WorkerGroup } from "../../../domain/resources.ts";

export function rayClusterWith(workerGroups: WorkerGroup[]): RayCluster {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: { name: "c", namespace: "ns" },
    spec: {
      headGroupSpec: {
        rayStartParams: {},
        template: { spec: { containers: [] } },
      },
      workerGroupSpecs: workerGroups,
    },
  };
}
