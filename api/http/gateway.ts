/**
 * The HTTP/JSON gateway: a pure `(Request) => Promise<Response>` function
 * whose routes are compiled from the proto's google.api.http rules.
 */
import { gzip } from "node:zlib";
import { readLimitedBody } from "./body.ts";
import { acceptedEncodings } from "./encoding.ts";
import {
  isUnknownField,
  type Message,
  messageFromJson,
  messageToGatewayJson,
  messageToJson,
} from "../../domain/codec.ts";
import {
  Code,
  type FieldViolation,
  invalidArgument,
  ServiceError,
} from "../../domain/errors.ts";
import { isKept } from "../../domain/kept.ts";
import type { Dispatcher } from "../service/dispatcher.ts";
import type { Logger } from "../../domain/log.ts";
import { errorBody, HttpError } from "../errors.ts";
import { errorResponse } from "./error_answers.ts";
import { requestIdOf } from "./request_id.ts";
import { compileRoutes, matchRoute, type Route } from "./rules.ts";
import type { ApiSchema } from "../schema.ts";
import { createRouter, type Router } from "./router.ts";
import { wholeResponse } from "./answers.ts";
import { peerOf, signalOf } from "./peer.ts";

export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;

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
  const routes = options.routes ?? compileRoutes(options.schema.services);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const { dispatcher, kuberayJson } = options;
  const encode = kuberayJson ? messageToGatewayJson : messageToJson;
  const bodies = new WeakMap<object, string | Uint8Array>();
  const compressedBodies = new WeakMap<object, Promise<Uint8Array>>();
  // A stream's answers are the same kept messages for every watcher: each
  // is framed once, and the frame's bytes shared.
  const frames = { ndjson: new WeakMap(), sse: new WeakMap() } as StreamFrames;

  async function call(
    route: Route,
    params: Record<string, string>,
    request: Request,
  ): Promise<Response> {
    const requestId = requestIdOf(request);
    const call = {
      transport: "http" as const,
      requestId,
      key: route.key,
      route: `${route.verb} ${route.template}`,
      peer: peerOf(request),
      authorization: request.headers.get("authorization") ?? undefined,
      target: { namespace: params.namespace, name: params.name },
    };
    // Decoded once the caller is authenticated: a caller without
    // credentials learns nothing of what the body should hold.
    const decode = async (): Promise<Message> => {
      try {
        const { message, unknown } = await decodeRequest(
          route,
          params,
          request.url,
          request,
          maxBodyBytes,
          kuberayJson !== undefined,
        );
        // A browser's EventSource resumes a stream with the id of the last
        // event it had.
        const lastEventId = request.headers.get("last-event-id");
        if (
          route.streaming && lastEventId !== null &&
          "resourceVersion" in message && message.resourceVersion === ""
        ) {
          message.resourceVersion = lastEventId;
        }
        if (unknown.length > 0) {
          kuberayJson?.log.warn("request fields unknown to the API dropped", {
            requestId,
            method: route.key,
            fields: unknown.map((violation) => violation.field),
          });
        }
        return message;
      } catch (thrown) {
        throw thrown instanceof ServiceError
          ? thrown
          : new ServiceError(Code.INVALID_ARGUMENT, "Invalid request", {
            cause: thrown,
          });
      }
    };
    const { result, stream, error } = await dispatcher.invoke(
      call,
      decode,
      signalOf(request),
    );
    if (error) return errorResponse(error, { requestId });
    if (stream) {
      return streamResponse(
        stream,
        (message) => encode(route.responseType, message),
        request,
        requestId,
        frames,
      );
    }
    const json = encode(route.responseType, result!);
    // A kept answer (a cached cluster, a whole cached list) keeps its body
    // with it, and its compressed form, made once for every client that
    // takes it; any other is made for this request alone.
    const kept = isKept(result);
    let body = kept ? bodies.get(json as object) : undefined;
    if (body === undefined) {
      body = bodyOf(JSON.stringify(json));
      if (kept) bodies.set(json as object, body);
    }
    if (
      typeof body === "string" ||
      !acceptedEncodings(request.headers.get("accept-encoding")).has("gzip")
    ) {
      return textResponse(body, requestId, typeof body !== "string");
    }
    let compressed = kept ? compressedBodies.get(json as object) : undefined;
    if (compressed === undefined) {
      compressed = gzipped(body);
      if (kept) compressedBodies.set(json as object, compressed);
    }
    return gzipResponse(await compressed, requestId);
  }

  return createRouter({
    endpoints: routes.map((route) => ({
      method: route.verb,
      match: (parts) => matchRoute(route, parts),
      handle: (request, params) => call(route, params, request),
    })),
    refuse(request, error, allow) {
      // Counted and logged like any call, under no route; the path is the
      // caller's, cut short.
      const requestId = requestIdOf(request);
      const { pathname } = new URL(request.url);
      dispatcher.reject(
        {
          transport: "http",
          requestId,
          key: `${request.method.slice(0, 16)} ${pathname.slice(0, 256)}`,
          route: "unmatched",
          peer: peerOf(request),
        },
        error,
        performance.now(),
      );
      return errorResponse(error, { requestId, allow });
    },
  });
}

/**
 * Answers at least this long are gzip-compressed for clients that accept
 * it, as the Kubernetes API server compresses its large answers: a list of
 * 10,000 clusters is 15 MB of JSON and about a tenth of that compressed.
 */
export const COMPRESS_MIN_BYTES = 128 * 1024;

const encoder = new TextEncoder();

/**
 * An answer's body: its text, or, from COMPRESS_MIN_BYTES on, its bytes
 * (which may be compressed, and which a kept list of 10,000 writes 15 MB
 * of on every answer without encoding them again).
 */
function bodyOf(text: string): string | Uint8Array {
  return text.length < COMPRESS_MIN_BYTES ? text : encoder.encode(text);
}

/** gzip on the thread pool: a 15 MB list does not hold up other requests. */
function gzipped(bytes: Uint8Array): Promise<Uint8Array> {
  return new Promise((resolve, reject) =>
    gzip(
      bytes,
      { level: 4 },
      (error, bytes) => error ? reject(error) : resolve(new Uint8Array(bytes)),
    )
  );
}

function textResponse(
  text: string | Uint8Array,
  requestId: string,
  compressible: boolean,
): Response {
  return wholeResponse(
    text,
    compressible
      ? {
        "content-type": "application/json",
        vary: "accept-encoding",
        "x-request-id": requestId,
      }
      : { "content-type": "application/json", "x-request-id": requestId },
  );
}

function gzipResponse(bytes: Uint8Array, requestId: string): Response {
  return wholeResponse(bytes, {
    "content-type": "application/json",
    "content-encoding": "gzip",
    vary: "accept-encoding",
    "x-request-id": requestId,
  });
}

/** Framed answers by the message they frame, for each stream format. */
interface StreamFrames {
  ndjson: WeakMap<object, Uint8Array>;
  sse: WeakMap<object, Uint8Array>;
}

/**
 * A server stream over HTTP: Server-Sent Events when the client accepts
 * text/event-stream (each answer an event whose id is its
 * resource_version, so a browser reconnecting sends it back as
 * Last-Event-ID), otherwise newline-delimited JSON as grpc-gateway streams
 * (one {"result": ...} per line). An error ends the stream with
 * {"error": {code, message, details}} (in SSE, an "error" event). Answers
 * are pulled one at a time as the connection takes them: a slow client
 * holds the stream back, and the stream ends it when too far behind.
 */
function streamResponse(
  stream: AsyncIterableIterator<Message>,
  encode: (message: Message) => unknown,
  request: Request,
  requestId: string,
  frames: StreamFrames,
): Response {
  const sse = acceptsEventStream(request.headers.get("accept"));
  const kept = sse ? frames.sse : frames.ndjson;
  const framed = (message: Message): Uint8Array => {
    if (!isKept(message)) return frame({ result: encode(message) });
    let bytes = kept.get(message);
    if (bytes === undefined) {
      bytes = frame({ result: encode(message) });
      kept.set(message, bytes);
    }
    return bytes;
  };
  const frame = (json: unknown, event?: string): Uint8Array => {
    const text = JSON.stringify(json);
    if (!sse) return encoder.encode(`${text}\n`);
    const message = json as { result?: { resourceVersion?: string } };
    const id = message.result?.resourceVersion;
    return encoder.encode(
      `${event ? `event: ${event}\n` : ""}${
        id !== undefined ? `id: ${id}\n` : ""
      }data: ${text}\n\n`,
    );
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await stream.next();
        if (done) controller.close();
        else controller.enqueue(framed(value));
      } catch (thrown) {
        const error = thrown instanceof ServiceError
          ? thrown
          : new ServiceError(Code.INTERNAL, "Internal error");
        controller.enqueue(frame({ error: errorBody(error) }, "error"));
        controller.close();
      }
    },
    async cancel() {
      await stream.return?.();
    },
  }, { highWaterMark: 0 });
  signalOf(request).addEventListener("abort", () => stream.return?.(), {
    once: true,
  });
  return new Response(body, {
    headers: {
      "content-type": sse
        ? "text/event-stream; charset=utf-8"
        : "application/x-ndjson",
      "cache-control": "no-cache",
      // Proxies that buffer answers (nginx) send these as they come.
      "x-accel-buffering": "no",
      "x-request-id": requestId,
    },
  });
}

/** Whether an Accept header asks for text/event-stream. */
function acceptsEventStream(accept: string | null): boolean {
  return (accept ?? "").split(",").some((part) =>
    part.split(";")[0].trim().toLowerCase() === "text/event-stream"
  );
}

async function decodeRequest(
  route: Route,
  params: Record<string, string>,
  url: string,
  request: Request,
  maxBodyBytes: number,
  dropUnknown: boolean,
): Promise<{ message: Message; unknown: FieldViolation[] }> {
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
        : wholeRequest(route, json)
        ? json as Record<string, unknown>
        : { [route.body]: json },
      "",
      violations,
    );
  } else {
    message = emptyRequest(route);
    if (request.body) await request.body.cancel();
  }
  // Most reads have no query string: no URL to parse for it.
  const query = url.includes("?")
    ? queryFields(route, new URL(url), violations)
    : {};
  for (const key of Object.keys(query)) {
    if (
      message[key] !== undefined && route.body !== "*" && isSet(message[key])
    ) {
      violations.push({
        field: key,
        description: "given in both the query and the body",
      });
    }
  }
  message = { ...message, ...query };
  const unknown = dropUnknown ? violations.filter(isUnknownField) : [];
  const refused = violations.filter((v) => !unknown.includes(v));
  if (refused.length > 0) {
    throw invalidArgument("Invalid request", refused);
  }
  return { message: { ...message, ...params }, unknown };
}

/**
 * Whether a body for a rule with `body: "<field>"` is the whole request
 * rather than that field: an object naming the field itself, which the
 * field's own message has no field of that name to mean
 * (UpdateCluster's `{"cluster": {...}, "updateMask": "envs"}`, AIP-134's
 * update mask in the body).
 */
function wholeRequest(route: Route, json: unknown): boolean {
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    return false;
  }
  const field = route.requestType.fields[route.body!];
  const type = field?.resolvedType;
  const names = [
    field?.name,
    field?.jsonName,
    (field as { protoName?: string })
      ?.protoName,
  ].filter((n): n is string => !!n);
  if (!names.some((name) => name in json)) return false;
  if (!(type && "fields" in type)) return false;
  const own = Object.values(
    (type as { fields: Record<string, { name: string; jsonName?: string }> })
      .fields,
  );
  return !own.some((f) =>
    names.includes(f.name) || names.includes(f.jsonName ?? "")
  );
}

/** Whether a decoded field holds a value (not its zero). */
function isSet(value: unknown): boolean {
  if (value === "" || value === 0 || value === false || value === null) {
    return false;
  }
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value as object).length > 0;
  return true;
}

/**
 * The request of a rule without a body, before its path and query fill it:
 * made once per rule, copied per request. Its fields are all scalars (a
 * request type with a default list or map is made afresh every time).
 */
const emptyRequests = new WeakMap<Route, Message | null>();
function emptyRequest(route: Route): Message {
  let empty = emptyRequests.get(route);
  if (empty === undefined) {
    const made = messageFromJson(route.requestType, {}, "", []);
    const scalar = Object.values(made).every((v) =>
      v === null || typeof v !== "object"
    );
    empty = scalar ? made : null;
    emptyRequests.set(route, empty);
  }
  return empty ? { ...empty } : messageFromJson(route.requestType, {}, "", []);
}

/**
 * The request fields the query string sets, as grpc-gateway maps them: a
 * field bound to neither the path nor the body, by its JSON or proto name,
 * its value as the JSON string of that field (a FieldMask's
 * "clusterSpec.workerGroupSpec,envs"). Any other parameter is refused.
 */
function queryFields(
  route: Route,
  url: URL,
  violations: FieldViolation[],
): Message {
  const bound = new Set([
    route.body,
    ...route.segments.flatMap((s) => "variable" in s ? [s.variable] : []),
  ]);
  const json: Record<string, unknown> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const field = route.requestType.fieldsArray.find((f) =>
      (f.name === key || f.protoName === key || f.jsonName === key) &&
      !bound.has(f.name) && !f.repeated && !f.map
    );
    if (route.body === "*" || !field) {
      violations.push({ field: key, description: "unknown query parameter" });
      continue;
    }
    const values = url.searchParams.getAll(key);
    if (values.length > 1) {
      violations.push({ field: key, description: "given more than once" });
      continue;
    }
    json[field.name] = values[0];
  }
  if (Object.keys(json).length === 0) return {};
  const decoded = messageFromJson(route.requestType, json, "", violations);
  return Object.fromEntries(Object.keys(json).map((k) => [k, decoded[k]]));
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
  const bytes = await readLimitedBody(request, maxBodyBytes, tooLarge);
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
