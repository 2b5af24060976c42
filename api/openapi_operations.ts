/**
 * The operations of the OpenAPI document: one per route, with its request
 * body and its responses (an answer or a stream, and the errors).
 */
import type protobuf from "protobufjs";
import { fullName } from "../domain/message_form.ts";
import type { Route } from "./http/rules.ts";
import {
  ERROR_RESPONSE,
  ERROR_SCHEMA,
  errorAnswer,
  errorStatusesOf,
} from "./openapi_errors.ts";
import { openApiPath, parametersOf } from "./openapi_parameters.ts";
import type { Ref, SchemaRegistry } from "./openapi_schema_registry.ts";
import {
  clean,
  dropUndefined,
  fieldExample,
  fieldSchema,
  firstSentence,
  generateExample,
  messageSchema,
  messageTypeOf,
  omit,
  type Schema,
} from "./openapi_schemas.ts";
import { methodKey } from "./schema.ts";

export type Operation = Record<string, unknown> & { operationId: string };

/** What every operation of the document is made from and adds to. */
export interface DocumentParts {
  /** Every route, for the examples of path variables. */
  routes: Route[];
  examples: Record<string, unknown>;
  schemas: SchemaRegistry;
}

/**
 * The operation of a route; `earlier` are the routes of the same method
 * before it, the first of them its main path.
 */
export function operationOf(
  route: Route,
  earlier: Route[],
  parts: DocumentParts,
): Operation {
  const service = route.method.parent as protobuf.Service;
  const main = earlier[0];
  const operationId = `${service.name}_${route.method.name}${
    main === undefined ? "" : earlier.length + 1
  }`;
  const pathVariables = route.segments.flatMap((s) =>
    "variable" in s ? [s.variable] : []
  );
  const operation: Operation = {
    operationId,
    tags: [service.name],
    summary: firstSentence(route.method.comment) ?? route.method.name,
    description: [
      clean(route.method.comment),
      main === undefined
        ? undefined
        : `Another path of \`${main.verb.toUpperCase()} ${
          openApiPath(main)
        }\`, the same call.`,
      `gRPC: \`${methodKey(route.method)}\`.`,
    ].filter(Boolean).join("\n\n"),
  };
  const parameters = parametersOf(route, pathVariables, parts);
  if (parameters.length > 0) operation.parameters = parameters;
  if (route.body) {
    operation.requestBody = requestBody(
      route,
      pathVariables,
      operationId,
      parts,
    );
  }
  operation.responses = responsesOf(route, parts.schemas.ref);
  return operation;
}

/** The answer (or stream) of a route, its errors, and the default error. */
function responsesOf(route: Route, ref: Ref): Schema {
  return {
    "200": route.streaming ? streamAnswer(route, ref) : {
      description: "A successful response.",
      content: { "application/json": { schema: ref(route.responseType) } },
    },
    ...Object.fromEntries(
      errorStatusesOf(route).map((status) => [status, {
        $ref: `#/components/responses/${errorAnswer(status).name}`,
      }]),
    ),
    default: { $ref: `#/components/responses/${ERROR_RESPONSE}` },
  };
}

/**
 * A stream's answer: newline-delimited JSON, each line a result or, last,
 * an error (as grpc-gateway streams); or Server-Sent Events of the same.
 */
function streamAnswer(route: Route, ref: Ref): Schema {
  const line = {
    type: "object",
    description: "One line: an answer (`result`), or the error that ends " +
      "the stream (`error`).",
    properties: {
      result: ref(route.responseType),
      error: { $ref: `#/components/schemas/${ERROR_SCHEMA}` },
    },
  };
  return {
    description: "A stream of answers, one JSON object per line; with " +
      "`Accept: text/event-stream`, Server-Sent Events whose `data` is that " +
      "object and whose `id` is the answer's resourceVersion (sent back as " +
      "`Last-Event-ID` to resume). The stream stays open until the client " +
      "or the server ends it.",
    content: {
      "application/x-ndjson": { schema: line },
      "text/event-stream": { schema: { type: "string" } },
    },
  };
}

/**
 * A route's request body: the whole request less the path's fields (under a
 * schema of its own, `<operationId>Body`, when any are), or the one field
 * the rule names.
 */
function requestBody(
  route: Route,
  pathVariables: string[],
  operationId: string,
  parts: DocumentParts,
): Schema {
  const { examples, schemas } = parts;
  const ref = schemas.ref;
  let schema: Schema;
  let example: unknown;
  let description: string | undefined;
  if (route.body === "*") {
    // The whole request is the body, less the fields bound to the path
    // (the path wins over the body for those).
    const bound = new Set(pathVariables);
    if (bound.size === 0) {
      schema = ref(route.requestType);
    } else {
      schema = schemas.add(
        `${operationId}Body`,
        messageSchema(route.requestType, ref, bound),
      );
    }
    example = omit(
      examples[fullName(route.requestType)] ??
        generateExample(route.requestType),
      bound,
    );
    description = clean(route.requestType.comment);
  } else {
    const field = route.requestType.fields[route.body];
    const type = messageTypeOf(field);
    schema = field.repeated || field.map || !type
      ? fieldSchema(field, ref)
      : ref(type);
    example = type && !field.repeated && !field.map
      ? examples[fullName(type)] ?? generateExample(type)
      : fieldExample(field, new Set());
    description = clean(field.comment);
  }
  return dropUndefined({
    required: true,
    description,
    content: { "application/json": { schema, example } },
  });
}
