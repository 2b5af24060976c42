/**
 * The answers the HTTP listener gives itself, for the requests it cannot
 * hand to its handler: what node:http's parser refuses (a request line or
 * header that is not HTTP/1.1, a method the parser does not know, a request
 * head over the limit), the methods `Request` refuses (CONNECT, TRACE,
 * TRACK), a URL over the limit, an HTTP/1.1 request without Host, and a body
 * past the in-flight budget. Each is an error and the headers it needs; the
 * answer itself is written by error_answers.ts.
 */
import type http from "node:http";
import { Code, ServiceError } from "../../domain/errors.ts";
import { HttpError } from "../errors.ts";
import type { ErrorAnswerOptions } from "./error_answers.ts";
import type { Router } from "./router.ts";

/** An answer the listener gives itself: the error, and Allow on a 405. */
export interface Refusal extends ErrorAnswerOptions {
  error: ServiceError;
}

/** The methods the router serves at a path (its `allowed`). */
export type AllowedMethods = Router["allowed"];

/** node:http's parse error, as its clientError event gives it. */
export type ParseError = Error & {
  code?: string;
  bytesParsed?: number;
  rawPacket?: unknown;
};

/** Methods `new Request()` refuses (fetch's forbidden methods). */
const FORBIDDEN_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);

/** method SP request-target SP HTTP-version CRLF (RFC 9112, 3). */
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+) HTTP\/\d\.\d\r\n/;

/**
 * What a request that node:http parsed gets before its handler is called,
 * if it cannot have one: a URL over `maxUrlBytes`, an HTTP/1.1 request
 * without Host, a method `Request` refuses.
 */
export function refusalBeforeHandler(
  req: http.IncomingMessage,
  maxUrlBytes: number,
  allowed: AllowedMethods | undefined,
): Refusal | undefined {
  const target = req.url ?? "/";
  const method = req.method ?? "GET";
  if (target.length > maxUrlBytes) {
    return {
      error: new HttpError(414, Code.INVALID_ARGUMENT, "Request URL too long"),
    };
  }
  if (req.httpVersion === "1.1" && req.headers.host === undefined) {
    return invalid("Invalid request: HTTP/1.1 needs a Host header");
  }
  if (FORBIDDEN_METHODS.has(method)) {
    return methodRefusal(method, target, allowed);
  }
  return undefined;
}

/** What a request node:http's parser refused gets. */
export function parseRefusal(
  error: ParseError,
  maxHeaderBytes: number,
  allowed: AllowedMethods | undefined,
): Refusal {
  if (error.code === "HPE_HEADER_OVERFLOW") {
    // Code 8, as for a body over the limit (413) and as gRPC answers
    // metadata over its limit: the request is not wrong, only too large
    // for this server, and the same call with a smaller head would work.
    return {
      error: new HttpError(
        431,
        Code.RESOURCE_EXHAUSTED,
        `Request headers too large: the limit is ${maxHeaderBytes} bytes`,
      ),
    };
  }
  // llhttp knows a fixed list of methods; another one fails within its
  // first token, in a request line that is otherwise well formed.
  const line = REQUEST_LINE.exec(String(error.rawPacket ?? ""));
  if (
    line &&
    (error.code === "HPE_INVALID_METHOD" ||
      (error.bytesParsed ?? Infinity) < line[1].length)
  ) {
    return methodRefusal(line[1], line[2], allowed);
  }
  return invalid(
    `Invalid request: not HTTP/1.1 (${error.code ?? "parse error"})`,
  );
}

/**
 * A method the listener cannot hand to the router (unknown to the parser,
 * or one `Request` refuses: CONNECT, TRACE, TRACK): what the router would
 * answer, 405 with Allow or 404, when it says what the path serves.
 */
export function methodRefusal(
  method: string,
  target = "",
  allowed?: AllowedMethods,
): Refusal {
  const methods = target.startsWith("/") && allowed
    ? allowed(target.split(/[?#]/)[0])
    : undefined;
  if (methods && methods.length === 0) {
    return { error: new ServiceError(Code.NOT_FOUND, "Not Found") };
  }
  if (methods) {
    return {
      error: new HttpError(405, Code.UNIMPLEMENTED, "Method Not Allowed"),
      allow: methods.join(", "),
    };
  }
  // CONNECT's host:port names no resource of Corral's: 405, with an empty
  // Allow (RFC 9110: nothing is allowed there), as TRACE gets.
  if (FORBIDDEN_METHODS.has(method.toUpperCase())) {
    return {
      error: new HttpError(405, Code.UNIMPLEMENTED, "Method Not Allowed"),
      allow: "",
    };
  }
  // No router to ask: a method Corral serves nowhere.
  return {
    error: new ServiceError(
      Code.UNIMPLEMENTED,
      `Method ${JSON.stringify(method.slice(0, 32))} is not implemented`,
    ),
  };
}

/**
 * Too many request bodies on their way in: code 8, as for a body over the
 * limit, since the same request a moment later may well be taken.
 */
export function busy(): Refusal {
  return {
    error: new HttpError(
      429,
      Code.RESOURCE_EXHAUSTED,
      "Too many request bodies in flight: try again later",
    ),
    retryAfter: "1",
  };
}

/** A request that is not one: 400 code 3 with `message`. */
export function invalid(message: string): Refusal {
  return { error: new ServiceError(Code.INVALID_ARGUMENT, message) };
}
