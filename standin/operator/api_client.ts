/**
 * The Kubernetes REST calls the simulated operator makes, with plain fetch
 * (nothing stand-in specific): list and watch RayClusters, read one, patch
 * its status, create an Event. A status write first tests metadata.uid, so a
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
  };
  status?: { state?: string; endpoints?: Record<string, string> };
}

/** A watch event as the server streams it; ERROR carries a Status. */
export interface ClusterWatchEvent {
  type: string;
  object: ObservedCluster & { code?: number };
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
  #coordinates: ClusterCoordinates;

  constructor(server: string, coordinates: ClusterCoordinates) {
    this.server = server.replace(/\/+$/, "");
    this.#coordinates = coordinates;
    const { group, version, plural } = coordinates;
    this.collection = `/apis/${group}/${version}/${plural}`;
    this.apiVersion = `${group}/${version}`;
  }

  /** Reads one cluster; `cluster` is undefined unless the answer is 200. */
  async getCluster(
    namespace: string,
    name: string,
  ): Promise<{ status: number; cluster?: ObservedCluster }> {
    const answer = await this.#request(
      "GET",
      this.#clusterPath(namespace, name),
    );
    return answer.status === 200
      ? { status: 200, cluster: answer.body as ObservedCluster }
      : { status: answer.status };
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
      `${this.#clusterPath(metadata.namespace, metadata.name)}/status`,
      [
        { op: "test", path: "/metadata/uid", value: metadata.uid },
        ...operations,
      ],
      "application/json-patch+json",
    );
    return answer.status;
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

  /** Lists the clusters of every namespace; throws unless 200. */
  async listClusters(): Promise<
    { items: ObservedCluster[]; resourceVersion: string }
  > {
    const listed = await this.#request("GET", this.collection);
    if (listed.status !== 200) {
      throw new HttpStatusError(listed.status, "Listing clusters");
    }
    const list = listed.body as {
      items?: ObservedCluster[];
      metadata?: { resourceVersion?: string };
    };
    return {
      items: list.items ?? [],
      resourceVersion: list.metadata?.resourceVersion ?? "",
    };
  }

  /**
   * The events of a watch of every cluster from `resourceVersion`, with
   * bookmarks, until the server ends it or `signal` aborts; throws unless
   * the answer is 200.
   */
  async *watchClusters(
    resourceVersion: string,
    signal: AbortSignal,
  ): AsyncGenerator<ClusterWatchEvent> {
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
      throw new HttpStatusError(response.status, "Watching clusters");
    }
    for await (const line of lines(response.body)) {
      yield JSON.parse(line) as ClusterWatchEvent;
    }
  }

  #clusterPath(namespace: string, name: string): string {
    const { group, version, plural } = this.#coordinates;
    return `/apis/${group}/${version}/namespaces/${
      encodeURIComponent(namespace)
    }/${plural}/${encodeURIComponent(name)}`;
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
