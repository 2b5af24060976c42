/**
 * KubeRay's Python API server client (clients/python-apiserver-client in
 * ray-project/kuberay) as Corral meets it on the wire, written here from
 * reading its code: every call sends `Content-Type: application/json` and
 * `accept: application/json`, with or without a body, to its base URL plus
 * an API base (`/apis/v1/` since November 2023), takes any 2xx as success
 * and reads `message` of any other answer. What it reads back of a cluster,
 * it reads as its decoders do: a group without `rayStartParams` is the
 * AttributeError its constructors raise (they update the start parameters
 * they are given with their defaults), `environment` is read as a number.
 */
import assert from "node:assert/strict";

// deno-lint-ignore no-explicit-any
export type Json = any;

/** The client's DEFAULT_HEAD_START_PARAMS, merged into every head's. */
export const HEAD_START_PARAMS = {
  "dashboard-host": "0.0.0.0",
  "metrics-export-port": "8080",
  "num-cpus": "0",
};

/** The client's DEFAULT_WORKER_START_PARAMS, merged into every worker's. */
export const WORKER_START_PARAMS = { "node-ip-address": "$MY_POD_IP" };

/** What every call answers: the status, the error's message, the result. */
export interface Answer<T> {
  status: number;
  error?: string;
  result?: T;
}

/** The cluster as the client's decoder holds it. */
export interface DecodedCluster {
  name: string;
  namespace: string;
  user: string;
  version: string;
  environment?: number;
  head: {
    computeTemplate: string;
    rayStartParams: Record<string, string>;
    volumes?: Json[];
  };
  workers: {
    groupName: string;
    replicas: number;
    rayStartParams: Record<string, string>;
    volumes?: Json[];
  }[];
  clusterState?: string;
  serviceEndpoint?: Record<string, string>;
}

export class KubeRayApiServerClient {
  readonly #send: (request: Request) => Promise<Response>;
  readonly #base: string;

  /**
   * `send` answers a request (Corral's gateway, or fetch); `apiBase` is
   * the path every call's starts with, "/apis/v1/" or "/apis/v1alpha2/".
   */
  constructor(send: (request: Request) => Promise<Response>, apiBase: string) {
    this.#send = send;
    this.#base = `http://corral.test${apiBase}`;
  }

  /** One call as the client makes it; the body of a 2xx answer. */
  async call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<Answer<Json>> {
    const response = await this.#send(
      new Request(this.#base + path, {
        method,
        headers: {
          "Content-Type": "application/json",
          accept: "application/json",
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    const json = await response.json();
    if (Math.floor(response.status / 100) !== 2) {
      assert.equal(typeof json.message, "string", "an error has a message");
      return { status: response.status, error: json.message };
    }
    return { status: response.status, result: json };
  }

  createComputeTemplate(template: Json): Promise<Answer<Json>> {
    return this.call(
      "POST",
      `namespaces/${template.namespace}/compute_templates`,
      template,
    );
  }

  deleteComputeTemplate(ns: string, name: string): Promise<Answer<Json>> {
    return this.call("DELETE", `namespaces/${ns}/compute_templates/${name}`);
  }

  createCluster(cluster: Json): Promise<Answer<Json>> {
    return this.call(
      "POST",
      `namespaces/${cluster.namespace}/clusters`,
      cluster,
    );
  }

  async getCluster(ns: string, name: string): Promise<Answer<DecodedCluster>> {
    const answer = await this.call("GET", `namespaces/${ns}/clusters/${name}`);
    return decoded(answer, decodeCluster);
  }

  async listClusters(): Promise<Answer<DecodedCluster[]>> {
    return decoded(await this.call("GET", "clusters"), decodeClusters);
  }

  async listClustersNamespace(ns: string): Promise<Answer<DecodedCluster[]>> {
    const answer = await this.call("GET", `namespaces/${ns}/clusters`);
    return decoded(answer, decodeClusters);
  }

  /** The cluster's state, "creating" while it has none. */
  async getClusterStatus(ns: string, name: string): Promise<Answer<string>> {
    const { status, error, result } = await this.getCluster(ns, name);
    if (result === undefined) return { status, error };
    return { status, result: result.clusterState ?? "creating" };
  }

  /**
   * Reads the cluster's status until it is "ready", as the client's
   * wait_cluster_ready does (it sleeps its wait interval between reads).
   */
  async waitClusterReady(
    ns: string,
    name: string,
    next: () => Promise<void>,
  ): Promise<Answer<void>> {
    for (;;) {
      const { status, error, result } = await this.getClusterStatus(ns, name);
      if (Math.floor(status / 100) !== 2) return { status, error };
      if (result === "ready") return { status };
      await next();
    }
  }

  /** The dashboard's address, as get_cluster_endpoints builds it. */
  async getClusterEndpoints(ns: string, name: string): Promise<Answer<string>> {
    const { status, error, result } = await this.getCluster(ns, name);
    if (result === undefined) return { status, error };
    const port = result.serviceEndpoint?.dashboard;
    return {
      status,
      result: `${name}-head-svc.${ns}.svc.cluster.local:${port}`,
    };
  }

  deleteCluster(ns: string, name: string): Promise<Answer<Json>> {
    return this.call("DELETE", `namespaces/${ns}/clusters/${name}`);
  }
}

function decoded<T>(
  answer: Answer<Json>,
  decode: (json: Json) => T,
): Answer<T> {
  if (answer.result === undefined) return answer;
  return { status: answer.status, result: decode(answer.result) };
}

function decodeClusters(json: Json): DecodedCluster[] {
  assert.ok(Array.isArray(json.clusters), "KeyError: 'clusters'");
  return json.clusters.map(decodeCluster);
}

/** cluster_decoder: what it reads, and where it fails. */
export function decodeCluster(json: Json): DecodedCluster {
  const spec = json.clusterSpec;
  assert.ok(spec, "AttributeError: 'NoneType' object has no attribute 'get'");
  return {
    name: json.name ?? "",
    namespace: json.namespace ?? "",
    user: json.user ?? "",
    version: json.version ?? "",
    ...("environment" in json
      ? { environment: integer(json.environment) }
      : {}),
    head: {
      computeTemplate: spec.headGroupSpec.computeTemplate,
      rayStartParams: startParams(spec.headGroupSpec),
      ...volumesOf(spec.headGroupSpec),
    },
    workers: (spec.workerGroupSpec ?? []).map((group: Json) => ({
      groupName: group.groupName,
      replicas: group.replicas ?? 0,
      rayStartParams: startParams(group),
      ...volumesOf(group),
    })),
    clusterState: json.clusterState,
    serviceEndpoint: json.serviceEndpoint,
  };
}

/**
 * A group's volumes as volume_decoder reads them, when it has any: by
 * `volumeType`, which it indexes (a KeyError without it), each back in
 * its to_dict() form.
 */
function volumesOf(group: Json): { volumes?: Json[] } {
  if (!Array.isArray(group.volumes) || group.volumes.length === 0) return {};
  return {
    volumes: group.volumes.map((volume: Json) => {
      assert.ok("volumeType" in volume, "KeyError: 'volumeType'");
      const { name, mountPath, source, volumeType, items } = volume;
      return {
        name,
        mountPath,
        source,
        volumeType,
        ...(items ? { items } : {}),
      };
    }),
  };
}

/** A group's start parameters, which its constructor updates. */
export function startParams(group: Json): Record<string, string> {
  const params = group.rayStartParams;
  assert.ok(
    params !== null && typeof params === "object",
    `AttributeError: 'NoneType' object has no attribute 'update' (the group's keys: ${
      Object.keys(group).join(", ")
    })`,
  );
  return params;
}

/** Python's int() of the value: a number or a string of digits. */
function integer(value: unknown): number {
  const text = String(value);
  assert.match(
    text,
    /^-?\d+$/,
    `ValueError: int() of ${JSON.stringify(value)}`,
  );
  return Number(text);
}
