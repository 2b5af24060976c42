// @ts-check
/// <reference lib="dom" />
/**
 * Corral's API as the console calls it: the wire types, the one table of
 * its paths, and the call every request makes. Every call sends the token
 * this tab holds and answers the JSON body, or throws an ApiError; a 401
 * asks for a token again. The calls themselves are grouped by what they
 * reach: api_objects.js (templates, clusters, jobs, services, quotas),
 * api_submissions.js (jobs submitted to a running cluster, their logs),
 * api_watches.js (the watches' streams) and api_session.js (who the tab
 * is, its dashboard sessions).
 */
import { token } from "./session.js";
import {
  reportReachable,
  reportUnreachable,
  UNREACHABLE,
  unreachable,
} from "./connection.js";

/**
 * A message as its JSON comes over the wire (proto3's JSON mapping): the
 * fields of the domain type, with timestamps as RFC 3339 strings or null.
 * @template T
 * @typedef {T extends Date ? string | null
 *   : T extends readonly (infer U)[] ? Json<U>[]
 *   : T extends object ? { [K in keyof T]: Json<T[K]> }
 *   : T} Json
 */

/**
 * What a request body sets: any of a message's fields, at any depth.
 * @template T
 * @typedef {T extends readonly (infer U)[] ? Draft<U>[]
 *   : T extends object ? { [K in keyof T]?: Draft<T[K]> }
 *   : T} Draft
 */

/** @typedef {Json<import("../../domain/types.ts").Cluster>} Cluster */
/** @typedef {Json<import("../../domain/types.ts").ClusterEvent>} ClusterEvent */
/** @typedef {Json<import("../../domain/types.ts").WorkerGroupSpec>} WorkerGroupSpec */
/** @typedef {Json<import("../../domain/types.ts").ComputeTemplate>} ComputeTemplate */
/** @typedef {Json<import("../../domain/types.ts").WatchClustersResponse>} WatchAnswer */
/** @typedef {Json<import("../../domain/types.ts").WatchRayJobsResponse>} JobWatchAnswer */
/**
 * A job; `events` is there once the API reports a job's events.
 * @typedef {Json<import("../../domain/types.ts").RayJob> & { events?: ClusterEvent[] }} Job
 */
/**
 * A service; its Serve config goes over the wire as `serveConfigV2` (the
 * proto's json_name), not as the domain type's field is named.
 * @typedef {Omit<Json<import("../../domain/types.ts").RayService>, "serveConfig_V2"> & { serveConfigV2: string }} Service
 */
/**
 * A job submitted to a running cluster, as its dashboard reports it;
 * `startTime` and `endTime` are milliseconds since the epoch (0: not yet),
 * as a number or, being 64-bit, as text.
 * @typedef {Omit<Json<import("../../domain/types.ts").JobSubmissionInfo>, "startTime" | "endTime"> & { startTime?: number | string, endTime?: number | string }} Submission
 */
/** @typedef {Json<import("../../domain/types.ts").WatchJobLogResponse>} LogAnswer */
/** @typedef {Json<import("../../domain/types.ts").GetQuotaUsageResponse>} QuotaUsage */
/** @typedef {{ field: string, description: string }} FieldViolation */

/**
 * The body of an error answer.
 * @typedef {object} ErrorBody
 * @property {number} [code] the gRPC code
 * @property {string} [message]
 * @property {{ fieldViolations?: FieldViolation[] }[]} [details]
 */

/**
 * Where a kind's objects are: a namespace's, or every namespace's when
 * `ns` is undefined.
 * @param {string} api the API's group and version, such as "v1alpha2"
 *   ("v1alpha2/watch" for its watches)
 * @param {string | undefined} ns
 * @param {string} plural the kind's name in paths, such as "jobs"
 */
function collectionPath(api, ns, plural) {
  return ns === undefined
    ? `/apis/${api}/${plural}`
    : `/apis/${api}/namespaces/${encodeURIComponent(ns)}/${plural}`;
}

/**
 * One object of a namespace's kind, or what is under it: `names`, each a
 * segment of the path after the kind's.
 * @param {string} api as collectionPath() takes it
 * @param {string} ns
 * @param {string} plural
 * @param {string[]} names
 */
function objectPath(api, ns, plural, ...names) {
  return [collectionPath(api, ns, plural), ...names.map(encodeURIComponent)]
    .join("/");
}

/** The paths of the API's routes the console uses. */
export const paths = {
  whoami: "/apis/v1alpha2/whoami",
  /** Corral's version and the Ray versions it knows. */
  version: "/version",
  authConfig: "/apis/v1alpha2/auth-config",
  watch: collectionPath("v1alpha2/watch", undefined, "clusters"),
  /** @param {string} [ns] every namespace's when undefined */
  clusters: (ns) => collectionPath("v1alpha2", ns, "clusters"),
  /** @param {string} ns @param {string} name */
  cluster: (ns, name) => objectPath("v1alpha2", ns, "clusters", name),
  /** @param {string} ns */
  quota: (ns) => collectionPath("v1alpha2", ns, "quota"),
  /** @param {string} [ns] every namespace's when undefined */
  jobs: (ns) => collectionPath("v1alpha2", ns, "jobs"),
  /** @param {string} [ns] every namespace's when undefined */
  jobsWatch: (ns) => collectionPath("v1alpha2/watch", ns, "jobs"),
  /** @param {string} ns @param {string} name */
  job: (ns, name) => objectPath("v1alpha2", ns, "jobs", name),
  /** WatchRayJobLog: a job's log, followed. @param {string} ns @param {string} name */
  jobLog: (ns, name) => objectPath("v1alpha2/watch", ns, "jobs", name, "log"),
  /** @param {string} [ns] every namespace's when undefined */
  services: (ns) => collectionPath("v1alpha2", ns, "services"),
  /** @param {string} ns @param {string} name */
  service: (ns, name) => objectPath("v1alpha2", ns, "services", name),
  /** @param {string} ns @param {string} cluster */
  submissions: (ns, cluster) =>
    objectPath("v1alpha2", ns, "jobsubmissions", cluster),
  /** @param {string} ns @param {string} cluster @param {string} id */
  submission: (ns, cluster, id) =>
    objectPath("v1alpha2", ns, "jobsubmissions", cluster, id),
  /** @param {string} ns @param {string} cluster @param {string} id */
  submissionLog: (ns, cluster, id) =>
    objectPath("v1alpha2/watch", ns, "jobsubmissions", cluster, "log", id),
  /** @param {string} [ns] every namespace's when undefined */
  templates: (ns) => collectionPath("v1", ns, "compute_templates"),
  /** @param {string} ns @param {string} name */
  template: (ns, name) => objectPath("v1", ns, "compute_templates", name),
};

/** An answer that is not a success: its message, code and violations. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {ErrorBody} body
   */
  constructor(status, body) {
    super(body?.message ?? `HTTP ${status}`);
    /** The HTTP status. */
    this.status = status;
    /** The gRPC code, when the body has one. */
    this.code = body?.code;
    /** The request fields the API found wrong, with what is wrong. */
    this.violations = (body?.details ?? []).flatMap((d) =>
      d.fieldViolations ?? []
    );
  }
}

/**
 * An error's message, whatever was thrown.
 * @param {unknown} error
 */
export function errorMessage(error) {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The headers of a call: the token, and the body's type when it has one.
 * @param {boolean} json
 */
export function headers(json) {
  /** @type {Record<string, string>} */
  const result = {};
  const held = token();
  if (held) result.authorization = `Bearer ${held}`;
  if (json) result["content-type"] = "application/json";
  return result;
}

/**
 * The error of a call Corral did not answer: code 14 (Unavailable), with a
 * message a person can act on rather than the browser's "Failed to fetch".
 */
function unreachableError() {
  return new ApiError(0, { code: 14, message: UNREACHABLE });
}

/**
 * `fetch`, noting whether Corral answered (connection.js); a request that
 * got no answer throws unreachableError().
 * @param {string} path
 * @param {RequestInit} init
 */
export async function send(path, init) {
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    if (init.signal?.aborted) throw error;
    reportUnreachable();
    throw unreachableError();
  }
  reportReachable();
  return response;
}

/**
 * An answer's body as JSON; `{}` when empty or not JSON (a proxy's error
 * page), so that the status speaks instead of a parse error.
 * @param {string} text
 */
export function parsed(text) {
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    return {};
  }
}

/**
 * One call; its JSON answer, or an ApiError. A 401 asks for a token. A
 * write while Corral is unreachable is not tried: its answer would not be
 * seen, and what it was decided on may be stale.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<any>} the answer's JSON, `{}` when it has no body
 */
export async function call(method, path, body) {
  if (method !== "GET" && unreachable()) throw unreachableError();
  const response = await send(path, {
    method,
    headers: headers(body !== undefined),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json = parsed(text);
  if (response.status === 401) {
    whenUnauthorized();
    throw new ApiError(401, json);
  }
  if (!response.ok) throw new ApiError(response.status, json);
  return json;
}

/** What a 401 answer sets off: the sign-in dialog (sign_in.js says so). */
let unauthorizedHandler = () => {};

/**
 * Has `handler` run whenever Corral answers 401: the token is not (or no
 * longer) accepted. Set by the sign-in module, which this one does not
 * import (it imports this one).
 * @param {() => void} handler
 */
export function onUnauthorized(handler) {
  unauthorizedHandler = handler;
}

/** Tells the sign-in module that Corral answered 401 (onUnauthorized). */
export function whenUnauthorized() {
  unauthorizedHandler();
}
