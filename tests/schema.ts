/**
 * The API definition, loaded once per test process: apart from harness.ts,
 * which starts servers, so that a test of a pure function that needs the
 * schema imports nothing that listens.
 */
import { type ApiSchema, loadApiSchema } from "../api/schema.ts";

let schemaPromise: Promise<ApiSchema> | undefined;

/** The API definition, loaded once per test process. */
export function schema(): Promise<ApiSchema> {
  return schemaPromise ??= loadApiSchema();
}
