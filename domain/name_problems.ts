/**
 * Kubernetes' naming rules (kubernetes_names.ts) in request validation's
 * words: what is wrong with a name a request gives, each problem a
 * sentence; nothing when the name is valid.
 */
import {
  matchesDns1035Label,
  matchesDns1123Label,
  matchesDns1123Subdomain,
  matchesLabelValue,
  matchesQualifiedNamePart,
  MAX_LABEL_LENGTH,
  MAX_SUBDOMAIN_LENGTH,
} from "./kubernetes_names.ts";
import type { Violations } from "./violations.ts";

/**
 * The longest RayCluster name the KubeRay operator reconciles: it appends
 * `-serve-svc` (10 characters) to make Service names of at most 63.
 */
export const MAX_CLUSTER_NAME_LENGTH = 53;
/** Kubernetes' limit on object names (DNS-1123 subdomains). */
export const MAX_OBJECT_NAME_LENGTH = MAX_SUBDOMAIN_LENGTH;

const DNS1123_LABEL_MESSAGE =
  "must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1035_LABEL_MESSAGE =
  "must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MESSAGE =
  "must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MESSAGE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** A namespace a request names: required, and a DNS-1123 label. */
export function checkNamespace(
  v: Violations,
  field: string,
  namespace: string,
): void {
  if (namespace === "") {
    v.add(field, "is required");
  } else {
    v.addAll(field, dns1123LabelProblems(namespace));
  }
}

/**
 * A RayCluster name the operator reconciles: a DNS-1035 label of at most 53
 * characters (it rejects longer ones and names starting with a digit). It
 * is also the value of the `ray.io/cluster-name` label.
 */
export function clusterNameProblems(name: string): string[] {
  if (name === "") return ["is required"];
  const problems = maxLength(name, MAX_CLUSTER_NAME_LENGTH).map((problem) =>
    `${problem} (the operator derives longer Kubernetes names from it)`
  );
  if (!matchesDns1035Label(name)) problems.push(DNS1035_LABEL_MESSAGE);
  return problems;
}

/** A ConfigMap name that is also a label value (`ray.io/compute-template`). */
export function computeTemplateNameProblems(name: string): string[] {
  const problems = maxLength(name, MAX_LABEL_LENGTH);
  if (!matchesDns1123Subdomain(name)) problems.push(DNS1123_SUBDOMAIN_MESSAGE);
  return problems;
}

/** A DNS-1123 label: namespaces, worker group and volume names. */
export function dns1123LabelProblems(value: string): string[] {
  const problems = maxLength(value, MAX_LABEL_LENGTH);
  if (!matchesDns1123Label(value)) problems.push(DNS1123_LABEL_MESSAGE);
  return problems;
}

/** The name of an object: a DNS-1123 subdomain. */
export function objectNameProblems(value: string): string[] {
  const problems = maxLength(value, MAX_OBJECT_NAME_LENGTH);
  if (!matchesDns1123Subdomain(value)) problems.push(DNS1123_SUBDOMAIN_MESSAGE);
  return problems;
}

/** A label value; the empty string is one. */
export function labelValueProblems(value: string): string[] {
  const problems = maxLength(value, MAX_LABEL_LENGTH);
  if (!matchesLabelValue(value)) problems.push(LABEL_VALUE_MESSAGE);
  return problems;
}

/**
 * An extended resource name (`nvidia.com/gpu`, `amd.com/gpu`): a domain
 * prefix outside kubernetes.io, a slash, and a name part, as Kubernetes'
 * IsExtendedResourceName requires.
 */
export function extendedResourceNameProblems(value: string): string[] {
  const description =
    'must be an extended resource name: a domain prefix outside kubernetes.io, "/" and a name, such as "nvidia.com/gpu"';
  const slash = value.indexOf("/");
  if (slash < 0) return [description];
  const prefix = value.slice(0, slash);
  const name = value.slice(slash + 1);
  const valid = prefix.length <= MAX_OBJECT_NAME_LENGTH &&
    matchesDns1123Subdomain(prefix) &&
    prefix !== "kubernetes.io" && !prefix.endsWith(".kubernetes.io") &&
    !prefix.startsWith("requests.") &&
    name.length <= MAX_LABEL_LENGTH && matchesQualifiedNamePart(name);
  return valid ? [] : [description];
}

function maxLength(value: string, limit: number): string[] {
  return value.length > limit ? [`must be at most ${limit} characters`] : [];
}
