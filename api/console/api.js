// @ts-check
/// <reference lib="dom" />
/**
 * Corral's API as the console calls it, and the one module that knows its
 * paths. Every call sends the token this tab holds and answers the JSON
 * body, or throws an ApiError; a 401 asks for a token again.
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

/** The paths of the API's routes the console uses. */
const paths = {
  whoami: "/apis/v1alpha2/whoami",
  watch: "/apis/v1alpha2/watch/clusters",
  /** @param {string} ns */
  clusters: (ns) =>
    `/apis/v1alpha2/namespaces/${encodeURIComponent(ns)}/clusters`,
  /** @param {string} ns @param {string} name */
  cluster: (ns, name) =>
    `/apis/v1alpha2/namespaces/${encodeURIComponent(ns)}/clusters/${
      encodeURIComponent(name)
    }`,
  /** @param {string} ns */
  quota: (ns) => `/apis/v1alpha2/namespaces/${encodeURIComponent(ns)}/quota`,
  /** @param {string} [ns] every namespace's when undefined */
  jobs: (ns) =>
    ns === undefined
      ? "/apis/v1alpha2/jobs"
      : `/apis/v1alpha2/namespaces/${encodeURIComponent(ns)}/jobs`,
  /** @param {string} [ns] every namespace's when undefined */
  jobsWatch: (ns) =>
    ns === undefined
      ? "/apis/v1alpha2/watch/jobs"
      : `/apis/v1alpha2/watch/namespaces/${encodeURIComponent(ns)}/jobs`,
  /** @param {string} ns @param {string} name */
  job: (ns, name) =>
    `/apis/v1alpha2/namespaces/${encodeURIComponent(ns)}/jobs/${
      encodeURIComponent(name)
    }`,
  /** @param {string} [ns] every namespace's when undefined */
  services: (ns) =>
    ns === undefined
      ? "/apis/v1alpha2/services"
      : `/apis/v1alpha2/namespaces/${encodeURIComponent(ns)}/services`,
  /** @param {string} ns @param {string} name */
  service: (ns, name) =>
    `/apis/v1alpha2/namespaces/${encodeURIComponent(ns)}/services/${
      encodeURIComponent(name)
    }`,
  /** @param {string} ns @param {string} cluster */
  submissions: (ns, cluster) =>
    `/apis/v1alpha2/namespaces/${encodeURIComponent(ns)}/jobsubmissions/${
      encodeURIComponent(cluster)
    }`,
  /** @param {string} ns @param {string} cluster @param {string} id */
  submission: (ns, cluster, id) =>
    `${paths.submissions(ns, cluster)}/${encodeURIComponent(id)}`,
  /** @param {string} ns @param {string} cluster @param {string} id */
  submissionLog: (ns, cluster, id) =>
    `/apis/v1alpha2/watch/namespaces/${encodeURIComponent(ns)}/jobsubmissions/${
      encodeURIComponent(cluster)
    }/log/${encodeURIComponent(id)}`,
  /** @param {string} [ns] every namespace's when undefined */
  templates: (ns) =>
    ns === undefined
      ? "/apis/v1/compute_templates"
      : `/apis/v1/namespaces/${encodeURIComponent(ns)}/compute_templates`,
  /** @param {string} ns @param {string} name */
  template: (ns, name) =>
    `/apis/v1/namespaces/${encodeURIComponent(ns)}/compute_templates/${
      encodeURIComponent(name)
    }`,
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
function headers(json) {
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
function parsed(text) {
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
async function call(method, path, body) {
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
let whenUnauthorized = () => {};

/**
 * Has `handler` run whenever Corral answers 401: the token is not (or no
 * longer) accepted. Set by the sign-in module, which this one does not
 * import (it imports this one).
 * @param {() => void} handler
 */
export function onUnauthorized(handler) {
  whenUnauthorized = handler;
}

/**
 * The compute templates of a namespace, or of every namespace.
 * @param {string} [namespace]
 * @returns {Promise<ComputeTemplate[]>}
 */
export async function listTemplates(namespace) {
  const answer = await call("GET", paths.templates(namespace));
  return answer.computeTemplates ?? [];
}

/**
 * @param {string} namespace
 * @param {Draft<ComputeTemplate>} template
 */
export async function createTemplate(namespace, template) {
  await call("POST", paths.templates(namespace), template);
}

/**
 * @param {string} namespace
 * @param {string} name
 */
export async function deleteTemplate(namespace, name) {
  await call("DELETE", paths.template(namespace, name));
}

/**
 * @param {string} namespace
 * @param {Draft<Cluster>} cluster
 */
export async function createCluster(namespace, cluster) {
  await call("POST", paths.clusters(namespace), cluster);
}

/**
 * Sets a cluster's worker groups (UpdateCluster), if the cluster is still
 * as `cluster.etag` says; else an ApiError with code 10 (Aborted).
 * @param {Cluster} cluster
 * @param {WorkerGroupSpec[]} workerGroupSpec
 */
export async function updateWorkerGroups(cluster, workerGroupSpec) {
  await call(
    "PATCH",
    `${
      paths.cluster(cluster.namespace, cluster.name)
    }?updateMask=clusterSpec.workerGroupSpec`,
    { clusterSpec: { workerGroupSpec }, etag: cluster.etag },
  );
}

/**
 * @param {string} namespace
 * @param {string} name
 */
export async function deleteCluster(namespace, name) {
  await call("DELETE", paths.cluster(namespace, name));
}

/**
 * Pushes a cluster's expiry back by `by`, a duration such as "4h"
 * (ExtendCluster); the cluster as it now is. Past the policy's maximum
 * lifetime it is an ApiError with code 3 naming the maximum.
 * @param {string} namespace
 * @param {string} name
 * @param {string} by
 * @returns {Promise<Cluster>}
 */
export async function extendCluster(namespace, name, by) {
  return await call("POST", `${paths.cluster(namespace, name)}/extend`, {
    by,
  });
}

/**
 * The quotas that apply to the caller in a namespace, each with what it
 * counts now (GetQuotaUsage).
 * @param {string} namespace
 * @returns {Promise<QuotaUsage>}
 */
export async function quotaUsage(namespace) {
  return await call("GET", paths.quota(namespace));
}

/**
 * The jobs of a namespace, or of every namespace.
 * @param {string} [namespace]
 * @returns {Promise<Job[]>}
 */
export async function listJobs(namespace) {
  const answer = await call("GET", paths.jobs(namespace));
  return answer.jobs ?? [];
}

/**
 * @param {string} namespace
 * @param {Draft<Job>} job
 * @returns {Promise<Job>}
 */
export async function createJob(namespace, job) {
  return await call("POST", paths.jobs(namespace), job);
}

/**
 * @param {string} namespace
 * @param {string} name
 */
export async function deleteJob(namespace, name) {
  await call("DELETE", paths.job(namespace, name));
}

/**
 * The services of a namespace, or of every namespace.
 * @param {string} [namespace]
 * @returns {Promise<Service[]>}
 */
export async function listServices(namespace) {
  const answer = await call("GET", paths.services(namespace));
  return answer.services ?? [];
}

/**
 * @param {string} namespace
 * @param {Draft<Service>} service
 * @returns {Promise<Service>}
 */
export async function createService(namespace, service) {
  return await call("POST", paths.services(namespace), service);
}

/**
 * @param {string} namespace
 * @param {string} name
 */
export async function deleteService(namespace, name) {
  await call("DELETE", paths.service(namespace, name));
}

/**
 * The jobs submitted to a ready cluster (ListJobDetails), as its
 * dashboard lists them.
 * @param {string} namespace
 * @param {string} cluster
 * @returns {Promise<Submission[]>}
 */
export async function listSubmissions(namespace, cluster) {
  const answer = await call("GET", paths.submissions(namespace, cluster));
  return answer.submissions ?? [];
}

/**
 * Submits a job to a ready cluster (SubmitRayJob); its submission id.
 * @param {string} namespace
 * @param {string} cluster
 * @param {{ entrypoint: string, runtimeEnv?: string }} submission
 * @returns {Promise<string>}
 */
export async function submitJob(namespace, cluster, submission) {
  const answer = await call(
    "POST",
    paths.submissions(namespace, cluster),
    submission,
  );
  return answer.submissionId ?? "";
}

/**
 * Stops a submitted job (StopRayJob); one that has ended is left as it is.
 * @param {string} namespace
 * @param {string} cluster
 * @param {string} id
 */
export async function stopSubmission(namespace, cluster, id) {
  await call("POST", paths.submission(namespace, cluster, id));
}

/**
 * Deletes a submitted job that has ended, with its logs (DeleteRayJob).
 * @param {string} namespace
 * @param {string} cluster
 * @param {string} id
 */
export async function deleteSubmission(namespace, cluster, id) {
  await call("DELETE", paths.submission(namespace, cluster, id));
}

/**
 * WatchJobLog's answer as it starts: newline-delimited JSON, one
 * `{result: LogAnswer}` or `{error}` a line, ending when the job does.
 * Read with fetch rather than EventSource, which cannot send the token.
 * An answer that is not a success throws its ApiError (a 401 asks for a
 * token, as every call's does).
 * @param {string} namespace
 * @param {string} cluster
 * @param {string} id
 * @param {AbortSignal} signal
 * @returns {Promise<Response>} a 200 answer, its body unread
 */
export async function openJobLog(namespace, cluster, id, signal) {
  const response = await send(paths.submissionLog(namespace, cluster, id), {
    headers: headers(false),
    signal,
  });
  if (response.ok) return response;
  const json = parsed(await response.text());
  if (response.status === 401) whenUnauthorized();
  throw new ApiError(response.status, json);
}

/**
 * WatchClusters' answer as it starts: from `resourceVersion` on, or with the
 * clusters as they are when it is empty. Its body is newline-delimited
 * JSON, one `{result: WatchAnswer}` or `{error}` a line.
 * @param {string} resourceVersion
 * @param {AbortSignal} signal
 */
export function openWatch(resourceVersion, signal) {
  const query = resourceVersion === ""
    ? ""
    : `?resourceVersion=${encodeURIComponent(resourceVersion)}`;
  return send(`${paths.watch}${query}`, { headers: headers(false), signal });
}

/**
 * WatchRayJobs' answer as it starts, as openWatch()'s for clusters: the
 * jobs of `namespace` (every namespace the caller may watch when
 * undefined) from `resourceVersion` on, or as they are when it is empty;
 * newline-delimited JSON, one `{result: JobWatchAnswer}` or `{error}` a
 * line. A 401 asks for a token, as listing the jobs did.
 * @param {string | undefined} namespace
 * @param {string} resourceVersion
 * @param {AbortSignal} signal
 */
export async function openJobsWatch(namespace, resourceVersion, signal) {
  const query = resourceVersion === ""
    ? ""
    : `?resourceVersion=${encodeURIComponent(resourceVersion)}`;
  const response = await send(`${paths.jobsWatch(namespace)}${query}`, {
    headers: headers(false),
    signal,
  });
  if (response.status === 401) whenUnauthorized();
  return response;
}

/**
 * Who Corral takes this tab to be, with its token (or its certificate, or
 * as system:anonymous where Corral allows that): `{ user, groups }`; null
 * when it takes the tab for no one (401), which asks for no token: the
 * watch does that.
 * @returns {Promise<{ user: string, groups: string[] } | null>}
 */
export async function whoAmI() {
  return await identityOf(headers(false));
}

/**
 * Who `candidate` signs in as, or null when Corral does not accept it;
 * asked before the tab keeps a token, so a wrong one is said at once.
 * @param {string} candidate
 * @returns {Promise<{ user: string, groups: string[] } | null>}
 */
export async function checkToken(candidate) {
  return await identityOf({ authorization: `Bearer ${candidate}` });
}

/**
 * Who whoami says the caller of these headers is; null on a 401.
 * @param {Record<string, string>} callHeaders
 * @returns {Promise<{ user: string, groups: string[] } | null>}
 */
async function identityOf(callHeaders) {
  const response = await send(paths.whoami, { headers: callHeaders });
  if (response.status === 401) {
    await response.body?.cancel();
    return null;
  }
  const json = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, json);
  return json;
}

/**
 * The clusters whose dashboards this tab opened a session for, so that
 * signing out ends those sessions too.
 * @type {Set<string>}
 */
const dashboardSessions = new Set();

/**
 * The path of a cluster's dashboard session (POST opens, DELETE ends).
 * @param {string} namespace
 * @param {string} name
 */
function dashboardSessionPath(namespace, name) {
  return `${paths.cluster(namespace, name)}/dashboard:session`;
}

/**
 * Opens a dashboard session: Corral sets a cookie, for that one cluster's
 * proxy path, with which the browser may follow links into the dashboard.
 * @param {string} namespace
 * @param {string} name
 * @returns {Promise<{ url: string, expiresAt: string }>}
 */
export async function openDashboardSession(namespace, name) {
  const answer = await call("POST", dashboardSessionPath(namespace, name));
  dashboardSessions.add(JSON.stringify([namespace, name]));
  return answer;
}

/** Ends every dashboard session this tab opened; failures are ignored. */
export async function endDashboardSessions() {
  await Promise.allSettled(
    [...dashboardSessions].map((key) => {
      const [namespace, name] = JSON.parse(key);
      return fetch(dashboardSessionPath(namespace, name), {
        method: "DELETE",
        headers: headers(false),
      });
    }),
  );
  dashboardSessions.clear();
}
