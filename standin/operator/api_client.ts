/**
 * The Kubernetes REST calls the simulated operator makes, with plain fetch
 * (nothing stand-in specific): list and watch one resource (RayClusters, or
 * another of the group by forResource()), read, create and delete an
 * object, write its status, create an Event. A cluster's status patch first
 * tests metadata.uid and a delete carries the uid as a precondition, so a
 * namesake created in between is never touched.
 */

import { lines } from "../../domain/lines.ts";

/** What the simulated operator reads of a RayCluster. */
export interface ObservedCluster {
  apiVersion?: string;
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    resourceVersion?: string;
    generation?: number;
  };
  spec?: {
    headGroupSpec?: {
      serviceType?: string;
      template?: {
        spec?: {
          containers?: {
            ports?: { name?: string; containerPort?: number }[];
          }[];
        };
      };
    };
    workerGroupSpecs?: {
      groupName?: string;
      replicas?: number;
      minReplicas?: number;
      maxReplicas?: number;
    }[];
    /** A queued cluster not yet admitted (Kueue): no pods. */
    suspend?: boolean;
  };
  status?: { state?: string; endpoints?: Record<string, string> };
}

/** The metadata every watched object has. */
export interface WatchedObject {
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    resourceVersion?: string;
  };
}

/** A watch event as the server streams it; ERROR carries a Status. */
export interface WatchEvent<T extends WatchedObject = ObservedCluster> {
  type: string;
  object: T & { code?: number };
}

/** A watch event of RayClusters. */
export type ClusterWatchEvent = WatchEvent<ObservedCluster>;

/**
 * An object of any kind as the operator reads and writes it: metadata,
 * and the rest as JSON the caller reads with its own types.
 */
export interface KubeResource {
  apiVersion?: string;
  kind?: string;
  metadata: ObservedCluster["metadata"] & {
    labels?: Record<string, string>;
    finalizers?: string[];
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
    ownerReferences?: OwnerReference[];
    [key: string]: unknown;
  };
  spec?: unknown;
  status?: unknown;
}

/** metadata.ownerReferences[] as the operator sets them. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** One JSON Patch operation. */
export interface PatchOperation {
  op: string;
  path: string;
  value?: unknown;
}

/** A failure answered by the API server, with its HTTP status. */
export class HttpStatusError extends Error {
  constructor(readonly status: number, what: string) {
    super(`${what} answered HTTP ${status}`);
    this.name = "HttpStatusError";
  }
}

/** Where the RayClusters are served. */
export interface ClusterCoordinates {
  group: string;
  version: string;
  plural: string;
}

/** The operator's client of one Kubernetes API server. */
export class ApiClient {
  /** The server's base URL, without a trailing slash. */
  readonly server: string;
  /** The path of the RayClusters of every namespace. */
  readonly collection: string;
  /** The RayClusters' apiVersion, e.g. ray.io/v1. */
  readonly apiVersion: string;
  /** The plural listed and watched, e.g. rayclusters. */
  readonly plural: string;
  #coordinates: ClusterCoordinates;

  constructor(server: string, coordinates: ClusterCoordinates) {
    this.server = server.replace(/\/+$/, "");
    this.#coordinates = coordinates;
    const { group, version, plural } = coordinates;
    this.collection = `/apis/${group}/${version}/${plural}`;
    this.apiVersion = `${group}/${version}`;
    this.plural = plural;
  }

  /** A client of the same server for another resource of the group. */
  forResource(plural: string): ApiClient {
    return new ApiClient(this.server, { ...this.#coordinates, plural });
  }

  /** Reads one object of `plural`; `object` is undefined unless 200. */
  async getObject<T extends KubeResource>(
    plural: string,
    namespace: string,
    name: string,
  ): Promise<{ status: number; object?: T }> {
    const answer = await this.#request(
      "GET",
      this.#itemPath(plural, namespace, name),
    );
    return answer.status === 200
      ? { status: 200, object: answer.body as T }
      : { status: answer.status };
  }

  /** Creates an object of `plural`; returns the HTTP status and body. */
  async createObject(
    plural: string,
    namespace: string,
    object: unknown,
  ): Promise<{ status: number; body: unknown }> {
    return await this.#request(
      "POST",
      `${this.#namespacePath(namespace)}/${plural}`,
      object,
    );
  }

  /**
   * Deletes an object of `plural` if its uid is still `uid` (a delete
   * precondition); returns the HTTP status (409 when a namesake replaced
   * it, 404 when gone).
   */
  async deleteObject(
    plural: string,
    metadata: { namespace: string; name: string; uid: string },
  ): Promise<number> {
    const answer = await this.#request(
      "DELETE",
      this.#itemPath(plural, metadata.namespace, metadata.name),
      {
        apiVersion: "v1",
        kind: "DeleteOptions",
        preconditions: { uid: metadata.uid },
        propagationPolicy: "Background",
      },
    );
    return answer.status;
  }

  /**
   * Replaces `object` (a PUT at its resourceVersion: 409 when it changed
   * since it was read); returns the HTTP status and body.
   */
  async replaceObject(
    plural: string,
    object: KubeResource,
  ): Promise<{ status: number; body: unknown }> {
    const { namespace, name } = object.metadata;
    return await this.#request(
      "PUT",
      this.#itemPath(plural, namespace, name),
      object,
    );
  }

  /**
   * Replaces the status of `object` (a PUT of its status subresource, at
   * its resourceVersion: 409 when it changed since it was read); returns
   * the HTTP status and body.
   */
  async replaceStatus(
    plural: string,
    object: KubeResource,
  ): Promise<{ status: number; body: unknown }> {
    const { namespace, name } = object.metadata;
    return await this.#request(
      "PUT",
      `${this.#itemPath(plural, namespace, name)}/status`,
      object,
    );
  }

  /** Reads one cluster; `cluster` is undefined unless the answer is 200. */
  async getCluster(
    namespace: string,
    name: string,
  ): Promise<{ status: number; cluster?: ObservedCluster }> {
    const { status, object } = await this.getObject<
      ObservedCluster & KubeResource
    >(this.#coordinates.plural, namespace, name);
    return { status, ...(object ? { cluster: object } : {}) };
  }

  /**
   * Applies `operations` to the cluster's status subresource, after a test
   * that its uid is still `metadata.uid`; returns the HTTP status.
   */
  async patchStatus(
    metadata: ObservedCluster["metadata"],
    operations: PatchOperation[],
  ): Promise<number> {
    const answer = await this.#request(
      "PATCH",
      `${
        this.#itemPath(
          this.#coordinates.plural,
          metadata.namespace,
          metadata.name,
        )
      }/status`,
      [
        { op: "test", path: "/metadata/uid", value: metadata.uid },
        ...operations,
      ],
      "application/json-patch+json",
    );
    return answer.status;
  }

  /**
   * Creates a core/v1 object of `plural` (services) in `namespace`;
   * returns the HTTP status and body.
   */
  async createCoreObject(
    plural: string,
    namespace: string,
    object: unknown,
  ): Promise<{ status: number; body: unknown }> {
    return await this.#request(
      "POST",
      `/api/v1/namespaces/${encodeURIComponent(namespace)}/${plural}`,
      object,
    );
  }

  /** Creates a core/v1 Event in `namespace`; returns the HTTP status. */
  async createEvent(namespace: string, event: unknown): Promise<number> {
    const answer = await this.#request(
      "POST",
      `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`,
      event,
    );
    return answer.status;
  }

  /**
   * Lists the objects of the client's resource (the clusters unless made by
   * forResource) in every namespace; throws unless 200.
   */
  async listObjects<T extends WatchedObject = ObservedCluster>(): Promise<
    { items: T[]; resourceVersion: string }
  > {
    const listed = await this.#request("GET", this.collection);
    if (listed.status !== 200) {
      throw new HttpStatusError(listed.status, `Listing ${this.plural}`);
    }
    const list = listed.body as {
      items?: T[];
      metadata?: { resourceVersion?: string };
    };
    return {
      items: list.items ?? [],
      resourceVersion: list.metadata?.resourceVersion ?? "",
    };
  }

  /**
   * The events of a watch of every object of the client's resource from
   * `resourceVersion`, with bookmarks, until the server ends it or `signal`
   * aborts; throws unless the answer is 200.
   */
  async *watchObjects<T extends WatchedObject = ObservedCluster>(
    resourceVersion: string,
    signal: AbortSignal,
  ): AsyncGenerator<WatchEvent<T>> {
    const query = new URLSearchParams({
      watch: "true",
      resourceVersion,
      allowWatchBookmarks: "true",
    });
    const response = await fetch(`${this.server}${this.collection}?${query}`, {
      signal,
    });
    if (response.status !== 200 || !response.body) {
      await response.body?.cancel();
      throw new HttpStatusError(response.status, `Watching ${this.plural}`);
    }
    for await (const line of lines(response.body)) {
      // Checked at each line, not left to the fetch: past a megabyte or so
      // of a watch read without a pause, Deno's fetch no longer ended the
      // body when the signal aborted, and the operator's stop() waited on
      // the watch for as long as the stand-in sent (bench/soak.ts's
      // stand-in never exited on SIGTERM). Leaving the loop cancels the
      // body.
      if (signal.aborted) return;
      yield JSON.parse(line) as WatchEvent<T>;
    }
  }

  /**
   * Any request by path (`/apis/batch/v1/...`, `/api/v1/...`), for the
   * kinds outside the clusters' group; the HTTP status and body.
   */
  async send(
    method: "POST" | "PATCH" | "DELETE",
    path: string,
    body: unknown,
    contentType = "application/json",
  ): Promise<{ status: number; body: unknown }> {
    return await this.#request(method, path, body, contentType);
  }

  #namespacePath(namespace: string): string {
    const { group, version } = this.#coordinates;
    return `/apis/${group}/${version}/namespaces/${
      encodeURIComponent(namespace)
    }`;
  }

  #itemPath(plural: string, namespace: string, name: string): string {
    return `${this.#namespacePath(namespace)}/${plural}/${
      encodeURIComponent(name)
    }`;
  }

  async #request(
    method: string,
    path: string,
    body?: unknown,
    contentType = "application/json",
  ): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${this.server}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": contentType },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: response.status, body: parsed };
  }
}
