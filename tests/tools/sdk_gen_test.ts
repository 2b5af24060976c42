/**
 * The Python SDK's TypedDicts (clients/python/corral/_models.py) are
 * generated from the OpenAPI document (tools/sdk_gen.ts): the committed
 * file must be what the generator writes, so an API change without
 * `deno task sdk:gen` (or a hand edit of the file) fails here.
 */
import assert from "node:assert/strict";
import {
  generateModels,
  MODELS_FILE,
  modelsSource,
  pythonName,
} from "../../tools/sdk_gen.ts";

Deno.test("clients/python/corral/_models.py is what `deno task sdk:gen` writes", async () => {
  const committed = await Deno.readTextFile(MODELS_FILE);
  const generated = await generateModels();
  if (committed === generated) return;
  const [a, b] = [committed.split("\n"), generated.split("\n")];
  const line = a.findIndex((text, i) => text !== b[i]);
  assert.fail(
    "clients/python/corral/_models.py and the API disagree: run `deno task " +
      `sdk:gen` + " and commit it (it is generated: do not edit it by hand). " +
      `Line ${line + 1}: got ${JSON.stringify(a[line])}, want ${
        JSON.stringify(b[line])
      }`,
  );
});

Deno.test("pythonName() drops the package, the service and the dots of a schema's name", async (t) => {
  const cases: [string, string][] = [
    ["Cluster", "Cluster"],
    ["Cluster.Environment", "ClusterEnvironment"],
    ["ClusterService_ExtendClusterBody", "ExtendClusterBody"],
    ["google.rpc.Status", "Status"],
    ["google.protobuf.Empty", "Empty"],
  ];
  for (const [name, want] of cases) {
    await t.step(name, () => assert.equal(pythonName(name), want));
  }
});

Deno.test("modelsSource() writes a TypedDict per object, a Literal per enum, the functional form for keys that are not identifiers", () => {
  const source = modelsSource({
    "Thing.Kind": { type: "string", enum: ["A", "B"], description: "A kind." },
    Thing: {
      type: "object",
      description: "A thing.",
      properties: {
        name: { type: "string", description: "Its name." },
        kind: { $ref: "#/components/schemas/Thing.Kind" },
        sizes: { type: "array", items: { type: "integer" } },
        labels: { type: "object", additionalProperties: { type: "string" } },
        createdAt: { type: ["string", "null"], format: "date-time" },
        parent: {
          oneOf: [{ $ref: "#/components/schemas/Thing" }, { type: "null" }],
        },
      },
    },
    Odd: {
      type: "object",
      properties: { "@type": { type: "string", const: "x" } },
    },
  });
  for (
    const line of [
      'ThingKind = Literal["A", "B"]',
      "class Thing(TypedDict, total=False):",
      '    """A thing."""',
      "    #: Its name.",
      "    name: str",
      "    kind: ThingKind",
      "    sizes: list[int]",
      "    labels: dict[str, str]",
      "    createdAt: Optional[str]",
      "    parent: Optional[Thing]",
      'Odd = TypedDict("Odd", {',
      '    "@type": "Literal[\\"x\\"]",',
    ]
  ) {
    assert.ok(
      source.split("\n").includes(line),
      `missing ${JSON.stringify(line)} in:\n${source}`,
    );
  }
});

Deno.test("modelsSource() refuses two schemas that would have one Python name", () => {
  assert.throws(
    () =>
      modelsSource({
        "Thing": { type: "object", properties: {} },
        "ThingService_Thing": { type: "object", properties: {} },
      }),
    /schemas Thing and ThingService_Thing are both Thing in Python/,
  );
});
