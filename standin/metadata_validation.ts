/**
 * ObjectMeta validation as the real server words it: object and namespace
 * names, label keys and values, annotations; and the Kubernetes-worded name
 * checks the selectors share. The rules themselves are
 * domain/kubernetes_names.ts's; each message quotes the pattern checked.
 */

import {
  DNS1123_LABEL_PATTERN,
  DNS1123_SUBDOMAIN_PATTERN,
  LABEL_VALUE_PATTERN,
  matchesDns1123Label,
  matchesDns1123Subdomain,
  matchesLabelValue,
  matchesQualifiedNamePart,
  MAX_LABEL_LENGTH,
  MAX_SUBDOMAIN_LENGTH,
  QUALIFIED_NAME_PART_PATTERN,
  splitQualifiedName,
} from "../domain/kubernetes_names.ts";
import { invalidCause, requiredCause } from "./status.ts";
import type { KubeObject, ResourceType, StatusCause } from "./types.ts";

/** Problems with a DNS-1123 subdomain (names of most objects). */
export function dns1123SubdomainErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > MAX_SUBDOMAIN_LENGTH) {
    errors.push(`must be no more than ${MAX_SUBDOMAIN_LENGTH} characters`);
  }
  if (!matchesDns1123Subdomain(value)) {
    errors.push(
      `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${DNS1123_SUBDOMAIN_PATTERN}')`,
    );
  }
  return errors;
}

/** Problems with a DNS-1123 label (namespace names). */
export function dns1123LabelErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > MAX_LABEL_LENGTH) {
    errors.push(`must be no more than ${MAX_LABEL_LENGTH} characters`);
  }
  if (!matchesDns1123Label(value)) {
    errors.push(
      `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '${DNS1123_LABEL_PATTERN}')`,
    );
  }
  return errors;
}

/** The first problem with a qualified name (label and annotation keys). */
export function qualifiedNameError(value: string): string | undefined {
  const { prefix, name } = splitQualifiedName(value);
  if (prefix !== undefined) {
    if (prefix === "") return "prefix part must be non-empty";
    const prefixErrors = dns1123SubdomainErrors(prefix);
    if (prefixErrors.length > 0) return `prefix part ${prefixErrors[0]}`;
  }
  if (name === "") return "name part must be non-empty";
  if (name.length > MAX_LABEL_LENGTH) {
    return `name part must be no more than ${MAX_LABEL_LENGTH} characters`;
  }
  if (!matchesQualifiedNamePart(name)) {
    return `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${QUALIFIED_NAME_PART_PATTERN}')`;
  }
  return undefined;
}

/** The first problem with a label value. */
export function labelValueError(value: string): string | undefined {
  if (value.length > MAX_LABEL_LENGTH) {
    return `must be no more than ${MAX_LABEL_LENGTH} characters`;
  }
  if (!matchesLabelValue(value)) {
    return `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '${LABEL_VALUE_PATTERN}')`;
  }
  return undefined;
}

export function validateMetadata(
  resource: ResourceType,
  object: KubeObject,
  creating: boolean,
): StatusCause[] {
  const causes: StatusCause[] = [];
  const meta = object.metadata;
  if (creating) {
    const name = meta.name ?? "";
    if (name === "") {
      causes.push(
        requiredCause("metadata.name", "name or generateName is required"),
      );
    } else {
      const errors = resource.kind === "Namespace"
        ? dns1123LabelErrors(name)
        : dns1123SubdomainErrors(name);
      for (const e of errors) {
        causes.push(invalidCause("metadata.name", name, e));
      }
    }
    if (resource.namespaced) {
      const namespace = meta.namespace ?? "";
      for (const e of dns1123LabelErrors(namespace)) {
        causes.push(invalidCause("metadata.namespace", namespace, e));
      }
    }
  }
  for (const [key, value] of Object.entries(meta.labels ?? {})) {
    const keyError = qualifiedNameError(key);
    if (keyError) causes.push(invalidCause("metadata.labels", key, keyError));
    const valueError = labelValueError(value);
    if (valueError) {
      causes.push(invalidCause("metadata.labels", value, valueError));
    }
  }
  let annotationBytes = 0;
  for (const [key, value] of Object.entries(meta.annotations ?? {})) {
    const keyError = qualifiedNameError(key.toLowerCase());
    if (keyError) {
      causes.push(invalidCause("metadata.annotations", key, keyError));
    }
    annotationBytes += key.length + value.length;
  }
  if (annotationBytes > 256 * 1024) {
    causes.push({
      reason: "FieldValueTooLong",
      message: "Too long: may not be more than 262144 bytes",
      field: "metadata.annotations",
    });
  }
  return [...causes, ...(resource.validate?.(object) ?? [])];
}
