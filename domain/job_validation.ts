/**
 * The validation of a job's create (CreateRayJob), every violation named by
 * the request's field paths: the job's own fields, its submitter (bounded as
 * a compute template bounds a pod), and the choice between a cluster of its
 * own (checked as a cluster is) and an existing one. The RayJob it becomes:
 * job_conversions.ts.
 */
import {
  CLUSTER_SELECTOR_KEY,
  jobCluster,
  MAX_JOB_NAME_LENGTH,
} from "./job_conversions.ts";
import { queueViolations } from "./queues.ts";
import type { RayJob as Job, RayJobSubmitter } from "./types.ts";
import type { FieldViolation } from "./errors.ts";
import { isDns1035Label, isLabelValue } from "./kubernetes_names.ts";
import { clusterViolations } from "./cluster_validation.ts";
import { DEFAULT_LIMITS, LIMIT_FLAGS, type Limits } from "./limits.ts";
import { cpusOf, gibOf, isQuantity } from "./quantities.ts";
import { Violations } from "./violations.ts";

/**
 * Every violation of a CreateRayJobRequest (its job after the user is
 * filled in), named by the request's field paths. The job's cluster is
 * checked as a cluster is (clusterViolations), its fields named as the
 * job's (`job.clusterSpec...`).
 */
export function jobViolations(
  request: { job?: Job; namespace: string },
  limits: Limits = DEFAULT_LIMITS,
): FieldViolation[] {
  const job = request.job;
  if (job === undefined || job === null) {
    return [{ field: "job", description: "is required" }];
  }
  const v: FieldViolation[] = [];
  const add = (field: string, description: string) =>
    v.push({ field: `job.${field}`, description });
  if (job.name === "") add("name", "is required");
  else if (job.name.length > MAX_JOB_NAME_LENGTH) {
    add("name", `must be at most ${MAX_JOB_NAME_LENGTH} characters`);
  } else if (!isDns1035Label(job.name)) {
    add(
      "name",
      "must be a DNS-1035 label: lower case letters, digits and '-', starting with a letter and ending with a letter or digit",
    );
  }
  if (job.namespace !== "" && job.namespace !== request.namespace) {
    add(
      "namespace",
      `must be empty or equal the request's namespace "${request.namespace}"`,
    );
  }
  if (job.entrypoint.trim() === "") add("entrypoint", "is required");
  if (job.version !== "" && !isLabelValue(job.version)) {
    add("version", "must be a valid label value");
  }
  v.push(...amountViolations(job));
  v.push(...submitterViolations(job.jobSubmitter, limits));
  v.push(...clusterChoiceViolations(job, request.namespace, limits));
  v.push(...queueViolations("job.queue", job.queue));
  if (job.queue && !job.shutdownAfterJobFinishes) {
    add(
      "shutdownAfterJobFinishes",
      "must be true for a job with a queue: Kueue suspends the job until admitted, and the operator suspends only a job whose cluster it may delete",
    );
  }
  if (job.queue && !job.clusterSpec) {
    add(
      "clusterSpec",
      "is required for a job with a queue: Kueue admits a job by the cluster it brings, and the operator cannot suspend a job on an existing cluster",
    );
  }
  if (job.suspend && !job.shutdownAfterJobFinishes) {
    add(
      "suspend",
      "needs shutdownAfterJobFinishes: the operator suspends only a job whose cluster it may delete",
    );
  }
  const entries = Object.keys(job.metadata ?? {}).length;
  if (entries > limits.maxMapEntries) {
    add("metadata", `must have at most ${limits.maxMapEntries} entries`);
  }
  return v;
}

/** The numbers of a job: none negative, resources a JSON object of amounts. */
function amountViolations(job: Job): FieldViolation[] {
  const v: FieldViolation[] = [];
  const numbers: [string, number][] = [
    ["ttlSecondsAfterFinished", job.ttlSecondsAfterFinished],
    ["activeDeadlineSeconds", job.activeDeadlineSeconds],
    ["entrypointNumCpus", job.entrypointNumCpus],
    ["entrypointNumGpus", job.entrypointNumGpus],
  ];
  for (const [field, value] of numbers) {
    if (!Number.isFinite(value) || value < 0) {
      v.push({ field: `job.${field}`, description: "must not be negative" });
    }
  }
  if (job.entrypointResources !== "") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(job.entrypointResources);
    } catch {
      parsed = undefined;
    }
    const amounts = typeof parsed === "object" && parsed !== null &&
      !Array.isArray(parsed) &&
      Object.values(parsed).every((n) => typeof n === "number" && n >= 0);
    if (!amounts) {
      v.push({
        field: "job.entrypointResources",
        description:
          'must be a JSON object of resource names to amounts, e.g. {"custom": 1}',
      });
    }
  }
  return v;
}

/**
 * The submitter pod's size, bounded as a compute template bounds a pod
 * (template_validation.ts): more than 0, and at most --max-template-cpu
 * CPUs and --max-template-memory GiB, however the quantity is written.
 */
function submitterViolations(
  submitter: RayJobSubmitter | undefined,
  limits: Limits,
): FieldViolation[] {
  if (submitter === undefined) return [];
  const v = new Violations();
  if (submitter.image === "") v.add("job.jobSubmitter.image", "is required");
  const amounts = [
    ["cpu", cpusOf, "maxTemplateCpu", ""],
    ["memory", gibOf, "maxTemplateMemory", "Gi"],
  ] as const;
  for (const [field, amountOf, limit, unit] of amounts) {
    const value = submitter[field];
    const path = `job.jobSubmitter.${field}`;
    if (value === "") continue;
    if (!isQuantity(value)) {
      v.add(
        path,
        `must be a Kubernetes quantity such as "1", "500m" or "1Gi", got "${value}"`,
      );
    } else if (!(amountOf(value) > 0)) {
      v.add(path, "must be greater than 0");
    } else if (amountOf(value) > limits[limit]) {
      v.add(
        path,
        `must be at most ${limits[limit]}${unit} (--${
          LIMIT_FLAGS[limit]
        }), got "${value}"`,
      );
    }
  }
  return v.list;
}

/** Exactly one of cluster_spec and cluster_selector, each as it must be. */
function clusterChoiceViolations(
  job: Job,
  namespace: string,
  limits: Limits,
): FieldViolation[] {
  const selector = job.clusterSelector ?? {};
  const selects = Object.keys(selector).length > 0;
  const brings = job.clusterSpec !== undefined && job.clusterSpec !== null;
  if (selects === brings) {
    return [{
      field: "job.clusterSpec",
      description: selects
        ? "must not be set with job.clusterSelector: a job brings its own cluster or names one"
        : "is required when job.clusterSelector is not set: a job brings its own cluster or names one",
    }];
  }
  if (selects) {
    const v: FieldViolation[] = [];
    for (const key of Object.keys(selector)) {
      if (key !== CLUSTER_SELECTOR_KEY) {
        v.push({
          field: `job.clusterSelector["${key}"]`,
          description:
            `is not a key the operator reads: name the cluster with "${CLUSTER_SELECTOR_KEY}"`,
        });
      }
    }
    if ((selector[CLUSTER_SELECTOR_KEY] ?? "") === "") {
      v.push({
        field: `job.clusterSelector["${CLUSTER_SELECTOR_KEY}"]`,
        description: "is required: the name of the cluster to run on",
      });
    }
    if (job.suspend) {
      v.push({
        field: "job.suspend",
        description: "must be false for a job on an existing cluster",
      });
    }
    // It holds no cluster of its own to expire: the one it runs on has
    // its own expiry.
    for (const field of ["ttl", "expiresAt"] as const) {
      if (job[field]) {
        v.push({
          field: `job.${field === "ttl" ? "ttl" : "expires_at"}`,
          description:
            "must be empty for a job on an existing cluster: that cluster's expiry is the job's bound",
        });
      }
    }
    return v;
  }
  // The job's own cluster, as a cluster, its fields named in the job
  // (`job.clusterSpec...`, `job.version`): the job's name, user, version
  // and namespace are checked above, as a job's.
  const own = new Set(["job.name", "job.user", "job.version", "namespace"]);
  return clusterViolations(
    { cluster: jobCluster(job, namespace), namespace },
    limits,
    "job",
  ).filter((violation) => !own.has(violation.field));
}
