/**
 * Failures as the real server answers them: a `Status` body with its reason,
 * code, message and details (causes for 422 Invalid), thrown as StatusError
 * inside request handling and written once by the server.
 */

import { errorBody, type FieldError } from "./field_errors.ts";
import {
  qualifiedKind,
  qualifiedResource,
  type ResourceType,
  type StatusCause,
} from "./types.ts";

interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: Partial<StatusCause>[];
  retryAfterSeconds?: number;
}

interface StatusBody {
  kind: "Status";
  apiVersion: "v1";
  metadata: { continue?: string };
  status: "Failure" | "Success";
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/** A failure answered with a Status body; thrown inside request handling. */
export class StatusError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details?: StatusDetails;
  /** A continue token the client may resume with (expired lists). */
  readonly continueToken?: string;

  constructor(
    code: number,
    reason: string,
    message: string,
    details?: StatusDetails,
    continueToken?: string,
  ) {
    super(message);
    this.name = "StatusError";
    this.code = code;
    this.reason = reason;
    this.details = details;
    this.continueToken = continueToken;
  }

  toStatus(): StatusBody {
    return {
      kind: "Status",
      apiVersion: "v1",
      metadata: this.continueToken ? { continue: this.continueToken } : {},
      status: "Failure",
      message: this.message,
      reason: this.reason,
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

export function resourceDetails(
  resource: ResourceType,
  name: string,
): StatusDetails {
  return {
    name,
    ...(resource.group ? { group: resource.group } : {}),
    kind: resource.plural,
  };
}

export function notFound(resource: ResourceType, name: string): StatusError {
  return new StatusError(
    404,
    "NotFound",
    `${qualifiedResource(resource)} "${name}" not found`,
    resourceDetails(resource, name),
  );
}

export function alreadyExists(
  resource: ResourceType,
  name: string,
): StatusError {
  return new StatusError(
    409,
    "AlreadyExists",
    `${qualifiedResource(resource)} "${name}" already exists`,
    resourceDetails(resource, name),
  );
}

export const MODIFIED =
  "the object has been modified; please apply your changes to the latest version and try again";

export function conflict(
  resource: ResourceType,
  name: string,
  detail: string,
): StatusError {
  return new StatusError(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${
      qualifiedResource(resource)
    } "${name}": ${detail}`,
    resourceDetails(resource, name),
  );
}

export function invalidCause(
  fieldPath: string,
  value: unknown,
  detail: string,
): StatusCause {
  const shown = typeof value === "string" ? `"${value}"` : String(value);
  return {
    reason: "FieldValueInvalid",
    message: `Invalid value: ${shown}: ${detail}`,
    field: fieldPath,
  };
}

export function requiredCause(fieldPath: string, detail: string): StatusCause {
  return {
    reason: "FieldValueRequired",
    message: detail ? `Required value: ${detail}` : "Required value",
    field: fieldPath,
  };
}

/** A field error of the schema modules (field_errors.ts) as a Status cause. */
export function toCause(error: FieldError): StatusCause {
  return { reason: error.type, message: errorBody(error), field: error.field };
}

export function invalid(
  resource: ResourceType,
  name: string,
  causes: StatusCause[],
): StatusError {
  // The message lists each distinct error once (field.ErrorList.ToAggregate).
  const listed = [...new Set(causes.map((c) => `${c.field}: ${c.message}`))];
  const summary = listed.length === 1 ? listed[0] : `[${listed.join(", ")}]`;
  return new StatusError(
    422,
    "Invalid",
    `${qualifiedKind(resource)} "${name}" is invalid: ${summary}`,
    {
      name,
      ...(resource.group ? { group: resource.group } : {}),
      kind: resource.kind,
      causes,
    },
  );
}

export function badRequest(message: string): StatusError {
  return new StatusError(400, "BadRequest", message);
}

/** 410 Gone, as a too old resourceVersion or continue token is answered. */
export function expired(message: string, continueToken?: string): StatusError {
  return new StatusError(410, "Expired", message, undefined, continueToken);
}

export const LIST_EXPIRED =
  "The resourceVersion for the provided list is too old.";

export const CONTINUE_EXPIRED =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

/** A resourceVersion the server has not reached (after waiting for it). */
export function tooLargeResourceVersion(
  wanted: number,
  current: number,
): StatusError {
  return new StatusError(
    504,
    "Timeout",
    `Too large resource version: ${wanted}, current: ${current}`,
    {
      causes: [{
        reason: "ResourceVersionTooLarge",
        message: "Too large resource version",
      }],
      retryAfterSeconds: 1,
    },
  );
}

/** An invalid list or watch option (ListOptions validation). */
export function invalidOptions(causes: StatusCause[]): StatusError {
  const listed = causes.map((c) => `${c.field}: ${c.message}`);
  return new StatusError(
    422,
    "Invalid",
    `ListOptions.meta.k8s.io "" is invalid: ${
      listed.length === 1 ? listed[0] : `[${listed.join(", ")}]`
    }`,
    { group: "meta.k8s.io", kind: "ListOptions", causes },
  );
}

export function unknownPath(): StatusError {
  return new StatusError(
    404,
    "NotFound",
    "the server could not find the requested resource",
    {},
  );
}

export function methodNotAllowed(): StatusError {
  return new StatusError(
    405,
    "MethodNotAllowed",
    "the server does not allow this method on the requested resource",
    {},
  );
}

export function unsupportedMediaType(accepted: string[]): StatusError {
  return new StatusError(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: ${
      accepted.join(", ")
    }`,
  );
}
