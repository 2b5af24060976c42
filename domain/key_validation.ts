/**
 * Validation of the keys of existing objects (the namespace and name of a
 * cluster or compute template to get, delete or watch) and of the
 * namespace of a list.
 */
import { checkNamespace, objectNameProblems } from "./name_problems.ts";
import { Violations } from "./violations.ts";

/**
 * Validates the namespace and name of a cluster to get, delete or watch
 * (a watch of every namespace has no namespace).
 */
export const validateClusterKey = validateKey;

/** Validates the namespace of a list request. */
export function validateNamespace(namespace: string, action: string): void {
  const v = new Violations();
  checkNamespace(v, "namespace", namespace);
  v.throwIfAny(action);
}

/**
 * Keys of existing objects: any name Kubernetes accepts for the object (a
 * DNS-1123 subdomain), so objects other writers created stay reachable, and
 * nothing that could change the meaning of a Kubernetes API path.
 */
function validateKey(
  request: { namespace?: string; name: string },
  action: string,
): void {
  const v = new Violations();
  if (request.namespace !== undefined) {
    checkNamespace(v, "namespace", request.namespace);
  }
  if (request.name === "") {
    v.add("name", "is required");
  } else {
    v.addAll("name", objectNameProblems(request.name));
  }
  v.throwIfAny(action);
}

/** Validates the namespace and name of a compute template to get or delete. */
export function validateComputeTemplateKey(
  request: { namespace: string; name: string },
  action: string,
): void {
  validateKey(request, action);
}
