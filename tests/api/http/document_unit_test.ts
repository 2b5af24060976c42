/**
 * A unit answering a fixed JSON document (api/http/document_unit.ts): the
 * document as JSON, encoded once when the unit is made.
 */
import assert from "node:assert/strict";
import { documentUnit } from "../../../api/http/document_unit.ts";

/** The unit's answer; its handler reads nothing of the call. */
function answerOf(unit: ReturnType<typeof documentUnit>): Promise<Response> {
  return unit.handle(undefined as never, {}, undefined as never, {}) as Promise<
    Response
  >;
}

Deno.test("a document unit answers its document as JSON at its path, to any authenticated caller", async () => {
  const unit = documentUnit("discovery.APIVersions/Get", "/api", {
    kind: "APIVersions",
    versions: ["v1"],
  });
  assert.equal(unit.key, "discovery.APIVersions/Get");
  assert.deepEqual(unit.methods, ["GET"]);
  assert.equal(unit.path, "/api");
  assert.equal(unit.check, "authentication");
  const response = await answerOf(unit);
  assert.equal(response.headers.get("content-type"), "application/json");
  assert.deepEqual(await response.json(), {
    kind: "APIVersions",
    versions: ["v1"],
  });
});

Deno.test("a document unit's answer is the document as it was when the unit was made", async () => {
  const document = { kind: "APIVersions", versions: ["v1"] };
  const unit = documentUnit("discovery.APIVersions/Get", "/api", document);
  document.versions.push("v2");
  assert.deepEqual(await (await answerOf(unit)).json(), {
    kind: "APIVersions",
    versions: ["v1"],
  });
  assert.equal(
    await (await answerOf(unit)).text(),
    '{"kind":"APIVersions","versions":["v1"]}',
  );
});
