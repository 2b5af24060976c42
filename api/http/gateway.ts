/**
 * The HTTP/JSON gateway: a pure `(HttpRequest) => Promise<Response>` function
 * whose routes are compiled from the proto's google.api.http rules. Each
 * call goes to the dispatcher, with its request decoded
 * (request_decoding.ts) once the caller is authenticated; its answer is a
 * JSON body (json_answers.ts), a stream (stream_answers.ts) or an error
 * (error_answers.ts).
 */
import type { Message } from "../../domain/message_form.ts";
import { messageToJson } from "../../domain/codec.ts";
import { messageToGatewayJson } from "../../domain/kuberay_json.ts";
import { Code, ServiceError } from "../../domain/errors.ts";
import { isKept } from "../../domain/kept.ts";
import type { Logger } from "../../domain/log.ts";
import type { Call, Dispatcher } from "../service/dispatcher.ts";
import type { ApiSchema } from "../schema.ts";
import { asServiceError } from "../errors.ts";
import { errorResponse } from "./error_answers.ts";
import { jsonAnswer } from "./json_answers.ts";
import { KeptEncodings } from "./kept_encodings.ts";
import {
  contentTypeRefusal,
  type DecodeOptions,
  decodeRequest,
  pathOnlyRequest,
} from "./request_decoding.ts";
import { httpCall } from "./http_call.ts";
import { createRouter, type Endpoint, type Router } from "./router.ts";
import { compileRoutes, matchRoute, type Route } from "./rules.ts";
import { streamResponse } from "./stream_answers.ts";
import type { HttpRequest } from "./http_request.ts";
import { DEFAULT_MAX_BODY_BYTES } from "../transport_limits.ts";

export interface GatewayOptions {
  schema: ApiSchema;
  /** The compiled http rules of `schema`, when the caller has them. */
  routes?: Route[];
  dispatcher: Dispatcher;
  /** Request bodies larger than this are refused with 413; 3 MiB by default. */
  maxBodyBytes?: number;
  /**
   * JSON as KubeRay's API server speaks it (--kuberay-json): answers with
   * enums as numbers and no unpopulated fields, and request fields the API
   * does not know dropped with a warning in `log` instead of refused.
   */
  kuberayJson?: { log: Logger };
}

/**
 * The router over the http rules' routes: HEAD, 404 and 405 are the
 * router's; what the gateway adds is the request id on every answer and the
 * count of the requests no route takes.
 */
export type Gateway = Router;

export function createGateway(options: GatewayOptions): Gateway {
  return createRouter({
    endpoints: gatewayEndpoints(options),
    refuse: (request, error, allow) =>
      refuseRequest(options.dispatcher, request, error, allow),
  });
}

/**
 * The routes of the http rules as the router's endpoints, for a route
 * table of which they are a part (api/mod.ts).
 */
export function gatewayEndpoints(options: GatewayOptions): Endpoint[] {
  const routes = options.routes ?? compileRoutes(options.schema.services);
  const gateway: Parts = {
    dispatcher: options.dispatcher,
    kuberayJson: options.kuberayJson,
    encode: options.kuberayJson ? messageToGatewayJson : messageToJson,
    decoding: {
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      dropUnknown: options.kuberayJson !== undefined,
    },
    encodings: new KeptEncodings(),
  };
  return routes.map((route) => ({
    method: route.verb,
    shape: route.segments.map((segment) =>
      "literal" in segment ? segment.literal : undefined
    ),
    match: (parts) => matchRoute(route, parts),
    handle: (request, params) => callRoute(gateway, route, params, request),
  }));
}

/** What one gateway's calls share. */
interface Parts {
  dispatcher: Dispatcher;
  kuberayJson: { log: Logger } | undefined;
  /** The JSON of a message, in the gateway's dialect. */
  encode: (type: Route["responseType"], message: Message) => unknown;
  decoding: DecodeOptions;
  encodings: KeptEncodings;
}

/** A call of `route`: dispatched, and its outcome answered. */
async function callRoute(
  gateway: Parts,
  route: Route,
  params: Record<string, string>,
  request: HttpRequest,
): Promise<Response> {
  const call: Call = {
    ...httpCall(request, route.key, `${route.verb} ${route.template}`),
    authorization: request.headers.get("authorization") ?? undefined,
    target: { namespace: params.namespace, name: params.name },
  };
  const { requestId } = call;
  // A body that is not JSON never reaches the chain (request_decoding.ts
  // says why): refused, and recorded, before anyone is authenticated.
  const unsupported = contentTypeRefusal(request);
  if (unsupported) {
    await request.body?.cancel();
    gateway.dispatcher.reject(call, unsupported, performance.now());
    return errorResponse(unsupported, { requestId });
  }
  // Decoded once the caller is authenticated: a caller without
  // credentials learns nothing of what the body should hold.
  const decode = () => decodeCall(gateway, route, params, request, requestId);
  const { result, stream, error } = await gateway.dispatcher.invoke(
    call,
    decode,
    request.signal,
  );
  if (error) return errorResponse(error, { requestId });
  if (stream) {
    return streamResponse(
      stream,
      (message) => gateway.encode(route.responseType, message),
      request,
      requestId,
      gateway.encodings,
      gateway.dispatcher.log.with({ requestId, rpc: route.key }),
    );
  }
  // A kept answer (a cached cluster, a whole cached list) keeps its body
  // with it, and its compressed form, made once for every client that
  // takes it; any other is made for this request alone. One that cannot
  // be encoded (or compressed) is INTERNAL, not a reset connection.
  try {
    return await jsonAnswer(
      gateway.encode(route.responseType, result!),
      isKept(result),
      request,
      requestId,
      gateway.encodings,
    );
  } catch (thrown) {
    gateway.dispatcher.log.error("Failed to encode response", {
      requestId,
      rpc: route.key,
      cause: String(thrown),
    });
    return errorResponse(asServiceError(thrown), { requestId });
  }
}

/**
 * The request message of a call; a request that does not decode is
 * INVALID_ARGUMENT. Fields dropped as unknown (--kuberay-json) are logged.
 */
function decodeCall(
  gateway: Parts,
  route: Route,
  params: Record<string, string>,
  request: HttpRequest,
  requestId: string,
): Message | Promise<Message> {
  const plain = pathOnlyRequest(route, params, request);
  if (plain) return resumedFrom(route, plain, request);
  return decodeInFull(gateway, route, params, request, requestId);
}

async function decodeInFull(
  gateway: Parts,
  route: Route,
  params: Record<string, string>,
  request: HttpRequest,
  requestId: string,
): Promise<Message> {
  try {
    const { message, unknown } = await decodeRequest(
      route,
      params,
      request,
      gateway.decoding,
    );
    resumedFrom(route, message, request);
    if (unknown.length > 0) {
      gateway.kuberayJson?.log.warn(
        "request fields unknown to the API dropped",
        {
          requestId,
          method: route.key,
          fields: unknown.map((violation) => violation.field),
        },
      );
    }
    return message;
  } catch (thrown) {
    throw thrown instanceof ServiceError
      ? thrown
      : new ServiceError(Code.INVALID_ARGUMENT, "Invalid request", {
        cause: thrown,
      });
  }
}

/**
 * A request no route takes (404, 405 with `allow`, a path that does not
 * decode, one the browser checks refuse): counted and logged like any
 * call, under no route, and answered with its error.
 */
export function refuseRequest(
  dispatcher: Dispatcher,
  request: HttpRequest,
  error: ServiceError,
  allow?: string,
): Response {
  // The path is the caller's, cut short.
  const { pathname } = new URL(request.url);
  const call = httpCall(
    request,
    `${request.method.slice(0, 16)} ${pathname.slice(0, 256)}`,
    "unmatched",
  );
  dispatcher.reject(call, error, performance.now());
  return errorResponse(error, { requestId: call.requestId, allow });
}

/**
 * `message`, resumed where a browser's EventSource left off: it resumes a
 * stream with the id of the last event it had.
 */
function resumedFrom(
  route: Route,
  message: Message,
  request: HttpRequest,
): Message {
  if (!route.streaming) return message;
  const lastEventId = request.headers.get("last-event-id");
  if (
    lastEventId !== null && "resourceVersion" in message &&
    message.resourceVersion === ""
  ) {
    message.resourceVersion = lastEventId;
  }
  return message;
}
