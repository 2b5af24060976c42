// @ts-check
/// <reference lib="dom" />
/**
 * The calls on the API's objects: compute templates, clusters, jobs,
 * services, and a namespace's quota usage. Listing, creating and deleting
 * are one call each, over a table of the kinds (`kinds`); what only a
 * cluster does (its worker groups set, its expiry pushed back) has a call
 * of its own.
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
 * A kind of the API's objects: where they are, and where a list's answer
 * holds them.
 * @template T
 * @typedef {object} Kind
 * @property {(namespace?: string) => string} collection a namespace's
 *   objects, or every namespace's
 * @property {(namespace: string, name: string) => string} object one of them
 * @property {(answer: any) => T[] | undefined} listed the objects of a
 *   list's answer
 */

/**
 * A kind, by its paths and the field of a list's answer that holds them.
 * @param {Kind<any>["collection"]} collection
 * @param {Kind<any>["object"]} object
 * @param {string} field
 * @returns {Kind<any>}
 */
function kind(collection, object, field) {
  return { collection, object, listed: (answer) => answer[field] };
}

/**
 * The kinds the console lists, creates and deletes.
 * @type {{ templates: Kind<ComputeTemplate>, clusters: Kind<Cluster>, jobs: Kind<Job>, services: Kind<Service> }}
 */
export const kinds = {
  templates: kind(paths.templates, paths.template, "computeTemplates"),
  clusters: kind(paths.clusters, paths.cluster, "clusters"),
  jobs: kind(paths.jobs, paths.job, "jobs"),
  services: kind(paths.services, paths.service, "services"),
};

/**
 * The objects of a kind in a namespace, or in every namespace.
 * @template T
 * @param {Kind<T>} kind
 * @param {string} [namespace]
 * @returns {Promise<T[]>}
 */
export async function listObjects(kind, namespace) {
  return kind.listed(await call("GET", kind.collection(namespace))) ?? [];
}

/**
 * Creates an object of a kind in a namespace; the object as created.
 * @template T
 * @param {Kind<T>} kind
 * @param {string} namespace
 * @param {Draft<T>} object
 * @returns {Promise<T>}
 */
export async function createObject(kind, namespace, object) {
  return await call("POST", kind.collection(namespace), object);
}

/**
 * @template T
 * @param {Kind<T>} kind
 * @param {string} namespace
 * @param {string} name
 */
export async function deleteObject(kind, namespace, name) {
  await call("DELETE", kind.object(namespace, name));
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
