/**
 * The golden copy of the OpenAPI document, tests/testdata/openapi.json.
 * `deno task openapi:golden` rewrites it after a deliberate change of the
 * API definition or of the generator; openapi_test.ts fails while the
 * served document differs from it.
 */
import { openApiJson } from "../../api/docs.ts";
import { compileRoutes } from "../../api/http/rules.ts";
import { type OpenApiDocument, openApiDocument } from "../../api/openapi.ts";
import { loadApiSchema } from "../../api/schema.ts";

export const GOLDEN = new URL("../testdata/openapi.json", import.meta.url);

/** The document as main.ts generates it at start-up. */
export async function currentDocument(): Promise<OpenApiDocument> {
  const schema = await loadApiSchema();
  return openApiDocument(compileRoutes(schema.services));
}

if (import.meta.main) {
  await Deno.writeTextFile(GOLDEN, openApiJson(await currentDocument()));
  console.log(`Wrote ${GOLDEN.pathname}`);
}
