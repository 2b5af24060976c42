/**
 * Every kind of object Corral keeps in Kubernetes, one row each: where
 * Kubernetes serves it, how messages name it, which of the resource's
 * objects are Corral's, the Events about it, the stores the cache keeps it
 * in, its API message made from the resource (its conversion; the other
 * way, with what its write steps decide, is its create's render in
 * api/service), and, for a workload (what runs pods), the steps its create
 * goes through before it is written. The orchestrator's reads and writes
 * (the direct one and the cache) are written once, over this table, as
 * client-go's informers and listers are written once over the type; the
 * Orchestrator port has one object port per row (ports.ts: ObjectPort);
 * every workload's create runs its row's steps, in their one order
 * (api/service/workload_create.ts).
 */
import {
  CLUSTER_EVENTS_SELECTOR,
  COMPUTE_TEMPLATE_SELECTOR,
  type ConfigMap,
  isComputeTemplate,
  isManagedCluster,
  LABEL,
  MANAGED_CLUSTER_SELECTOR,
  type ObjectMeta,
  type RayCluster,
} from "./resources.ts";
import {
  isManagedJob,
  JOB_EVENTS_SELECTOR,
  jobFromResource,
  MANAGED_JOB_SELECTOR,
  type RayJobResource,
} from "./job_conversions.ts";
import { clusterFromResource } from "./conversions.ts";
import { serviceFromResource } from "./service_conversions.ts";
import { computeTemplateFromConfigMap } from "./template_conversions.ts";
import type { KubeEvent } from "./resources.ts";
import type { Cluster, ComputeTemplate, RayJob, RayService } from "./types.ts";
import {
  isManagedService,
  MANAGED_SERVICE_SELECTOR,
  type RayServiceResource,
  SERVICE_EVENTS_SELECTOR,
} from "./service_resources.ts";

/** The object of each kind, by the kind's name (the port's, ports.ts). */
export interface KindObjects {
  clusters: RayCluster;
  templates: ConfigMap;
  jobs: RayJobResource;
  services: RayServiceResource;
}

/** The API's message of each kind, by the kind's name. */
export interface KindMessages {
  clusters: Cluster;
  templates: ComputeTemplate;
  jobs: RayJob;
  services: RayService;
}

/** "clusters", "templates", "jobs", "services". */
export type KindName = keyof KindObjects;

/** What an object of every kind has. */
export interface KindObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
}

/** Where Kubernetes serves a kind's objects. */
export interface KindResource {
  /** The object's `kind`, and the Events' involvedObject.kind about one. */
  kind: string;
  /** The resource's plural: "rayclusters". */
  plural: string;
  /**
   * The API group ("" for the core API) and version, where they are not
   * those RayClusters are configured at (--ray-cluster-group, -version).
   */
  group?: string;
  version?: string;
  /** Whether settings give the plural instead (--ray-cluster-plural). */
  configurablePlural?: boolean;
}

/** One kind of object: a row of KINDS. */
export interface Kind<T extends KindObject, M = unknown> {
  /** How messages name one: `Cannot get compute template "team-a/small"`. */
  noun: string;
  /**
   * Its message in the API, from the object and the events about it (none
   * for a kind whose Events are not read).
   */
  message(object: T, events: readonly KubeEvent[]): M;
  resource: KindResource;
  /** The label selector every list of the kind is made with. */
  selector: string;
  /** Whether an object read is of the kind (another is answered NOT_FOUND). */
  isManaged(object: T): boolean;
  /**
   * The label a list's `names` match (ListOptions.names): a template's
   * name is its label's; metadata.name when unset.
   */
  nameLabel?: string;
  /**
   * How a create that lost the name to an object of the resource that is
   * not of the kind says so; unset: as any name taken.
   */
  foreign?: string;
  /**
   * The field selector of the Events about the kind's objects (by
   * involvedObject.kind); unset: none are read.
   */
  events?: string;
  /**
   * The stores the cache keeps the objects and the Events about them in,
   * named as CacheState counts them.
   */
  store: { objects: string; events?: string };
  /** A workload's create steps; none for a kind that runs nothing. */
  writes?: WriteSteps;
}

/**
 * What a workload's create goes through, in this order, before it is
 * written. Owners, admission and quota are every workload's: the type has
 * no way to leave them out. Queue and expiry are a kind's, or say why not.
 */
export interface WriteSteps {
  /** `user` filled in with the caller's, and no one else's. */
  owners: true;
  /**
   * The Kueue LocalQueue it waits in: the one named, if the policy allows
   * it, else the namespace's default.
   */
  queue: Step;
  /**
   * Its lifetime: ttl, expires_at or the policy's default (else its max),
   * within its max; none where the policy exempts the kind.
   */
  expiry: Step;
  /**
   * The rendered workload (every pod it would run: head, workers, a job's
   * submitter, a service's cluster) against the rules (images, host paths,
   * service accounts, ...).
   */
  admission: true;
  /** What its pods hold counted against the namespace's quotas, held while written. */
  quota: true;
}

/** A step a kind takes, or why it does not. */
export type Step = true | { not: string };

/** Every kind, by name, in the order the cache reflects them. */
export const KINDS: {
  readonly [K in KindName]: Kind<KindObjects[K], KindMessages[K]>;
} = {
  clusters: {
    noun: "cluster",
    message: clusterFromResource,
    resource: {
      kind: "RayCluster",
      plural: "rayclusters",
      configurablePlural: true,
    },
    selector: MANAGED_CLUSTER_SELECTOR,
    isManaged: isManagedCluster,
    events: CLUSTER_EVENTS_SELECTOR,
    store: { objects: "rayclusters", events: "events" },
    writes: {
      owners: true,
      queue: true,
      expiry: true,
      admission: true,
      quota: true,
    },
  },
  templates: {
    noun: "compute template",
    message: (configMap) => computeTemplateFromConfigMap(configMap),
    resource: {
      kind: "ConfigMap",
      plural: "configmaps",
      group: "",
      version: "v1",
    },
    selector: COMPUTE_TEMPLATE_SELECTOR,
    isManaged: isComputeTemplate,
    nameLabel: LABEL.computeTemplate,
    foreign: "a ConfigMap that is not a compute template",
    store: { objects: "configmaps" },
  },
  jobs: {
    noun: "job",
    message: jobFromResource,
    resource: { kind: "RayJob", plural: "rayjobs" },
    selector: MANAGED_JOB_SELECTOR,
    isManaged: isManagedJob,
    events: JOB_EVENTS_SELECTOR,
    store: { objects: "rayjobs", events: "jobevents" },
    writes: {
      owners: true,
      // Only a job Kueue can hold waits: one with its own cluster, deleted
      // when it ends (api/service/jobs.ts, queueable).
      queue: true,
      // A job that ends by itself still expires: one that never ends (or
      // waits in its queue for ever) must not hold its cluster past the
      // maximum, nor one that keeps its cluster after it ends
      // (shutdownAfterJobFinishes false). The RayJob carries the expiry
      // and is what expiry deletes, its cluster with it (the operator
      // copies the annotation to the cluster, and would make a deleted one
      // again): api/service/expiry_worker.ts.
      expiry: true,
      admission: true,
      quota: true,
    },
  },
  services: {
    noun: "service",
    message: serviceFromResource,
    resource: { kind: "RayService", plural: "rayservices" },
    selector: MANAGED_SERVICE_SELECTOR,
    isManaged: isManagedService,
    events: SERVICE_EVENTS_SELECTOR,
    store: { objects: "rayservices", events: "serviceevents" },
    writes: {
      owners: true,
      queue: { not: "Kueue admits no RayService: a service serves at once" },
      // Its cluster is a cluster like any other: the policy's limits apply
      // unless its entry says `services: exempt`. The RayService carries
      // the expiry and is what expiry deletes, as a job.
      expiry: true,
      admission: true,
      quota: true,
    },
  },
};

/** The kinds' names, in KINDS' order. */
export const KIND_NAMES = Object.keys(KINDS) as readonly KindName[];

/** The name a list's `names` match an object of `kind` by (nameLabel). */
export function listedName<T extends KindObject>(
  kind: Kind<T>,
  object: T,
): string {
  return kind.nameLabel === undefined
    ? object.metadata.name
    : object.metadata.labels?.[kind.nameLabel] ?? "";
}

/** The kinds that run pods: those with write steps. */
export type WorkloadKindName = "clusters" | "jobs" | "services";

/** A workload kind's create steps (its row's `writes`). */
export function writeStepsOf(kind: WorkloadKindName): WriteSteps {
  return KINDS[kind].writes!;
}
