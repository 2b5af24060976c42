/**
 * The OpenAPI document's operations as the tests walk them: each with its
 * verb and path, a path filled with its parameters' examples, and the
 * responses it documents.
 */
import assert from "node:assert/strict";
import type { OpenApiDocument } from "../../api/openapi.ts";
import type { Operation } from "../../api/openapi_operations.ts";

/** The HTTP verbs an OpenAPI path item may hold an operation under. */
export const VERBS = ["get", "put", "post", "delete", "patch"];

/** Every operation of the document, as [verb, path, operation]. */
export function operations(
  doc: OpenApiDocument,
): [string, string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).filter(([verb]) => VERBS.includes(verb)).map((
      [verb, operation],
    ) => [verb, path, operation] as [string, string, Operation])
  );
}

/** A path with its parameters filled with their examples. */
export function concretePath(path: string, operation: Operation): string {
  const parameters = (operation.parameters ?? []) as {
    name: string;
    example?: string;
  }[];
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const example = parameters.find((p) => p.name === name)?.example;
    assert.ok(example, `${operation.operationId}: {${name}} has no example`);
    return encodeURIComponent(example);
  });
}

export interface DocumentedResponse {
  description: string;
  content: Record<
    string,
    {
      schema: { $ref: string };
      examples?: Record<string, { $ref: string }>;
    }
  >;
}

/** The response an operation documents for `status`, its $ref resolved. */
export function documentedResponse(
  doc: OpenApiDocument,
  operation: Operation,
  status: number,
): DocumentedResponse {
  const responses = operation.responses as Record<
    string,
    DocumentedResponse | { $ref: string }
  >;
  const response = responses[String(status)];
  assert.ok(
    response,
    `${operation.operationId} answered ${status}, which it does not document`,
  );
  if (!("$ref" in response)) return response;
  const name = response.$ref.replace("#/components/responses/", "");
  return doc.components.responses[name] as unknown as DocumentedResponse;
}

/** The error statuses an operation documents (besides `default`). */
export function errorStatuses(operation: Operation): number[] {
  return Object.keys(operation.responses as object)
    .filter((key) => /^[45]\d\d$/.test(key)).map(Number);
}
