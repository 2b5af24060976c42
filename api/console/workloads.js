// @ts-check
/// <reference lib="dom" />
/**
 * The workloads the console shows, jobs and services, as one table: for
 * each, the words its pages use, where they are, its badge, and where the
 * state holds its objects and what keeps them there (the jobs' watch, the
 * services' poll). A kind's list (workload_list.js), its pages
 * (workload_page.js) and its New form (workload_form.js) are made from
 * its row and what they add.
 */
import { kinds } from "./api_objects.js";
import { jobBadge, serviceBadge } from "./format.js";
import { followJobs } from "./jobs_watch.js";
import { pollServices } from "./services_poll.js";
import { state } from "./state.js";

/**
 * @template T
 * @typedef {object} Workload
 * @property {string} noun "job": in its pages' words and ids
 * @property {string} section "jobs": its pages' place in the hash (#/jobs,
 *   #/jobs/<namespace>/<name>)
 * @property {string} title "Jobs": its list's
 * @property {import("./api_objects.js").Kind<T>} kind
 * @property {(workload: T) => import("./html.js").Child} badge
 * @property {() => Map<string, T>} held the state's, by "namespace/name"
 * @property {() => boolean} synced whether they have all come
 * @property {(onChange: () => void) => () => void} follow keeps them as
 *   the API has them, calling `onChange` when they change; returns what
 *   stops it
 */

/**
 * The workloads, by kind.
 * @type {{ jobs: Workload<import("./api.js").Job>, services: Workload<import("./api.js").Service> }}
 */
export const workloads = {
  jobs: {
    noun: "job",
    section: "jobs",
    title: "Jobs",
    kind: kinds.jobs,
    badge: jobBadge,
    held: () => state.jobs,
    synced: () => state.jobsSynced,
    follow: followJobs,
  },
  services: {
    noun: "service",
    section: "services",
    title: "Services",
    kind: kinds.services,
    badge: serviceBadge,
    held: () => state.services,
    synced: () => state.servicesSynced,
    follow: pollServices,
  },
};
