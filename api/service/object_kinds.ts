/**
 * What each workload kind's whole objects (a RayCluster, RayJob or
 * RayService as a client of the CRDs sends it) are to the writes of
 * object_writes.ts: what admission decides on, how they are named, the
 * cluster they run, what a kind adds to the steps (a job's cluster, a
 * RayService's fields), one row per kind.
 */
import type { WorkloadKindName } from "../../domain/kinds.ts";
import {
  CLUSTER_SELECTOR_KEY,
  MAX_JOB_NAME_LENGTH,
  type RayJobResource,
} from "../../domain/job_conversions.ts";
import { isDns1035Label } from "../../domain/kubernetes_names.ts";
import { clusterNameProblems } from "../../domain/name_problems.ts";
import type { RayCluster } from "../../domain/resources.ts";
import { serviceCluster } from "../../domain/service_conversions.ts";
import type { RayServiceResource } from "../../domain/service_resources.ts";
import { MAX_SERVICE_NAME_LENGTH } from "../../domain/service_validation.ts";
import type { OwnerCheck } from "../auth/owners.ts";
import type { Workload } from "../auth/workload.ts";
import type { CallContext, NamespaceScope } from "./rpcs.ts";
import { checkSelectedCluster } from "./selected_cluster.ts";
import type { Service } from "./service.ts";

type NamespaceCall = CallContext<NamespaceScope>;

/** An object of a workload kind, as sent and as stored. */
export type RayObject = RayCluster | RayJobResource | RayServiceResource;

/** What a workload kind's whole objects are to these writes. */
export interface ObjectKind {
  /** How a quota's refusal names it: "this cluster". */
  what: string;
  /** How admission's refusals name what it checks; "cluster" by default. */
  admittedAs?: string;
  /** What admission decides on: the object, or a RayService's cluster. */
  workload(object: RayObject): Workload;
  /** The problems of a name for one of them ([] for none). */
  nameProblems(name: string): string[];
  /** The cluster spec it runs, if any: its groups are bounded (--max-*). */
  clusterSpec(object: RayObject): RayCluster["spec"] | undefined;
  /** Where that cluster spec is in the object, for violations. */
  clusterPath: string;
  /**
   * The spec fields it may set besides those of the cluster it runs,
   * where admission does not walk them (a RayService's): any other is
   * refused. Undefined: admission walks the whole spec.
   */
  specFields?: ReadonlySet<string>;
  /** Whether the object is named in its `ray.io/cluster-name` label. */
  clusterNameLabel: boolean;
  /** Whether it may wait in a queue (workload_create.ts); yes by default. */
  queueable?(object: RayObject): boolean;
  /** Whether it takes an expiry (workload_create.ts); yes by default. */
  expires?(object: RayObject): boolean;
  /** What it needs of other objects before it is written (a job's cluster). */
  check?(
    service: Service,
    object: RayObject,
    call: NamespaceCall,
  ): Promise<void>;
  /** The owners rule's words of its update and delete. */
  update: OwnerCheck;
  delete: OwnerCheck;
}

/** A job's own cluster, if it brings one. */
function jobSpec(object: RayObject): RayJobResource["spec"] {
  return (object as RayJobResource).spec ?? {};
}

/** A name of at most `max` characters that is a DNS-1035 label. */
function shortLabelProblems(name: string, max: number): string[] {
  if (name === "") return ["is required"];
  if (name.length > max) return [`must be at most ${max} characters`];
  return isDns1035Label(name) ? [] : [
    "must be a DNS-1035 label: lower case letters, digits and '-', starting with a letter and ending with a letter or digit",
  ];
}

/** Every workload kind's row. */
export const OBJECT_KINDS: Readonly<Record<WorkloadKindName, ObjectKind>> = {
  clusters: {
    what: "this cluster",
    workload: (object) => object as RayCluster,
    nameProblems: clusterNameProblems,
    clusterSpec: (object) => (object as RayCluster).spec,
    clusterPath: "spec",
    clusterNameLabel: true,
    update: { resource: "clusters", doing: "update a cluster" },
    delete: { resource: "clusters", doing: "delete a cluster" },
  },
  jobs: {
    what: "this job",
    workload: (object) => object as RayJobResource,
    nameProblems: (name) => shortLabelProblems(name, MAX_JOB_NAME_LENGTH),
    clusterSpec: (object) => jobSpec(object).rayClusterSpec,
    clusterPath: "spec.rayClusterSpec",
    clusterNameLabel: true,
    // As CreateRayJob's: only a job Kueue can hold waits, and only one
    // with a cluster of its own expires (its cluster's expiry bounds it).
    queueable: (object) =>
      jobSpec(object).rayClusterSpec !== undefined &&
      jobSpec(object).shutdownAfterJobFinishes === true,
    expires: (object) => jobSpec(object).rayClusterSpec !== undefined,
    check: async (service, object, call) => {
      if (jobSpec(object).rayClusterSpec !== undefined) return;
      await checkSelectedCluster(
        service.orchestrator,
        jobSpec(object).clusterSelector?.[CLUSTER_SELECTOR_KEY] ?? "",
        `spec.clusterSelector["${CLUSTER_SELECTOR_KEY}"]`,
        call,
      );
    },
    update: { resource: "jobs", doing: "update a job" },
    delete: { resource: "jobs", doing: "delete a job" },
  },
  services: {
    what: "this service's cluster",
    admittedAs: "service",
    workload: (object) => serviceCluster(object as RayServiceResource),
    nameProblems: (name) => shortLabelProblems(name, MAX_SERVICE_NAME_LENGTH),
    clusterSpec: (object) =>
      (object as RayServiceResource).spec?.rayClusterConfig,
    clusterPath: "spec.rayClusterConfig",
    // What CreateRayService writes; any other field of a RayService (its
    // Kubernetes Service, upgrade strategy, ...) is no cluster's, and
    // admission would not see it.
    specFields: new Set([
      "serveConfigV2",
      "rayClusterConfig",
      "serviceUnhealthySecondThreshold",
      "deploymentUnhealthySecondThreshold",
    ]),
    clusterNameLabel: false,
    update: { resource: "services", doing: "update a service" },
    delete: { resource: "services", doing: "delete a service" },
  },
};
