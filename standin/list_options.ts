/**
 * What lists and watches share: label and field selection, resourceVersion
 * parameters, and ListOptions validation with the real server's messages.
 */

import {
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  SelectorError,
} from "./selectors.ts";
import type { State } from "./state.ts";
import { badRequest, invalidOptions } from "./status.ts";
import type { KubeObject, ResourceType, StatusCause } from "./types.ts";

/** How long a too large resourceVersion is waited for (the watch cache's 3 s). */
export const TOO_LARGE_RESOURCE_VERSION_WAIT_MS = 3000;

/** The values of the selectable fields `labels` names (checked before). */
function selectableFields(
  resource: ResourceType,
  object: KubeObject,
  labels: readonly string[],
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const label of labels) {
    values[label] = resource.fields
      ? resource.fields[label](object) ?? ""
      : label === "metadata.name"
      ? object.metadata.name ?? ""
      : object.metadata.namespace ?? "";
  }
  return values;
}

export interface Selection {
  labels: ReturnType<typeof parseLabelSelector>;
  fields: ReturnType<typeof parseFieldSelector>;
  /** True when no selector narrows the list (the key range does). */
  everything: boolean;
  matches(object: KubeObject): boolean;
}

/** The label and field selectors of a list or watch, checked. */
export function readSelection(
  resource: ResourceType,
  namespace: string | undefined,
  params: URLSearchParams,
): Selection {
  let labels, fields;
  try {
    labels = parseLabelSelector(params.get("labelSelector") ?? "");
    fields = parseFieldSelector(params.get("fieldSelector") ?? "");
  } catch (error) {
    if (error instanceof SelectorError) throw badRequest(error.message);
    throw error;
  }
  for (const { field: label } of fields) {
    if (resource.fields) {
      if (!Object.hasOwn(resource.fields, label)) {
        throw badRequest(`field label not supported: ${label}`);
      }
    } else if (label !== "metadata.name" && label !== "metadata.namespace") {
      throw badRequest(
        `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
      );
    }
  }
  // Only the fields the selector names are read: a page of a large list
  // checks every object after its start.
  const named = fields.map(({ field }) => field);
  return {
    labels,
    fields,
    everything: labels.length === 0 && fields.length === 0,
    matches: (object) =>
      (namespace === undefined ||
        (object.metadata.namespace ?? "") === namespace) &&
      matchesLabels(labels, object.metadata.labels) &&
      matchesFields(fields, selectableFields(resource, object, named)),
  };
}

/** A resourceVersion parameter as a number (0 for "" and "0"). */
export function parseResourceVersion(value: string): number {
  if (value === "" || value === "0") return 0;
  if (!/^\d+$/.test(value)) {
    throw badRequest(
      `invalid resource version: resourceVersion: Invalid value: "${value}": strconv.ParseUint: parsing "${value}": invalid syntax`,
    );
  }
  return Number(value);
}

/** Resolves once the store reaches `revision`, or false after `ms`. */
export function waitForRevision(
  state: State,
  revision: number,
  ms: number,
): Promise<boolean> {
  if (state.store.revisionNumber >= revision) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      unsubscribe();
      resolve(false);
    }, ms);
    const unsubscribe = state.store.subscribe(() => {
      if (state.store.revisionNumber >= revision) {
        clearTimeout(timer);
        unsubscribe();
        resolve(true);
      }
    });
  });
}

function forbiddenOption(field: string, detail: string): StatusCause {
  return {
    reason: "FieldValueForbidden",
    message: `Forbidden: ${detail}`,
    field,
  };
}

function unsupportedOption(
  field: string,
  value: string,
  supported: string[],
): StatusCause {
  return {
    reason: "FieldValueNotSupported",
    message: `Unsupported value: "${value}": supported values: ${
      supported.map((v) => `"${v}"`).join(", ")
    }`,
    field,
  };
}

/** ListOptions validation (apimachinery internalversion/validation). */
export function checkListOptions(
  params: URLSearchParams,
  watching: boolean,
): string {
  const match = params.get("resourceVersionMatch") ?? "";
  const resourceVersion = params.get("resourceVersion") ?? "";
  const sendInitialEvents = params.get("sendInitialEvents");
  const continued = (params.get("continue") ?? "") !== "";
  const causes: StatusCause[] = [];
  if (watching) {
    if (sendInitialEvents !== null && match !== "NotOlderThan") {
      causes.push(forbiddenOption(
        "resourceVersionMatch",
        "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
      ));
    }
    if (match !== "") {
      if (sendInitialEvents === null) {
        causes.push(forbiddenOption(
          "resourceVersionMatch",
          "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
        ));
      }
      if (match !== "NotOlderThan") {
        causes.push(
          unsupportedOption("resourceVersionMatch", match, ["NotOlderThan"]),
        );
      }
      if (continued) {
        causes.push(forbiddenOption(
          "resourceVersionMatch",
          "resourceVersionMatch is forbidden when continue is provided",
        ));
      }
    }
  } else {
    if (match !== "") {
      if (resourceVersion === "") {
        causes.push(forbiddenOption(
          "resourceVersionMatch",
          "resourceVersionMatch is forbidden unless resourceVersion is provided",
        ));
      }
      if (continued) {
        causes.push(forbiddenOption(
          "resourceVersionMatch",
          "resourceVersionMatch is forbidden when continue is provided",
        ));
      }
      if (match !== "Exact" && match !== "NotOlderThan") {
        causes.push(
          unsupportedOption("resourceVersionMatch", match, [
            "Exact",
            "NotOlderThan",
            "",
          ]),
        );
      }
      if (match === "Exact" && resourceVersion === "0") {
        causes.push(forbiddenOption(
          "resourceVersionMatch",
          'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        ));
      }
    }
    if (sendInitialEvents !== null) {
      causes.push(
        forbiddenOption(
          "sendInitialEvents",
          "sendInitialEvents is forbidden for list",
        ),
      );
    }
  }
  if (causes.length > 0) throw invalidOptions(causes);
  return match;
}
