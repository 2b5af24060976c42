/**
 * Kubernetes' naming rules (k8s.io/apimachinery/pkg/util/validation): the
 * patterns and length limits of DNS-1123 labels and subdomains, DNS-1035
 * labels, qualified names (label and annotation keys) and label values. The
 * one home of these rules: request validation, the orchestrator and the
 * local Kubernetes API stand-in all check names with them, each wording its
 * own messages. Pure: no I/O.
 */

/** `my-name`, `123-abc`: namespaces, worker group names. */
export const DNS1123_LABEL_PATTERN = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
/** `example.com`: names of most objects. */
export const DNS1123_SUBDOMAIN_PATTERN =
  `${DNS1123_LABEL_PATTERN}(\\.${DNS1123_LABEL_PATTERN})*`;
/** `my-name`, never starting with a digit: Service names. */
export const DNS1035_LABEL_PATTERN = "[a-z]([-a-z0-9]*[a-z0-9])?";
/** The name part of a qualified name (`ray.io/cluster-name`'s `cluster-name`). */
export const QUALIFIED_NAME_PART_PATTERN =
  "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
/** A label value; the empty string is one. */
export const LABEL_VALUE_PATTERN = `(${QUALIFIED_NAME_PART_PATTERN})?`;

/** DNS-1123 and DNS-1035 labels, label values, qualified name parts. */
export const MAX_LABEL_LENGTH = 63;
/** DNS-1123 subdomains, and so the prefix of a qualified name. */
export const MAX_SUBDOMAIN_LENGTH = 253;

function whole(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`);
}

const DNS1123_LABEL = whole(DNS1123_LABEL_PATTERN);
const DNS1123_SUBDOMAIN = whole(DNS1123_SUBDOMAIN_PATTERN);
const DNS1035_LABEL = whole(DNS1035_LABEL_PATTERN);
const QUALIFIED_NAME_PART = whole(QUALIFIED_NAME_PART_PATTERN);
const LABEL_VALUE = whole(LABEL_VALUE_PATTERN);

// Pattern only: callers that report a too long value apart check its length
// themselves.

export function matchesDns1123Label(value: string): boolean {
  return DNS1123_LABEL.test(value);
}

export function matchesDns1123Subdomain(value: string): boolean {
  return DNS1123_SUBDOMAIN.test(value);
}

export function matchesDns1035Label(value: string): boolean {
  return DNS1035_LABEL.test(value);
}

export function matchesQualifiedNamePart(value: string): boolean {
  return QUALIFIED_NAME_PART.test(value);
}

export function matchesLabelValue(value: string): boolean {
  return LABEL_VALUE.test(value);
}

// Pattern and length: what Kubernetes accepts.

export function isDns1123Label(value: string): boolean {
  return value.length <= MAX_LABEL_LENGTH && matchesDns1123Label(value);
}

export function isDns1123Subdomain(value: string): boolean {
  return value.length <= MAX_SUBDOMAIN_LENGTH &&
    matchesDns1123Subdomain(value);
}

export function isDns1035Label(value: string): boolean {
  return value.length <= MAX_LABEL_LENGTH && matchesDns1035Label(value);
}

export function isLabelValue(value: string): boolean {
  return value.length <= MAX_LABEL_LENGTH && matchesLabelValue(value);
}

/**
 * `prefix/name` split at its first slash; no prefix when there is no slash
 * (an empty prefix, `/name`, is "" and invalid).
 */
export function splitQualifiedName(
  value: string,
): { prefix?: string; name: string } {
  const slash = value.indexOf("/");
  return slash < 0
    ? { name: value }
    : { prefix: value.slice(0, slash), name: value.slice(slash + 1) };
}

/** A label or annotation key: an optional DNS-1123 subdomain prefix and a name part. */
export function isQualifiedName(value: string): boolean {
  const { prefix, name } = splitQualifiedName(value);
  return (prefix === undefined || isDns1123Subdomain(prefix)) &&
    name.length <= MAX_LABEL_LENGTH && matchesQualifiedNamePart(name);
}
