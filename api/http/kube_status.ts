/**
 * The error answers of the Kubernetes-shaped routes (ray_objects.ts,
 * kube_events.ts): a `Status` body as the Kubernetes API server writes it,
 * so that a client written against the CRDs (client-go, the Python
 * client's ApiException, kubectl) reads Corral's refusals as it reads the
 * API server's. The status is the one every other answer of Corral's
 * would have (errorStatus), but for INVALID_ARGUMENT naming fields, which
 * is Kubernetes' 422 Invalid with those fields as its causes; the headers
 * (WWW-Authenticate, Retry-After, x-request-id) are errorAnswer's. The
 * message is Corral's own: it says what was refused and why.
 */
import { Code, type ServiceError } from "../../domain/errors.ts";
import {
  errorAnswer,
  type ErrorAnswerOptions,
  retryAfterSeconds,
} from "./error_answers.ts";

/** What a Status names of the object a call was about. */
export interface StatusTarget {
  /** The API group: "ray.io". */
  group: string;
  /** The resource's plural, as the API server says it: "rayclusters". */
  kind: string;
  name?: string;
}

/** A cause of a 422: one field and what is wrong with it. */
interface StatusCause {
  reason: string;
  message: string;
  field: string;
}

/** meta/v1 Status, as a failure. */
export interface StatusBody {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure";
  message: string;
  reason: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: StatusCause[];
    retryAfterSeconds?: number;
  };
  code: number;
}

/** The StatusReason of each status the routes answer (metav1.StatusReason). */
const REASONS: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  409: "Conflict",
  410: "Expired",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

/** The Status of `error`, about `target` when the call named one. */
export function statusOf(
  error: ServiceError,
  status: number,
  target?: StatusTarget,
): StatusBody {
  const violations = error.fieldViolations;
  const invalid = error.code === Code.INVALID_ARGUMENT &&
    violations.length > 0 && status === 400;
  const code = invalid ? 422 : status;
  const reason = code === 409 && error.code === Code.ALREADY_EXISTS
    ? "AlreadyExists"
    : REASONS[code] ?? (code >= 500 ? "InternalError" : "BadRequest");
  const retryAfter = retryAfterSeconds(error);
  const details = {
    ...(target?.name ? { name: target.name } : {}),
    ...(target ? { group: target.group, kind: target.kind } : {}),
    ...(invalid
      ? {
        causes: violations.map((v) => ({
          reason: "FieldValueInvalid",
          message: v.description,
          field: v.field,
        })),
      }
      : {}),
    ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}),
  };
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: error.message,
    reason,
    ...(Object.keys(details).length > 0 ? { details } : {}),
    code,
  };
}

/** The answer to `error` with a Status body. */
export function statusResponse(
  error: ServiceError,
  options: ErrorAnswerOptions & { target?: StatusTarget } = {},
): Response {
  const { status, headers } = errorAnswer(error, options);
  const body = statusOf(error, status, options.target);
  const response = new Response(JSON.stringify(body), { status: body.code });
  response.headers.set("content-type", "application/json");
  for (const name in headers) response.headers.set(name, headers[name]);
  return response;
}
