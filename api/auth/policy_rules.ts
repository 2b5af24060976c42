/**
 * One rule of the policy file read and checked: whom it names, the
 * namespaces, resources and verbs it grants, and what it lets the pods of
 * a granted workload carry (its allow-lists, admission.ts). Every problem
 * is told, with its path (`rules[2].verbs[0]`), to the `problem` of the
 * document being read (policy_document.ts), which throws them all at once.
 */
import { AUTHENTICATED_GROUP } from "./identity.ts";
import { quantityValue } from "../../domain/quantities.ts";
import type { TolerationGrant, WorkloadGrants } from "./workload_grants.ts";
import { RESOURCES, type Rule, VERBS } from "./policy.ts";
import {
  isMapping,
  type ListSection,
  listSectionOf,
  type Problem,
} from "./policy_section.ts";

/** The workload allow-lists that are lists of patterns, as in the file. */
const WORKLOAD_LISTS = [
  "serviceAccounts",
  "imagePullSecrets",
  "nodeSelectors",
  "serviceTypes",
  "annotations",
  "labels",
  "secrets",
  "podFields",
  "containerFields",
  "extendedResources",
] as const;

const RULE_KEYS = new Set<string>([
  "users",
  "groups",
  "namespaces",
  "resources",
  "verbs",
  "allowHostPath",
  "images",
  "owners",
  ...WORKLOAD_LISTS,
  "tolerations",
  "volumes",
  "securityContext",
  "startParams",
]);

/** A DNS-1123 label, as Kubernetes namespace names are. */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** The `rules:` section, as policy_section.ts reads it. */
const RULES: ListSection<Rule> = {
  name: "rules",
  keys: RULE_KEYS,
  list: "a list",
  entry: "a mapping",
  read: ruleOf,
};

/** The rules of the file's `rules:` list, each at `rules[i]`. */
export function rulesOf(list: unknown[], problem: Problem): Rule[] {
  return listSectionOf(RULES, list, problem);
}

/** One rule of the file, its keys known, its problems told to `problem`. */
function ruleOf(
  raw: Record<string, unknown>,
  at: string,
  problem: Problem,
): Rule {
  const list = (key: string, check: (value: string) => string | undefined) =>
    stringList(raw[key], `${at}.${key}`, check, problem);
  const users = list("users", subjectProblem("user"));
  const groups = list("groups", subjectProblem("group"));
  if (users.length === 0 && groups.length === 0) {
    problem(at, "names no users and no groups");
  }
  const namespaces = list("namespaces", namespaceProblem);
  const resources = list("resources", resourceProblem);
  const verbs = list("verbs", verbProblem);
  for (
    const [key, value] of [
      ["namespaces", namespaces],
      ["resources", resources],
      ["verbs", verbs],
    ] as const
  ) {
    if (value.length === 0 && raw[key] === undefined) {
      problem(`${at}.${key}`, "is required");
    } else if (value.length === 0 && Array.isArray(raw[key])) {
      problem(`${at}.${key}`, `must not be empty`);
    }
  }
  const allowHostPath = raw.allowHostPath ?? false;
  if (typeof allowHostPath !== "boolean") {
    problem(`${at}.allowHostPath`, "must be true or false");
  }
  const images = raw.images === undefined
    ? undefined
    : list("images", (p) => p === "" ? "must not be empty" : undefined);
  const workload = workloadOf(raw, at, problem);
  if (raw.owners !== undefined && raw.owners !== "only") {
    problem(`${at}.owners`, 'must be "only" (or absent: any member)');
  }
  return {
    users,
    groups,
    namespaces,
    resources,
    verbs,
    allowHostPath: allowHostPath === true,
    ...(images ? { images } : {}),
    ...(workload ? { workload } : {}),
    ...(raw.owners === "only" ? { owners: "only" as const } : {}),
  };
}

/**
 * The strings of a list at `at` ([] when absent), each item that is not a
 * string or that `check` finds wrong told to `problem`.
 */
function stringList(
  value: unknown,
  at: string,
  check: (item: string) => string | undefined,
  problem: Problem,
): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    problem(at, "must be a list of strings");
    return [];
  }
  value.forEach((item: unknown, j: number) => {
    const why = typeof item !== "string" ? "must be a string" : check(item);
    if (why) problem(`${at}[${j}]`, why);
  });
  return value.filter((item): item is string => typeof item === "string");
}

/** What is wrong with a user or group name: empty, or "*". */
function subjectProblem(kind: string): (name: string) => string | undefined {
  return (name) =>
    name === ""
      ? "must not be empty"
      : name === "*"
      ? `"*" is not a ${kind}: name the group "${AUTHENTICATED_GROUP}" for every authenticated caller`
      : undefined;
}

function namespaceProblem(namespace: string): string | undefined {
  return namespace === "*" || NAMESPACE.test(namespace)
    ? undefined
    : `"${namespace}" is not a namespace name`;
}

function resourceProblem(resource: string): string | undefined {
  return resource === "*" || (RESOURCES as readonly string[]).includes(resource)
    ? undefined
    : `unknown resource "${resource}"`;
}

function verbProblem(verb: string): string | undefined {
  return verb === "*" || (VERBS as readonly string[]).includes(verb)
    ? undefined
    : `unknown verb "${verb}"`;
}

/** A list of non-empty strings at `at`, or undefined (with a problem). */
function patterns(
  value: unknown,
  at: string,
  problem: Problem,
): string[] | undefined {
  if (
    !Array.isArray(value) ||
    value.some((item) => typeof item !== "string" || item === "")
  ) {
    problem(at, "must be a list of non-empty strings");
    return undefined;
  }
  return value as string[];
}

/**
 * A rule's workload allow-lists (workload_grants.ts), undefined when it has
 * none: each list of patterns, `tolerations` as [{key, effects}],
 * `volumes` as {hostPaths, persistentVolumeClaims}, `startParams` as a
 * mapping of a parameter to its value patterns.
 */
function workloadOf(
  raw: Record<string, unknown>,
  at: string,
  problem: Problem,
): Partial<WorkloadGrants> | undefined {
  const grants: Partial<WorkloadGrants> = {};
  for (const key of WORKLOAD_LISTS) {
    if (raw[key] === undefined) continue;
    const list = patterns(raw[key], `${at}.${key}`, problem);
    if (list) grants[key] = list;
  }
  if (raw.tolerations !== undefined) {
    grants.tolerations = tolerationGrants(raw.tolerations, at, problem);
  }
  if (raw.volumes !== undefined) {
    volumeGrants(raw.volumes, at, problem, grants);
  }
  if (raw.securityContext !== undefined) {
    securityContextGrants(raw.securityContext, at, problem, grants);
  }
  if (raw.startParams !== undefined) {
    const startParams = startParamGrants(raw.startParams, at, problem);
    if (startParams) grants.startParams = startParams;
  }
  return Object.keys(grants).length > 0 ? grants : undefined;
}

/**
 * A rule's `volumes:` ({hostPaths, persistentVolumeClaims, maxSize}) into
 * `grants`; maxSize is a Kubernetes quantity ("50Gi").
 */
function volumeGrants(
  volumes: unknown,
  at: string,
  problem: Problem,
  grants: Partial<WorkloadGrants>,
): void {
  if (!isMapping(volumes)) {
    problem(`${at}.volumes`, "must be a mapping");
    return;
  }
  for (const key of Object.keys(volumes)) {
    if (!VOLUME_KEYS.includes(key)) {
      problem(`${at}.volumes.${key}`, "unknown key");
    }
  }
  if (volumes.maxSize !== undefined) {
    const size = typeof volumes.maxSize === "string"
      ? quantityValue(volumes.maxSize)
      : undefined;
    if (size === undefined || size < 0) {
      problem(
        `${at}.volumes.maxSize`,
        'must be a Kubernetes quantity such as "50Gi"',
      );
    } else grants.volumeMaxBytes = size;
  }
  const hostPaths = volumes.hostPaths === undefined
    ? undefined
    : patterns(volumes.hostPaths, `${at}.volumes.hostPaths`, problem);
  const claims = volumes.persistentVolumeClaims === undefined
    ? undefined
    : patterns(
      volumes.persistentVolumeClaims,
      `${at}.volumes.persistentVolumeClaims`,
      problem,
    );
  if (hostPaths) grants.hostPaths = hostPaths;
  if (claims) grants.claims = claims;
}

const VOLUME_KEYS = ["hostPaths", "persistentVolumeClaims", "maxSize"];

/**
 * A rule's `securityContext:` ({privileged, capabilities}) into `grants`:
 * whether a container may run privileged, and the capabilities it may add.
 */
function securityContextGrants(
  value: unknown,
  at: string,
  problem: Problem,
  grants: Partial<WorkloadGrants>,
): void {
  const where = `${at}.securityContext`;
  if (!isMapping(value)) {
    problem(where, "must be a mapping of privileged and capabilities");
    return;
  }
  for (const key of Object.keys(value)) {
    if (key !== "privileged" && key !== "capabilities") {
      problem(`${where}.${key}`, "unknown key");
    }
  }
  if (value.privileged !== undefined) {
    if (typeof value.privileged !== "boolean") {
      problem(`${where}.privileged`, "must be true or false");
    } else grants.privileged = value.privileged;
  }
  if (value.capabilities !== undefined) {
    const list = patterns(
      value.capabilities,
      `${where}.capabilities`,
      problem,
    );
    if (list) grants.capabilities = list;
  }
}

/** A rule's `startParams:`, a parameter to its value patterns. */
function startParamGrants(
  params: unknown,
  at: string,
  problem: Problem,
): Record<string, string[]> | undefined {
  if (!isMapping(params)) {
    problem(
      `${at}.startParams`,
      "must be a mapping of a parameter to value patterns",
    );
    return undefined;
  }
  const grants: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(params)) {
    const list = patterns(value, `${at}.startParams.${key}`, problem);
    if (list) grants[key] = list;
  }
  return grants;
}

function tolerationGrants(
  value: unknown,
  at: string,
  problem: Problem,
): TolerationGrant[] {
  if (!Array.isArray(value)) {
    problem(`${at}.tolerations`, "must be a list of {key, effects}");
    return [];
  }
  const grants: TolerationGrant[] = [];
  value.forEach((item: unknown, i: number) => {
    const where = `${at}.tolerations[${i}]`;
    if (!isMapping(item) || typeof item.key !== "string" || item.key === "") {
      problem(where, "must be a mapping with a non-empty key");
      return;
    }
    for (const key of Object.keys(item)) {
      if (key !== "key" && key !== "effects") {
        problem(`${where}.${key}`, "unknown key");
      }
    }
    const effects = item.effects === undefined
      ? undefined
      : patterns(item.effects, `${where}.effects`, problem);
    grants.push({ key: item.key, ...(effects ? { effects } : {}) });
  });
  return grants;
}
