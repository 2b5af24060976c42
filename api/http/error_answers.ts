/**
 * Every error answer of the HTTP port, made by one function (errorAnswer):
 * the router's 404, 405 and 400, the gateway's, the listener's own refusals
 * and the pages' 401. The status comes from the error (errorStatus: the
 * gRPC code's, or an HttpError's own), the body is `{code, message,
 * details}`, and the headers follow from the error and what the caller
 * knows of the request:
 *
 * - `x-request-id`: the request's id, where there is one (the gateway's);
 * - `WWW-Authenticate: Bearer realm="corral"` on a 401 (code 16), as
 *   RFC 6750 has a 401 name the scheme the caller should use;
 * - `Retry-After`: the seconds the error's RetryInfo says (the Kubernetes
 *   API server's own Retry-After), or those the caller gives (the
 *   listener's 429 to a body over the in-flight budget);
 * - `Allow` on a 405: the methods the path serves.
 *
 * The same answer goes out in three forms: a Response (router, gateway,
 * pages), written on a node:http ServerResponse (the listener, before the
 * handler runs), or a whole HTTP/1.1 message for a bare socket (the
 * listener, where node:http has no ServerResponse to give).
 */
import type http from "node:http";
import { STATUS_CODES } from "node:http";
import { Code, type ServiceError } from "../../domain/errors.ts";
import { errorBody, errorStatus } from "../errors.ts";

export interface ErrorAnswerOptions {
  /** The request's id (newRequestId()), sent back as x-request-id. */
  requestId?: string;
  /** A 405's Allow: the methods the path serves, comma-separated. */
  allow?: string;
  /** Seconds for Retry-After, where the error's RetryInfo gives none. */
  retryAfter?: string;
}

export interface ErrorAnswer {
  status: number;
  /** Headers besides Content-Type (always application/json), in order. */
  headers: Record<string, string>;
  /** The JSON error body. */
  body: string;
}

/** The error answer to `error`: its status, headers and body. */
export function errorAnswer(
  error: ServiceError,
  options: ErrorAnswerOptions = {},
): ErrorAnswer {
  const headers: Record<string, string> = {};
  if (options.allow !== undefined) headers.allow = options.allow;
  const seconds = retryAfterSeconds(error);
  const retryAfter = seconds !== undefined
    ? String(seconds)
    : options.retryAfter;
  if (retryAfter !== undefined) headers["retry-after"] = retryAfter;
  if (error.code === Code.UNAUTHENTICATED) {
    headers["www-authenticate"] = BEARER_CHALLENGE;
  }
  if (options.requestId !== undefined) {
    headers["x-request-id"] = options.requestId;
  }
  return {
    status: errorStatus(error),
    headers,
    body: JSON.stringify(errorBody(error)),
  };
}

/** The challenge of a 401: the scheme and realm of Corral's credentials. */
const BEARER_CHALLENGE = 'Bearer realm="corral"';

/** The error answer to `error` as a Response. */
export function errorResponse(
  error: ServiceError,
  options?: ErrorAnswerOptions,
): Response {
  const { status, headers, body } = errorAnswer(error, options);
  // Headers set on the Response rather than given in its init, which
  // copies them into native headers at nine times the cost (answers.ts).
  const response = new Response(body, { status });
  response.headers.set("content-type", "application/json");
  for (const name in headers) response.headers.set(name, headers[name]);
  return response;
}

/**
 * Writes the error answer to `error` on `res`, whose headers are not sent
 * yet (Connection is the listener's to set before).
 */
export function writeErrorAnswer(
  res: http.ServerResponse,
  error: ServiceError,
  options?: ErrorAnswerOptions,
): void {
  const { status, headers, body } = errorAnswer(error, options);
  res.statusCode = status;
  res.setHeader("content-type", "application/json");
  for (const name in headers) res.setHeader(name, headers[name]);
  res.end(body);
}

/**
 * The error answer to `error` as a whole HTTP/1.1 message, to write to a
 * socket where there is no ServerResponse; the connection closes after it.
 */
export function rawErrorAnswer(
  error: ServiceError,
  options?: ErrorAnswerOptions,
): string {
  const { status, headers, body } = errorAnswer(error, options);
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}`,
    "content-type: application/json",
    `content-length: ${encoder.encode(body).byteLength}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    "connection: close",
    "",
    body,
  ].join("\r\n");
}

const encoder = new TextEncoder();

/**
 * The seconds of the error's RetryInfo (the Retry-After Kubernetes gave),
 * rounded up; undefined without one. The Retry-After header says it, and
 * a Kubernetes Status its retryAfterSeconds (kube_status.ts).
 */
export function retryAfterSeconds(error: ServiceError): number | undefined {
  for (const detail of error.details) {
    if (detail["@type"] === "type.googleapis.com/google.rpc.RetryInfo") {
      const seconds = Math.ceil(parseFloat(detail.retryDelay));
      if (seconds > 0) return seconds;
    }
  }
  return undefined;
}
