/**
 * CustomResourceDefinitions: the CRD kind's own rules, the resource types a
 * CRD serves (added, replaced and removed as CRDs come and go), and what the
 * server does to a custom object of a version with a schema: prune, default
 * and validate it (see schema_validation.ts), with `unknown field` warnings
 * or, under `fieldValidation=Strict`, a 400.
 */

import { formatKubernetesTime } from "../domain/timestamps.ts";
import { deepEqual, isRecord, valueAt } from "./json.ts";
import type { JsonSchema } from "./schema.ts";
import {
  applyDefaults,
  pruneNonNullableNulls,
  pruneUnknownFields,
} from "./schema_pruning.ts";
import { structuralSchemaErrors, validateObject } from "./schema_validation.ts";
import type { RequestContext, State } from "./state.ts";
import { badRequest, invalidCause, requiredCause, toCause } from "./status.ts";
import type { StoreEvent } from "./store.ts";
import type { KubeObject, ResourceType, StatusCause } from "./types.ts";

/**
 * A CustomResourceDefinition's own rules (a subset of apiextensions
 * validation): names, scope, exactly one storage version, a structural
 * schema for every version.
 */
function validateCrd(object: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = isRecord(object.spec) ? object.spec : {};
  const names = isRecord(spec.names) ? spec.names : {};
  const group = typeof spec.group === "string" ? spec.group : "";
  const plural = typeof names.plural === "string" ? names.plural : "";
  if (group === "") causes.push(requiredCause("spec.group", ""));
  if (plural === "") causes.push(requiredCause("spec.names.plural", ""));
  if (typeof names.kind !== "string" || names.kind === "") {
    causes.push(requiredCause("spec.names.kind", ""));
  }
  const name = object.metadata.name ?? "";
  if (group !== "" && plural !== "" && name !== `${plural}.${group}`) {
    causes.push(
      invalidCause(
        "metadata.name",
        name,
        'must be spec.names.plural+"."+spec.group',
      ),
    );
  }
  if (spec.scope !== "Namespaced" && spec.scope !== "Cluster") {
    causes.push(
      toCause({
        type: "FieldValueNotSupported",
        field: "spec.scope",
        value: spec.scope ?? "",
        detail: 'supported values: "Cluster", "Namespaced"',
      }),
    );
  }
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  if (versions.length === 0) {
    causes.push(
      requiredCause(
        "spec.versions",
        "must have exactly one version marked as storage version",
      ),
    );
    return causes;
  }
  const storage = versions.filter((v) => isRecord(v) && v.storage === true);
  if (storage.length !== 1) {
    causes.push({
      reason: "FieldValueInvalid",
      message:
        'Invalid value: "": must have exactly one version marked as storage version',
      field: "spec.versions",
    });
  }
  versions.forEach((version, i) => {
    const path = `spec.versions[${i}]`;
    if (
      !isRecord(version) || typeof version.name !== "string" ||
      version.name === ""
    ) {
      causes.push(requiredCause(`${path}.name`, ""));
      return;
    }
    const schema = isRecord(version.schema)
      ? version.schema.openAPIV3Schema
      : undefined;
    if (schema === undefined) {
      causes.push(
        requiredCause(`${path}.schema.openAPIV3Schema`, "schemas are required"),
      );
      return;
    }
    causes.push(
      ...structuralSchemaErrors(schema, `${path}.schema.openAPIV3Schema`).map(
        toCause,
      ),
    );
  });
  return causes;
}

/** Server-set parts of a new CRD: defaulted names, conversion, status. */
function prepareCrd(object: KubeObject): void {
  const spec = object.spec as Record<string, unknown>;
  const names = spec.names as Record<string, unknown>;
  const kind = String(names.kind);
  names.singular ??= kind.toLowerCase();
  names.listKind ??= `${kind}List`;
  spec.conversion ??= { strategy: "None" };
  const now = formatKubernetesTime();
  const versions = spec.versions as Record<string, unknown>[];
  object.status = {
    acceptedNames: structuredClone(names),
    conditions: [
      {
        type: "NamesAccepted",
        status: "True",
        lastTransitionTime: now,
        reason: "NoConflicts",
        message: "no conflicts found",
      },
      {
        type: "Established",
        status: "True",
        lastTransitionTime: now,
        reason: "InitialNamesAccepted",
        message: "the initial names have been accepted",
      },
    ],
    storedVersions: versions.filter((v) => v.storage === true).map((v) =>
      v.name
    ),
  };
}

export const CUSTOM_RESOURCE_DEFINITION: ResourceType = {
  group: "apiextensions.k8s.io",
  version: "v1",
  kind: "CustomResourceDefinition",
  plural: "customresourcedefinitions",
  singular: "customresourcedefinition",
  namespaced: false,
  shortNames: ["crd", "crds"],
  categories: ["api-extensions"],
  subresources: ["status"],
  validate: validateCrd,
  prepareForCreate: prepareCrd,
};

export function isCrdResource(resource: ResourceType): boolean {
  return resource.group === CUSTOM_RESOURCE_DEFINITION.group &&
    resource.plural === CUSTOM_RESOURCE_DEFINITION.plural;
}

/** The resource types one CRD serves: one per served version. */
function resourcesOfCrd(crd: KubeObject): ResourceType[] {
  const spec = crd.spec as Record<string, unknown>;
  const names = spec.names as Record<string, unknown>;
  const group = String(spec.group);
  const kind = String(names.kind);
  const strings = (value: unknown) =>
    Array.isArray(value) ? value.filter((v) => typeof v === "string") : [];
  return (spec.versions as Record<string, unknown>[])
    .filter((version) => version.served !== false)
    .map((version) => {
      const schema = isRecord(version.schema)
        ? version.schema.openAPIV3Schema as JsonSchema
        : undefined;
      const subresources = isRecord(version.subresources)
        ? version.subresources
        : {};
      const shortNames = strings(names.shortNames);
      const categories = strings(names.categories);
      return {
        group,
        version: String(version.name),
        kind,
        plural: String(names.plural),
        singular: String(names.singular ?? kind.toLowerCase()),
        namespaced: spec.scope === "Namespaced",
        ...(shortNames.length > 0 ? { shortNames } : {}),
        ...(categories.length > 0 ? { categories } : {}),
        custom: true,
        subresources: isRecord(subresources.status) ? ["status" as const] : [],
        ...(schema ? { schema: structuredClone(schema) } : {}),
        ...(version.deprecated === true
          ? {
            deprecationWarning: typeof version.deprecationWarning === "string"
              ? version.deprecationWarning
              : `${group}/${version.name} ${kind} is deprecated`,
          }
          : {}),
        definedBy: crd.metadata.name,
      };
    });
}

/**
 * What the server's decoder does to a custom object of a version with a
 * schema: prunes unknown fields (warning about them, or refusing them under
 * fieldValidation=Strict), drops nulls the schema does not allow, applies
 * defaults.
 */
export function decodeCustomObject(
  resource: ResourceType,
  object: KubeObject,
  context: RequestContext,
): void {
  const schema = resource.schema;
  if (!schema) return;
  const pruned = pruneUnknownFields(object, schema);
  if (pruned.length > 0 && context.fieldValidation === "Strict") {
    throw badRequest(
      `${resource.kind} in version "${resource.version}" cannot be handled as a ${resource.kind}: strict decoding error: ${
        pruned.map((path) => `unknown field "${path}"`).join(", ")
      }`,
    );
  }
  if (context.fieldValidation === "Warn") {
    context.warnings.push(...pruned.map((path) => `unknown field "${path}"`));
  }
  pruneNonNullableNulls(object, schema);
  applyDefaults(object, schema);
}

/**
 * Schema causes of a custom object. On update, errors on values the update
 * did not change are dropped (CRD validation ratcheting, on by default since
 * Kubernetes 1.30), so objects written before a stricter CRD stay writable.
 */
export function schemaCauses(
  resource: ResourceType,
  object: KubeObject,
  old?: KubeObject,
): StatusCause[] {
  if (!resource.schema) return [];
  let errors = validateObject(object, resource.schema, old);
  if (old) {
    errors = errors.filter((error) =>
      error.field === "<nil>" ||
      !deepEqual(valueAt(object, error.field), valueAt(old, error.field))
    );
  }
  return errors.map(toCause);
}

function crdKey(resource: ResourceType): string {
  return `${resource.group}/${resource.version}/${resource.plural}`;
}

/** Adds, replaces or removes the resource types a CRD serves. */
export function syncCrd(state: State, event: StoreEvent): void {
  const name = event.object.metadata.name;
  // Entries of this CRD go; what they shadowed comes back.
  state.resources = state.resources.filter((r) => r.definedBy !== name);
  for (const [key, shadowed] of [...state.shadowed]) {
    if (
      shadowed.definedBy === undefined &&
      !state.resources.some((r) => crdKey(r) === key)
    ) {
      state.resources.push(shadowed);
      state.shadowed.delete(key);
    }
  }
  if (event.type === "DELETED" || event.object.metadata.deletionTimestamp) {
    return;
  }
  const served = resourcesOfCrd(event.object);
  for (const added of served) {
    const index = state.resources.findIndex((r) => crdKey(r) === crdKey(added));
    if (index >= 0) {
      state.shadowed.set(crdKey(added), state.resources[index]);
      state.resources[index] = added;
    } else {
      state.resources.push(added);
    }
  }
  if (event.type === "ADDED") {
    state.logger?.info("Installed custom resource definition", {
      name,
      versions: served.map((r) => r.version),
    });
  }
}
