/**
 * Validation of services. A service's cluster is checked by the cluster
 * rules themselves (clusterViolations, on serviceAsCluster), its fields
 * renamed from `cluster.` to `service.`; the service adds its name's
 * limit, its Serve config, and what an update may change.
 */
import { parseDocument } from "yaml";
import { type FieldViolation, invalidArgument } from "./errors.ts";
import { DEFAULT_LIMITS, type Limits } from "./limits.ts";
import { serviceAction, serviceAsCluster } from "./service_conversions.ts";
import type { RayService, WorkerGroupSpec } from "./types.ts";
import { clusterViolations } from "./cluster_validation.ts";

/**
 * The longest RayService name the KubeRay operator reconciles
 * (MaxRayServiceNameLength): its clusters' names add a suffix to it.
 */
export const MAX_SERVICE_NAME_LENGTH = 47;

/** Validates a CreateRayServiceRequest; throws INVALID_ARGUMENT listing all. */
export function validateCreateService(
  request: { service?: RayService; namespace: string },
  limits: Limits = DEFAULT_LIMITS,
): void {
  const violations = serviceViolations(request, limits);
  if (violations.length > 0) {
    throw invalidArgument(
      serviceAction("create", request.namespace, request.service?.name),
      violations,
    );
  }
}

/** Every violation of a service as a create (or an update's result) has it. */
export function serviceViolations(
  request: { service?: RayService; namespace: string },
  limits: Limits = DEFAULT_LIMITS,
): FieldViolation[] {
  const service = request.service;
  if (service === undefined || service === null) {
    return [{ field: "service", description: "is required" }];
  }
  const violations: FieldViolation[] = [];
  if (service.serveDeploymentGraphSpec != null) {
    violations.push({
      field: "service.serveDeploymentGraphSpec",
      description:
        "is Serve's first config format, which the operator no longer accepts: use serveConfigV2 (Serve's config file, YAML with applications)",
    });
  }
  // The cluster's rules, as a cluster request of the same fields meets
  // them, each violation named by the service's field.
  const asCluster = {
    cluster: serviceAsCluster(service),
    namespace: request.namespace,
  };
  for (const violation of clusterViolations(asCluster, limits)) {
    violations.push({ ...violation, field: serviceField(violation.field) });
  }
  if (service.name.length > MAX_SERVICE_NAME_LENGTH) {
    violations.push({
      field: "service.name",
      description:
        `must be at most ${MAX_SERVICE_NAME_LENGTH} characters (the operator names the service's clusters after it)`,
    });
  }
  violations.push(...serveConfigViolations(service.serveConfig_V2));
  return violations;
}

/** `cluster.clusterSpec...` -> `service.clusterSpec...`. */
function serviceField(field: string): string {
  if (field === "cluster") return "service";
  return field.startsWith("cluster.") ? `service.${field.slice(8)}` : field;
}

const SERVE_CONFIG_FIELD = "service.serveConfigV2";

/**
 * What is wrong with a Serve config: it must be YAML (JSON is YAML), a
 * mapping whose `applications` is a non-empty list of mappings, each with
 * an `import_path`. A parse error names its line.
 */
export function serveConfigViolations(text: string): FieldViolation[] {
  const problem = (description: string) => [{
    field: SERVE_CONFIG_FIELD,
    description,
  }];
  if (text.trim() === "") {
    return problem(
      "is required: Serve's config file (YAML) with its applications",
    );
  }
  const document = parseDocument(text, { prettyErrors: true });
  const error = document.errors[0];
  if (error) {
    const line = error.linePos?.[0]?.line;
    const where = line === undefined ? "" : ` at line ${line}`;
    const message = error.message.split("\n")[0].replace(/ at line \d+.*$/, "")
      .replace(/:$/, "");
    return problem(`is not valid YAML${where}: ${message}`);
  }
  const config = document.toJS({ maxAliasCount: 100 });
  if (!isMapping(config)) {
    return problem("must be a YAML mapping with applications");
  }
  const applications = config.applications;
  if (!Array.isArray(applications) || applications.length === 0) {
    return problem("must list its applications under `applications`");
  }
  const violations: FieldViolation[] = [];
  applications.forEach((application, index) => {
    const path = `applications[${index}]`;
    if (!isMapping(application)) {
      violations.push(...problem(`${path} must be a mapping`));
    } else if (
      typeof application.import_path !== "string" ||
      application.import_path === ""
    ) {
      violations.push(...problem(`${path} must have an import_path`));
    }
  });
  return violations;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------
// Updates

/** What of a worker group an update may change: the operator scales it. */
const SCALING_FIELDS = new Set(["replicas", "minReplicas", "maxReplicas"]);

/**
 * The fields of `wanted` (an UpdateRayService's service) that differ from
 * the service as it is and may not change: everything but serveConfigV2
 * and the worker groups' replicas and bounds. Output fields and empty
 * name, namespace, user, version, ttl and expiresAt are taken as
 * unchanged.
 */
export function serviceUpdateViolations(
  current: RayService,
  wanted: RayService,
): FieldViolation[] {
  const violations: FieldViolation[] = [];
  const refuse = (field: string) =>
    violations.push({
      field: `service.${field}`,
      description:
        "may not change: an update changes serveConfigV2 and the worker groups' replicas, minReplicas and maxReplicas",
    });
  for (const key of ["user", "version", "ttl"] as const) {
    if (wanted[key] !== "" && wanted[key] !== current[key]) refuse(key);
  }
  // The service read back and sent whole carries its expiry, unchanged.
  if (
    wanted.expiresAt &&
    wanted.expiresAt.getTime() !== current.expiresAt?.getTime()
  ) refuse("expiresAt");
  if (wanted.serveDeploymentGraphSpec != null) {
    violations.push({
      field: "service.serveDeploymentGraphSpec",
      description:
        "is Serve's first config format, which the operator no longer accepts: use serveConfigV2",
    });
  }
  const want = wanted.clusterSpec;
  const have = current.clusterSpec;
  if (want == null || have == null) return violations;
  for (const field of differences(want.headGroupSpec, have.headGroupSpec)) {
    refuse(`clusterSpec.headGroupSpec${field}`);
  }
  const wantGroups = want.workerGroupSpec ?? [];
  const haveGroups = have.workerGroupSpec ?? [];
  if (wantGroups.length !== haveGroups.length) {
    refuse("clusterSpec.workerGroupSpec");
    return violations;
  }
  wantGroups.forEach((group, index) => {
    const fields = differences(group, haveGroups[index])
      .filter((field) => !SCALING_FIELDS.has(field.slice(1)));
    for (const field of fields) {
      refuse(`clusterSpec.workerGroupSpec[${index}]${field}`);
    }
  });
  return violations;
}

/**
 * The top-level fields (`.image`) in which two groups differ; "" when one
 * is missing and the other is not.
 */
function differences(
  a: WorkerGroupSpec | object | undefined,
  b: WorkerGroupSpec | object | undefined,
): string[] {
  if (a == null || b == null) return a == b ? [] : [""];
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  return [...keys]
    .filter((key) => !sameValue(left[key], right[key]))
    .map((key) => `.${key}`);
}

/** Deep equality of decoded message values (maps compared by entries). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a == null || b == null) return isEmpty(a) && isEmpty(b);
  if (typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  return [...keys].every((key) => sameValue(left[key], right[key]));
}

/** Unset, or an empty list, map or string: what a message does not carry. */
function isEmpty(value: unknown): boolean {
  if (value == null || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && Object.keys(value).length === 0;
}
