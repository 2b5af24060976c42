/**
 * Corral's custom objects through CustomObjectsApi: RayClusters, RayJobs
 * and RayServices are written, read, listed and deleted the same way, one
 * Kubernetes call each (two for a delete), lists selected on the server by
 * the managed-by label, and an object without that label answered as
 * missing. Each kind is one row of what differs (ManagedKind); the Events
 * about each kind are listed the same way too (listEventsAbout).
 */
import { ApiException } from "@kubernetes/client-node";
import type { CallOptions } from "../domain/ports.ts";
import {
  CLUSTER_EVENTS_SELECTOR,
  isManagedCluster,
  type KubeEvent,
  MANAGED_CLUSTER_SELECTOR,
  type RayCluster,
} from "../domain/resources.ts";
import {
  isManagedJob,
  JOB_EVENTS_SELECTOR,
  MANAGED_JOB_SELECTOR,
  type RayJobResource,
} from "../domain/job_conversions.ts";
import {
  isManagedService,
  MANAGED_SERVICE_SELECTOR,
  type RayServiceResource,
  SERVICE_EVENTS_SELECTOR,
} from "../domain/service_resources.ts";
import type {
  CoreV1Port,
  CustomObjectsPort,
  RayClusterCoordinates,
} from "./client_ports.ts";
import type { KubernetesCall } from "./errors.ts";
import { asEvent } from "./json.ts";
import { LIST_PAGE_SIZE } from "./list_pages.ts";
import {
  type KubernetesCaller,
  notFound,
  qualified,
} from "./kubernetes_call.ts";

/** The plural RayJobs are served under, in the RayClusters' group and version. */
export const RAY_JOBS = "rayjobs";
/** The plural of RayServices, beside the RayClusters' group and version. */
export const RAY_SERVICES = "rayservices";

/** What an object of a managed kind carries. */
interface ManagedObject {
  metadata: { name: string; namespace?: string; uid?: string };
}

/** What tells one managed kind from another. */
export interface ManagedKind<T extends ManagedObject> {
  /** How error messages name one: "cluster". */
  noun: string;
  /** Served under, in the RayClusters' group and version (or its own). */
  plural: string;
  /** The managed-by label selector its lists use. */
  selector: string;
  /** Whether an object read is Corral's (else it is answered NOT_FOUND). */
  isManaged: (object: T) => boolean;
}

/** RayClusters, at the plural Corral is configured with. */
export function clusterKind(plural: string): ManagedKind<RayCluster> {
  return {
    noun: "cluster",
    plural,
    selector: MANAGED_CLUSTER_SELECTOR,
    isManaged: isManagedCluster,
  };
}

export const JOB_KIND: ManagedKind<RayJobResource> = {
  noun: "job",
  plural: RAY_JOBS,
  selector: MANAGED_JOB_SELECTOR,
  isManaged: isManagedJob,
};

export const SERVICE_KIND: ManagedKind<RayServiceResource> = {
  noun: "service",
  plural: RAY_SERVICES,
  selector: MANAGED_SERVICE_SELECTOR,
  isManaged: isManagedService,
};

export class ManagedObjectCalls<T extends ManagedObject> {
  readonly #caller: KubernetesCaller;
  readonly #api: CustomObjectsPort;
  readonly #kind: ManagedKind<T>;
  readonly #where: { group: string; version: string; plural: string };

  /** `where`: the RayClusters' group and version, which the kinds share. */
  constructor(
    caller: KubernetesCaller,
    api: CustomObjectsPort,
    where: Pick<RayClusterCoordinates, "group" | "version">,
    kind: ManagedKind<T>,
  ) {
    this.#caller = caller;
    this.#api = api;
    this.#kind = kind;
    this.#where = {
      group: where.group,
      version: where.version,
      plural: kind.plural,
    };
  }

  create(object: T, options?: CallOptions): Promise<T> {
    const namespace = object.metadata.namespace ?? "";
    return this.#caller.call(
      this.#call("create", namespace, object.metadata.name),
      this.#kind.plural,
      (config) =>
        this.#api.createNamespacedCustomObject(
          { ...this.#where, namespace, body: object },
          config,
        ),
      options,
    );
  }

  get(namespace: string, name: string, options?: CallOptions): Promise<T> {
    return this.#readManaged(
      this.#call("get", namespace, name),
      namespace,
      name,
      options,
    );
  }

  /**
   * Every managed object of the kind (in `namespace`), asked for in pages
   * of LIST_PAGE_SIZE, as kubectl and client-go's pager ask: with the cache
   * off, a list of 50,000 clusters in one answer was 80 MB of text parsed
   * at once. The continue token keeps the first page's snapshot.
   */
  async list(namespace?: string, options?: CallOptions): Promise<T[]> {
    const items: T[] = [];
    let token: string | undefined;
    do {
      let page: ListPage<T>;
      try {
        page = await this.#listPage(namespace, options, {
          limit: LIST_PAGE_SIZE,
          ...(token ? { _continue: token } : {}),
        });
      } catch (error) {
        if (!token || !continueExpired(error)) throw error;
        // The first page's snapshot is gone: the whole list again, in one
        // answer, as client-go's pager does.
        return (await this.#listPage(namespace, options, {})).items ?? [];
      }
      for (const item of page.items ?? []) items.push(item);
      token = page.metadata?.continue || undefined;
    } while (token);
    return items;
  }

  /** One answer of a list: a page of it with `limit`, the rest after `_continue`. */
  #listPage(
    namespace: string | undefined,
    options: CallOptions | undefined,
    paging: { limit?: number; _continue?: string },
  ): Promise<ListPage<T>> {
    const { noun, plural, selector: labelSelector } = this.#kind;
    const description: KubernetesCall = {
      action: namespace === undefined
        ? `Cannot list ${noun}s`
        : `Cannot list ${noun}s in namespace "${namespace}"`,
      verb: "list",
      noun,
    };
    return this.#caller.call(
      description,
      plural,
      (config) =>
        namespace === undefined
          ? this.#api.listClusterCustomObject(
            { ...this.#where, labelSelector, ...paging },
            config,
          )
          : this.#api.listNamespacedCustomObject(
            { ...this.#where, namespace, labelSelector, ...paging },
            config,
          ),
      options,
    );
  }

  /**
   * An update (PUT) of the whole object rather than a patch: its
   * metadata.resourceVersion is a precondition the API server checks
   * atomically (409 Conflict -> ABORTED when another write came between),
   * which is the etag check of an update for free, and the object sent is
   * exactly the one validated and converted from what was read, with
   * every label, annotation and field others set kept. A JSON merge patch
   * would replace the container lists whole anyway (envs live in every
   * container's env list), and a strategic merge patch is not served for
   * custom resources.
   */
  update(object: T, options?: CallOptions): Promise<T> {
    const namespace = object.metadata.namespace ?? "";
    const name = object.metadata.name;
    return this.#caller.call(
      this.#call("update", namespace, name),
      this.#kind.plural,
      (config) =>
        this.#api.replaceNamespacedCustomObject(
          { ...this.#where, namespace, name, body: object },
          config,
        ),
      options,
    );
  }

  async delete(
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<void> {
    const description = this.#call("delete", namespace, name);
    const held = await this.#readManaged(description, namespace, name, options);
    // The uid precondition makes the delete miss a namesake created
    // between the read and the delete (answered 409 -> ABORTED).
    await this.#caller.call(
      description,
      this.#kind.plural,
      (config) =>
        this.#api.deleteNamespacedCustomObject(
          {
            ...this.#where,
            namespace,
            name,
            body: { preconditions: { uid: held.metadata.uid } },
          },
          config,
        ),
      options,
    );
  }

  /** A call on one object, as error messages describe it. */
  #call(
    verb: KubernetesCall["verb"],
    namespace: string,
    name: string,
  ): KubernetesCall {
    const { noun } = this.#kind;
    return {
      action: `Cannot ${verb} ${noun} "${qualified(namespace, name)}"`,
      verb,
      noun,
    };
  }

  async #readManaged(
    description: KubernetesCall,
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<T> {
    // A read, whatever the caller's action: observed and retried as a get.
    const object: T = await this.#caller.call(
      { ...description, verb: "get" },
      this.#kind.plural,
      (config) =>
        this.#api.getNamespacedCustomObject(
          { ...this.#where, namespace, name },
          config,
        ),
      options,
    );
    // An object Corral (or the KubeRay API server) does not manage is
    // someone else's: as far as callers can tell, it does not exist.
    if (!this.#kind.isManaged(object)) throw notFound(description);
    return object;
  }
}

/** Which Events listEventsAbout lists, and how its errors name them. */
export interface EventsAbout {
  /** The field selector of the involved object's kind. */
  selector: string;
  /** The kind's noun in messages: "cluster". */
  noun: string;
}

export const CLUSTER_EVENTS: EventsAbout = {
  selector: CLUSTER_EVENTS_SELECTOR,
  noun: "cluster",
};
export const JOB_EVENTS: EventsAbout = {
  selector: JOB_EVENTS_SELECTOR,
  noun: "job",
};
export const SERVICE_EVENTS: EventsAbout = {
  selector: SERVICE_EVENTS_SELECTOR,
  noun: "service",
};

/**
 * Events whose involvedObject is of `about`'s kind, in `namespace` (all
 * when undefined), of the object `name` when given: one list call through
 * CoreV1Api, selected on the server, whatever the number of objects.
 */
export async function listEventsAbout(
  caller: KubernetesCaller,
  core: CoreV1Port,
  about: EventsAbout,
  where: { namespace?: string; name?: string },
  options?: CallOptions,
): Promise<KubeEvent[]> {
  const { namespace, name } = where;
  const fieldSelector = [
    about.selector,
    ...(name === undefined ? [] : [`involvedObject.name=${name}`]),
  ].join(",");
  const description: KubernetesCall = {
    action: name === undefined
      ? `Cannot list ${about.noun} events`
      : `Cannot list events of ${about.noun} "${
        qualified(namespace ?? "", name)
      }"`,
    verb: "list",
    noun: "event",
  };
  const list = await caller.call(
    description,
    "events",
    (config) =>
      namespace === undefined
        ? core.listEventForAllNamespaces({ fieldSelector }, config)
        : core.listNamespacedEvent({ namespace, fieldSelector }, config),
    options,
  );
  return list.items.map(asEvent);
}

/** A page of a list answer. */
interface ListPage<T> {
  items?: T[];
  metadata?: { continue?: string };
}

/** Whether a list's continue token was refused as expired (410 Gone). */
function continueExpired(error: unknown): boolean {
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause instanceof ApiException && cause.code === 410;
}
