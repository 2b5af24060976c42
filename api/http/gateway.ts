/**
 * The HTTP/JSON gateway: a pure `(Request) => Promise<Response>` function
 * whose routes are compiled from the proto's google.api.http rules.
 */
import {
  type Message,
  messageFromJson,
  messageToJson,
} from "../../domain/codec.ts";
import {
  Code,
  type FieldViolation,
  invalidArgument,
  ServiceError,
} from "../../domain/errors.ts";
import type { Dispatcher } from "../service/dispatcher.ts";
import { errorBody, httpStatus } from "../errors.ts";
import { compileRoutes, matchRoute, type Route } from "./rules.ts";
import type { ApiSchema } from "../schema.ts";

export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;

export interface GatewayOptions {
  schema: ApiSchema;
  /** The compiled http rules of `schema`, when the caller has them. */
  routes?: Route[];
  dispatcher: Dispatcher;
  /** Request bodies larger than this are refused with 413; 3 MiB by default. */
  maxBodyBytes?: number;
}

export type Gateway = (request: Request) => Promise<Response>;

export function createGateway(options: GatewayOptions): Gateway {
  const routes = options.routes ?? compileRoutes(options.schema.services);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const { dispatcher } = options;

  return async function gateway(request: Request): Promise<Response> {
    const requestId = request.headers.get("x-request-id")?.slice(0, 128) ||
      crypto.randomUUID();
    const url = new URL(request.url);
    const found = findRoute(routes, url.pathname, request.method);
    if ("error" in found) {
      // Counted and logged like any call, under no route; the path is the
      // caller's, cut short.
      dispatcher.reject(
        {
          transport: "http",
          requestId,
          key: `${request.method.slice(0, 16)} ${url.pathname.slice(0, 256)}`,
          route: "unmatched",
        },
        found.error,
        performance.now(),
      );
      return errorResponse(found.error, requestId, found.headers);
    }
    const { route, params } = found;
    const call = {
      transport: "http" as const,
      requestId,
      key: route.key,
      route: `${route.verb} ${route.template}`,
    };
    const started = performance.now();
    let message: Message;
    try {
      message = await decodeRequest(route, params, url, request, maxBodyBytes);
    } catch (thrown) {
      const error = thrown instanceof ServiceError
        ? thrown
        : new ServiceError(Code.INVALID_ARGUMENT, "Invalid request", {
          cause: thrown,
        });
      dispatcher.reject(call, error, started);
      return errorResponse(error, requestId);
    }
    const { result, error } = await dispatcher.invoke(
      call,
      message,
      request.signal,
    );
    if (error) return errorResponse(error, requestId);
    return jsonResponse(
      200,
      messageToJson(route.responseType, result!),
      requestId,
    );
  };
}

/**
 * An error of the HTTP layer itself, whose HTTP status is not the one of its
 * code: 405 for a known path with another method (code 12, otherwise 501)
 * and 413 for an oversized body (code 8, otherwise 429).
 */
class HttpError extends ServiceError {
  constructor(
    readonly status: number,
    code: Code,
    message: string,
  ) {
    super(code, message);
  }
}

type Found =
  | { route: Route; params: Record<string, string> }
  | { error: ServiceError; headers?: HeadersInit };

function findRoute(routes: Route[], pathname: string, verb: string): Found {
  let parts: string[];
  try {
    parts = pathname.slice(1).split("/").map(decodeURIComponent);
  } catch {
    return {
      error: new ServiceError(
        Code.INVALID_ARGUMENT,
        "Invalid request path: malformed percent-encoding",
      ),
    };
  }
  const allowed: string[] = [];
  for (const route of routes) {
    const params = matchRoute(route, parts);
    if (!params) continue;
    if (route.verb === verb) return { route, params };
    allowed.push(route.verb);
  }
  if (allowed.length === 0) {
    return { error: new ServiceError(Code.NOT_FOUND, "Not Found") };
  }
  return {
    error: new HttpError(405, Code.UNIMPLEMENTED, "Method Not Allowed"),
    headers: { allow: [...new Set(allowed)].join(", ") },
  };
}

async function decodeRequest(
  route: Route,
  params: Record<string, string>,
  url: URL,
  request: Request,
  maxBodyBytes: number,
): Promise<Message> {
  const violations: FieldViolation[] = [];
  let message: Message;
  if (route.body) {
    // An empty body leaves the body field unset, as an empty gRPC message
    // would: "cluster: is required" on both transports.
    const json = await readJsonBody(request, maxBodyBytes);
    message = messageFromJson(
      route.requestType,
      route.body === "*" || json === undefined
        ? json ?? {}
        : { [route.body]: json },
      "",
      violations,
    );
  } else {
    message = messageFromJson(route.requestType, {}, "", violations);
    if (request.body) await request.body.cancel();
  }
  for (const key of new Set(url.searchParams.keys())) {
    violations.push({
      field: key,
      description: "unknown query parameter",
    });
  }
  if (violations.length > 0) {
    throw invalidArgument("Invalid request", violations);
  }
  return { ...message, ...params };
}

async function readJsonBody(
  request: Request,
  maxBodyBytes: number,
): Promise<unknown> {
  // Like the reference gateway (a JSON marshaler for every MIME type), the
  // body is JSON whatever Content-Type says: `curl -d` sends
  // application/x-www-form-urlencoded by default.
  const tooLarge = () =>
    new HttpError(
      413,
      Code.RESOURCE_EXHAUSTED,
      `Request body too large: the limit is ${maxBodyBytes} bytes`,
    );
  const declared = Number(request.headers.get("content-length"));
  if (declared > maxBodyBytes) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBodyBytes) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ServiceError(
      Code.INVALID_ARGUMENT,
      "Invalid request body: not UTF-8 text",
    );
  }
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ServiceError(
      Code.INVALID_ARGUMENT,
      `Invalid request body: not JSON: ${(error as Error).message}`,
    );
  }
}

function errorResponse(
  error: ServiceError,
  requestId: string,
  headers?: HeadersInit,
): Response {
  const status = error instanceof HttpError
    ? error.status
    : httpStatus(error.code);
  const response = jsonResponse(status, errorBody(error), requestId, headers);
  // The RetryInfo Kubernetes gave (its Retry-After), as HTTP clients read it.
  for (const detail of error.details) {
    if (detail["@type"] === "type.googleapis.com/google.rpc.RetryInfo") {
      const seconds = Math.ceil(parseFloat(detail.retryDelay));
      if (seconds > 0) response.headers.set("retry-after", String(seconds));
    }
  }
  return response;
}

function jsonResponse(
  status: number,
  body: unknown,
  requestId: string,
  headers?: HeadersInit,
): Response {
  const response = Response.json(body, { status, headers });
  response.headers.set("x-request-id", requestId);
  return response;
}
