/**
 * From an HTTP request to the request message of its route's RPC, as
 * grpc-gateway maps them: the body (all of it, or one field, as the http
 * rule says), the query string for the fields bound to neither the path nor
 * the body, and the path variables.
 */
import {
  isUnknownField,
  type Message,
  messageFromJson,
} from "../../domain/codec.ts";
import {
  Code,
  type FieldViolation,
  invalidArgument,
  ServiceError,
} from "../../domain/errors.ts";
import { HttpError } from "../errors.ts";
import { readLimitedBody } from "./body.ts";
import type { Route } from "./rules.ts";

export interface DecodeOptions {
  /** Bodies larger than this are refused with 413. */
  maxBodyBytes: number;
  /** Fields the API does not know are dropped (and returned), not refused. */
  dropUnknown: boolean;
}

/**
 * The request message of a call of `route`: its body, its query string and
 * `params` (its path variables). Throws INVALID_ARGUMENT listing every
 * violation; the unknown fields dropped are returned with the message.
 */
export async function decodeRequest(
  route: Route,
  params: Record<string, string>,
  request: Request,
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
