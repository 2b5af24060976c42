// @ts-check
/// <reference lib="dom" />
/**
 * The calls on the API's objects: compute templates, clusters, jobs,
 * services, and a namespace's quota usage.
 */
import { call, paths } from "./api.js";

/** @typedef {import("./api.js").Cluster} Cluster */
/** @typedef {import("./api.js").ComputeTemplate} ComputeTemplate */
/** @typedef {import("./api.js").Job} Job */
/** @typedef {import("./api.js").QuotaUsage} QuotaUsage */
/** @typedef {import("./api.js").Service} Service */
/** @typedef {import("./api.js").WorkerGroupSpec} WorkerGroupSpec */
/**
 * @template T
 * @typedef {import("./api.js").Draft<T>} Draft
 */

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
