/**
 * From an HTTP request to the request message of its route's RPC, as
 * grpc-gateway maps them: the body (all of it, or one field, as the http
 * rule says), the query string for the fields bound to neither the path nor
 * the body, and the path variables.
 */
import { messageFromJson } from "../../domain/codec.ts";
import { isUnknownField, type Message } from "../../domain/message_form.ts";
import {
  Code,
  type FieldViolation,
  invalidArgument,
  ServiceError,
} from "../../domain/errors.ts";
import { HttpError } from "../errors.ts";
import { readLimitedBody } from "./body.ts";
import type { Route } from "./rules.ts";
import type { HttpRequest } from "./http_request.ts";

export interface DecodeOptions {
  /** Bodies larger than this are refused with 413. */
  maxBodyBytes: number;
  /** Fields the API does not know are dropped (and returned), not refused. */
  dropUnknown: boolean;
}

/**
 * The request message of a call of `route` that has neither a body nor a
 * query string (most reads): its path variables alone, as decodeRequest()
 * makes it, without waiting for anything; undefined for any other call.
 */
export function pathOnlyRequest(
  route: Route,
  params: Record<string, string>,
  request: HttpRequest,
): Message | undefined {
  if (route.body || request.body || request.url.includes("?")) {
    return undefined;
  }
  return { ...emptyRequest(route), ...params };
}

/**
 * The request message of a call of `route`: its body, its query string and
 * `params` (its path variables). Throws INVALID_ARGUMENT listing every
 * violation; the unknown fields dropped are returned with the message.
 */
export async function decodeRequest(
  route: Route,
  params: Record<string, string>,
  request: HttpRequest,
  options: DecodeOptions,
): Promise<{ message: Message; unknown: FieldViolation[] }> {
  const { maxBodyBytes, dropUnknown } = options;
  const url = request.url;
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

/**
 * Why the gateway will not read `request`'s body: a body that is not
 * declared application/json (a charset, if any, UTF-8), whatever the
 * route. 415 code 3: the request is wrong as it is sent.
 *
 * This is what keeps other sites' pages out: a browser sends a page's
 * text/plain, form (application/x-www-form-urlencoded, multipart/form-data)
 * or untyped body to any origin without asking first, cookies and client
 * certificates included; application/json it sends only after a CORS
 * preflight that Corral answers for the origins it lists. Types ending in
 * +json (application/merge-patch+json, application/json-patch+json) are
 * refused too: they name patch formats whose meaning Corral does not
 * implement, and reading them as a message would change what the caller
 * asked for. A request without a body (no Content-Type, no
 * Content-Length or 0, not chunked) needs none.
 */
export function contentTypeRefusal(
  request: HttpRequest,
): ServiceError | undefined {
  if (request.method === "GET" || request.method === "HEAD") return undefined;
  const type = request.headers.get("content-type");
  if (type === null) {
    const length = request.headers.get("content-length");
    const chunked = request.headers.has("transfer-encoding");
    return chunked || (length !== null && length.trim() !== "0")
      ? unsupportedBody("it has no Content-Type")
      : undefined;
  }
  return isJsonType(type) ? undefined : unsupportedBody(
    `its Content-Type ${
      JSON.stringify(type.slice(0, 128))
    } is not application/json`,
  );
}

/** Whether a Content-Type is application/json, in UTF-8 if it says. */
function isJsonType(type: string): boolean {
  const [essence, ...parameters] = type.split(";");
  if (essence.trim().toLowerCase() !== "application/json") return false;
  return parameters.every((parameter) => {
    const [name, value = ""] = parameter.split("=");
    return name.trim().toLowerCase() !== "charset" ||
      value.trim().replace(/^"(.*)"$/, "$1").toLowerCase() === "utf-8";
  });
}

function unsupportedBody(why: string): ServiceError {
  return new HttpError(
    415,
    Code.INVALID_ARGUMENT,
    `Cannot read request body: ${why}; send it as application/json`,
  );
}

/**
 * The JSON of `request`'s body (undefined for an empty one): 413 over
 * `maxBodyBytes`, 415 without a Content-Type (unless `untyped` takes one
 * without as JSON, as the Kubernetes API server does), INVALID_ARGUMENT
 * for one that is not UTF-8 JSON.
 */
export async function readJsonBody(
  request: HttpRequest,
  maxBodyBytes: number,
  untyped = false,
): Promise<unknown> {
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
  // A body that arrived without Content-Length (a Request made in process):
  // contentTypeRefusal() could not know it was there.
  if (request.headers.get("content-type") === null && !untyped) {
    throw unsupportedBody("it has no Content-Type");
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ServiceError(
      Code.INVALID_ARGUMENT,
      `Invalid request body: not JSON: ${(error as Error).message}`,
    );
  }
}
