/**
 * From service errors to the wire: the HTTP status of each code (as
 * grpc-gateway maps it) and the `{code, message, details}` body.
 */
import { Code, ServiceError } from "../domain/errors.ts";

/** The HTTP status grpc-gateway answers for a gRPC code. */
export function httpStatus(code: Code): number {
  switch (code) {
    case Code.OK:
      return 200;
    case Code.CANCELLED:
      return 499;
    case Code.INVALID_ARGUMENT:
    case Code.FAILED_PRECONDITION:
    case Code.OUT_OF_RANGE:
      return 400;
    case Code.DEADLINE_EXCEEDED:
      return 504;
    case Code.NOT_FOUND:
      return 404;
    case Code.ALREADY_EXISTS:
    case Code.ABORTED:
      return 409;
    case Code.PERMISSION_DENIED:
      return 403;
    case Code.UNAUTHENTICATED:
      return 401;
    case Code.RESOURCE_EXHAUSTED:
      return 429;
    case Code.UNIMPLEMENTED:
      return 501;
    case Code.UNAVAILABLE:
      return 503;
    case Code.UNKNOWN:
    case Code.INTERNAL:
    case Code.DATA_LOSS:
      return 500;
  }
}

/**
 * An error of the HTTP layer itself, whose HTTP status is not the one of its
 * code: 405 for a method the path does not serve (code 12, otherwise 501),
 * 413 and 431 for a body or request head over the limit (code 8, otherwise
 * 429), 414 for a URL over the limit (code 3, otherwise 400).
 */
export class HttpError extends ServiceError {
  constructor(
    readonly status: number,
    code: Code,
    message: string,
  ) {
    super(code, message);
  }
}

/** The HTTP status an error is answered with. */
export function errorStatus(error: ServiceError): number {
  return error instanceof HttpError ? error.status : httpStatus(error.code);
}

/**
 * Any thrown value as a ServiceError. Anything that is not one already is a
 * bug: it becomes INTERNAL with a generic message, the original kept as the
 * cause for the log only.
 */
export function asServiceError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  return new ServiceError(Code.INTERNAL, "Internal error", { cause: error });
}

export interface ErrorBody {
  code: number;
  message: string;
  details?: unknown[];
}

/** The error body; `details` only when there are any. */
export function errorBody(error: ServiceError): ErrorBody {
  const body: ErrorBody = { code: error.code, message: error.message };
  if (error.details.length > 0) body.details = error.details;
  return body;
}

/**
 * The cause chain of an error, for the log (never for the wire). A
 * Kubernetes client error is cut to its status code and the Status message:
 * its own message dumps the response headers.
 */
export function describeCause(error: unknown): string | undefined {
  const parts: string[] = [];
  let current = error instanceof ServiceError ? error.cause : error;
  for (let depth = 0; current !== undefined && depth < 5; depth++) {
    const api = apiException(current);
    if (api) {
      parts.push(api);
      break;
    }
    if (current instanceof Error) {
      parts.push(`${current.name}: ${current.message.split("\n")[0]}`);
      current = current.cause;
    } else {
      parts.push(String(current).slice(0, 200));
      break;
    }
  }
  return parts.length ? parts.join(" <- ") : undefined;
}

/** client-node's ApiException: `code` and a `body` holding a Status. */
function apiException(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { code, body } = error as { code?: unknown; body?: unknown };
  if (typeof code !== "number" || body === undefined) return undefined;
  let message: unknown = body;
  try {
    const status = typeof body === "string" ? JSON.parse(body) : body;
    message = (status as { message?: unknown }).message ?? body;
  } catch {
    // not JSON: the body itself, shortened
  }
  return `Kubernetes API answered ${code}: ${String(message).slice(0, 200)}`;
}
