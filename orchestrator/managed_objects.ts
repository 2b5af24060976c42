/**
 * The reads and writes of one kind of Corral's objects (a row of
 * domain/kinds.ts: RayClusters, compute-template ConfigMaps, RayJobs,
 * RayServices), written once: one Kubernetes call each (two for a delete),
 * lists selected on the server by the kind's label selector, and an object
 * of the resource that is not of the kind answered as missing. The calls go
 * through the API that serves the kind (resource_calls.ts); the Events
 * about each kind are listed the same way too (listEventsAbout).
 */
import { ApiException } from "@kubernetes/client-node";
import { Code, ServiceError } from "../domain/errors.ts";
import type { Kind, KindObject } from "../domain/kinds.ts";
import { isLabelValue } from "../domain/kubernetes_names.ts";
import type { CallOptions, ListOptions, ObjectPort } from "../domain/ports.ts";
import type { KubeEvent } from "../domain/resources.ts";
import type { CoreV1Port } from "./client_ports.ts";
import type { KubernetesCall } from "./errors.ts";
import { asEvent, objectOf } from "./json.ts";
import { LIST_PAGE_SIZE } from "./list_pages.ts";
import {
  type KubernetesCaller,
  notFound,
  qualified,
} from "./kubernetes_call.ts";
import type { ListPage, ResourceCalls } from "./resource_calls.ts";

/** The direct port of one kind: every read asks Kubernetes. */
export class ManagedObjectCalls<T extends KindObject> implements ObjectPort<T> {
  readonly #caller: KubernetesCaller;
  readonly #calls: ResourceCalls;
  readonly #kind: Kind<T>;
  readonly #core: CoreV1Port;

  /** `core` lists the Events about the kind's objects. */
  constructor(
    caller: KubernetesCaller,
    calls: ResourceCalls,
    kind: Kind<T>,
    core: CoreV1Port,
  ) {
    this.#caller = caller;
    this.#calls = calls;
    this.#kind = kind;
    this.#core = core;
  }

  async create(object: T, options?: CallOptions): Promise<T> {
    const namespace = object.metadata.namespace ?? "";
    const name = object.metadata.name;
    const description = this.#call("create", namespace, name);
    try {
      return this.#object(
        await this.#caller.call(
          description,
          this.#calls.plural,
          (config) => this.#calls.create(namespace, object, config),
          options,
        ),
      );
    } catch (error) {
      throw await this.#clash(error, description, namespace, name, options);
    }
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
   * Every object of the kind (in `namespace`; of `names` when given),
   * asked for in pages of LIST_PAGE_SIZE, as kubectl and client-go's pager
   * ask: with the cache off, a list of 50,000 clusters in one answer was
   * 80 MB of text parsed at once. The continue token keeps the first
   * page's snapshot.
   */
  async list(namespace?: string, options?: ListOptions): Promise<T[]> {
    const { nameLabel } = this.#kind;
    const names = options?.names;
    let labelSelector = this.#kind.selector;
    if (names !== undefined && nameLabel !== undefined) {
      // The names are label values; a name that cannot be one cannot
      // match, and would make the selector invalid.
      const wanted = [...new Set(names)].filter(isLabelValue);
      if (wanted.length === 0) return [];
      labelSelector += `,${nameLabel} in (${wanted.join(",")})`;
    }
    const items = await this.#listAll(namespace, labelSelector, options);
    if (names === undefined || nameLabel !== undefined) return items;
    const wanted = new Set(names);
    return items.filter((object) => wanted.has(object.metadata.name));
  }

  async #listAll(
    namespace: string | undefined,
    labelSelector: string,
    options: CallOptions | undefined,
  ): Promise<T[]> {
    const items: T[] = [];
    let token: string | undefined;
    do {
      let page: ListPage<unknown>;
      try {
        page = await this.#listPage(namespace, options, {
          labelSelector,
          limit: LIST_PAGE_SIZE,
          ...(token ? { _continue: token } : {}),
        });
      } catch (error) {
        if (!token || !continueExpired(error)) throw error;
        // The first page's snapshot is gone: the whole list again, in one
        // answer, as client-go's pager does.
        const whole = await this.#listPage(namespace, options, {
          labelSelector,
        });
        return (whole.items ?? []).map((item) => this.#object(item));
      }
      for (const item of page.items ?? []) items.push(this.#object(item));
      token = page.metadata?.continue || undefined;
    } while (token);
    return items;
  }

  /** One answer of a list: a page of it with `limit`, the rest after `_continue`. */
  #listPage(
    namespace: string | undefined,
    options: CallOptions | undefined,
    query: Parameters<ResourceCalls["list"]>[1],
  ): Promise<ListPage<unknown>> {
    const { noun } = this.#kind;
    const description: KubernetesCall = {
      action: namespace === undefined
        ? `Cannot list ${noun}s`
        : `Cannot list ${noun}s in namespace "${namespace}"`,
      verb: "list",
      noun,
    };
    return this.#caller.call(
      description,
      this.#calls.plural,
      (config) => this.#calls.list(namespace, query, config),
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
  async update(object: T, options?: CallOptions): Promise<T> {
    const namespace = object.metadata.namespace ?? "";
    const name = object.metadata.name;
    return this.#object(
      await this.#caller.call(
        this.#call("update", namespace, name),
        this.#calls.plural,
        (config) => this.#calls.replace(namespace, name, object, config),
        options,
      ),
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
      this.#calls.plural,
      (config) =>
        this.#calls.delete(namespace, name, held.metadata.uid, config),
      options,
    );
  }

  /** The Events about the kind's objects; none for a kind without. */
  async events(
    namespace?: string,
    name?: string,
    options?: CallOptions,
  ): Promise<KubeEvent[]> {
    const { events, noun } = this.#kind;
    if (events === undefined) return [];
    return await listEventsAbout(
      this.#caller,
      this.#core,
      { selector: events, noun },
      { namespace, name },
      options,
    );
  }

  /** An answer as the domain's object. */
  #object(answer: unknown): T {
    return objectOf<T>(this.#kind.resource, answer);
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

  /**
   * A create's failure; when the name is taken by an object of the
   * resource that is not of the kind, and the kind says so (foreign), in
   * those words: the extra read happens only on this failure path.
   */
  async #clash(
    error: unknown,
    description: KubernetesCall,
    namespace: string,
    name: string,
    options: CallOptions | undefined,
  ): Promise<unknown> {
    const { foreign } = this.#kind;
    if (
      foreign === undefined || !(error instanceof ServiceError) ||
      error.code !== Code.ALREADY_EXISTS
    ) return error;
    const taken = await this.#caller.call(
      this.#call("get", namespace, name),
      this.#calls.plural,
      (config) => this.#calls.read(namespace, name, config),
      options,
    ).catch(() => undefined);
    if (taken === undefined || this.#kind.isManaged(this.#object(taken))) {
      return error;
    }
    return new ServiceError(
      Code.ALREADY_EXISTS,
      `${description.action}: ${foreign} already has that name`,
      { cause: error.cause },
    );
  }

  async #readManaged(
    description: KubernetesCall,
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<T> {
    // A read, whatever the caller's action: observed and retried as a get.
    const object = this.#object(
      await this.#caller.call(
        { ...description, verb: "get" },
        this.#calls.plural,
        (config) => this.#calls.read(namespace, name, config),
        options,
      ),
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

/** Whether a list's continue token was refused as expired (410 Gone). */
function continueExpired(error: unknown): boolean {
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause instanceof ApiException && cause.code === 410;
}
