/**
 * The ports through which the API reaches a cluster's own services: the
 * way to a service inside a cluster (ClusterAccess, --cluster-access) and
 * a Ray dashboard's job API (DashboardJobApi). The orchestrator implements
 * them (orchestrator/cluster_access.ts, dashboard_jobs.ts); the API names
 * only these, as it names the Orchestrator port (ports.ts).
 */
import type { Duplex } from "node:stream";
import type { RayJobDetails, RayJobSubmitRequest } from "./job_submissions.ts";

export const CLUSTER_ACCESS_MODES = ["direct", "apiserver-proxy"] as const;
export type ClusterAccessMode = typeof CLUSTER_ACCESS_MODES[number];

/** A port of a cluster's head: its service's, and its pod's. */
export interface HeadPort {
  namespace: string;
  /** The RayCluster's name, which its head pod is labelled with. */
  cluster: string;
  /** The head service's name. */
  service: string;
  port: number;
}

/** A port of a Service. */
export interface ServicePort {
  namespace: string;
  name: string;
  port: number;
}

export interface ClusterAccess {
  readonly mode: ClusterAccessMode;
  /** Where `service`'s "/" is: a URL without its final "/". */
  baseUrl(service: ServicePort): string;
  /**
   * Sends `init` to `url` (one under a baseUrl), with the credentials the
   * way there needs; redirects are never followed, they are the caller's.
   */
  fetch(url: string, init: RequestInit): Promise<Response>;
  /**
   * Opens a connection to `url`'s server (one under a baseUrl) for an HTTP
   * upgrade the caller writes itself: TCP, or TLS for https with the CA and
   * client certificate the way needs; and the headers the request must
   * carry (Corral's bearer token for the API server). Rejects when the
   * server cannot be reached or `signal` aborts first.
   */
  dial(url: string, signal: AbortSignal): Promise<Dialed>;
  /**
   * A TCP connection to a port of a cluster's head, for bytes of any
   * protocol (the Ray client's): straight to the head service (direct),
   * or through the API server's port forwarding to the running head pod
   * (apiserver-proxy; its service proxy carries HTTP only). Rejects with a
   * ServiceError (UNAVAILABLE) when there is no head pod to reach, or an
   * Error when the port cannot be reached or `signal` aborts first.
   */
  connect(target: HeadPort, signal: AbortSignal): Promise<Duplex>;
  /** Releases the HTTP client. */
  close(): void;
}

/**
 * What is known of whether the Kubernetes API server answers (readiness
 * knows: api/health.ts), for a way to a service that goes through it
 * (apiserver-proxy), where a call to one that does not would only wait.
 */
export interface ApiServerAnswers {
  /** Why it is taken not to answer now; undefined when nothing says so. */
  unanswered(): string | undefined;
  /** A call through it failed: have it asked again, in the background. */
  recheck(): void;
}

/** An open connection for an upgrade, and what its request must carry. */
export interface Dialed {
  socket: Duplex;
  headers: Record<string, string>;
}

/** What one call is about: where the dashboard is, and for error messages. */
export interface DashboardCall {
  dashboard: ServicePort;
  /** `Cannot proxy cluster "team-a/blue"`: every error message's start. */
  action: string;
  /** The caller went away. */
  signal?: AbortSignal;
}

/**
 * A Ray dashboard's job API (Ray's "Jobs REST API": /api/jobs/ and
 * /api/packages/). Every call is bounded in time and in the size of the
 * answer read, and fails with a ServiceError whose message starts with the
 * call's action.
 */
export interface DashboardJobApi {
  /** POST /api/jobs/: the submission id of the job made. */
  submit(call: DashboardCall, job: RayJobSubmitRequest): Promise<string>;
  /** GET /api/jobs/: every job the dashboard knows. */
  list(call: DashboardCall): Promise<RayJobDetails[]>;
  /** GET /api/jobs/{id}. */
  get(call: DashboardCall, id: string): Promise<RayJobDetails>;
  /** GET /api/jobs/{id}/logs: the log so far. */
  logs(call: DashboardCall, id: string): Promise<string>;
  /** POST /api/jobs/{id}/stop: whether it was running. */
  stop(call: DashboardCall, id: string): Promise<boolean>;
  /** DELETE /api/jobs/{id}: whether it was deleted. */
  delete(call: DashboardCall, id: string): Promise<boolean>;
  /** PUT /api/packages/gcs/{name}: a zip, as Ray's job client uploads it. */
  uploadPackage(
    call: DashboardCall,
    name: string,
    zip: Uint8Array,
  ): Promise<void>;
}
