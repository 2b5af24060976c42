/**
 * The OpenAPI document: valid OpenAPI 3.1, exactly the gateway's routes,
 * examples the codec accepts, and a golden copy it must not drift from.
 * Against Corral's real answers: openapi_round_trip_test.ts.
 */
import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import protobuf from "protobufjs";
import YAML from "yaml";
import { docsPages, openApiJson } from "../../api/docs.ts";
import { httpStatus } from "../../api/errors.ts";
import { compileRoutes } from "../../api/http/rules.ts";
import { generateExample, openApiDocument } from "../../api/openapi.ts";
import { SchemaRegistry } from "../../api/openapi_schema_registry.ts";
import { loadApiSchema } from "../../api/schema.ts";
import { messageFromJson } from "../../domain/codec.ts";
import type { Code, FieldViolation } from "../../domain/errors.ts";
import { schema } from "../schema.ts";
import { probeGateway } from "./service/probe_handlers.ts";
import { currentDocument, GOLDEN } from "./openapi_golden.ts";
import {
  concretePath,
  documentedResponse,
  errorStatuses,
  operations,
  VERBS,
} from "./openapi_operations.ts";

/** The page handlers as main.ts mounts them (with a stand-in bundle). */
async function pages() {
  return docsPages(await currentDocument(), {
    hash: "0000000000000000",
    script: new TextEncoder().encode("/* bundle */"),
  });
}

async function get(path: string): Promise<Response> {
  const handler = (await pages())[path];
  assert.ok(handler, `no page at ${path}`);
  return await handler(new Request(`http://corral.test${path}`));
}

Deno.test("the served /openapi.json is the golden copy tests/testdata/openapi.json", async () => {
  const served = await (await get("/openapi.json")).text();
  const golden = await Deno.readTextFile(GOLDEN);
  assert.ok(
    served === golden,
    "The OpenAPI document drifted from tests/testdata/openapi.json. If the " +
      "change is intended, run `deno task openapi:golden` and commit the " +
      "new golden copy.",
  );
});

Deno.test("/openapi.yaml is the same document as /openapi.json", async () => {
  const json = await (await get("/openapi.json")).json();
  const response = await get("/openapi.yaml");
  assert.equal(response.headers.get("content-type"), "application/yaml");
  assert.deepEqual(YAML.parse(await response.text()), json);
});

Deno.test("the document is valid OpenAPI 3.1 for an OpenAPI validator", async () => {
  const validator = new Validator();
  const result = await validator.validate(await currentDocument());
  assert.equal(validator.version, "3.1");
  assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
});

Deno.test("the document's operations are exactly the gateway's routes", async (t) => {
  const doc = await currentDocument();
  const routes = compileRoutes((await schema()).services);
  const documented = operations(doc).map(([verb, path]) =>
    `${verb.toUpperCase()} ${path}`
  ).sort();
  const routed = routes.map((r) => `${r.verb} ${r.template}`).sort();
  assert.deepEqual(documented, routed);

  // The router's answers, whatever the handlers: those of the probe.
  const gateway = await probeGateway();
  await t.step("the gateway routes every documented operation", async () => {
    for (const [verb, path, operation] of operations(doc)) {
      const response = await gateway(
        new Request(`http://corral.test${concretePath(path, operation)}`, {
          method: verb.toUpperCase(),
          body: verb === "post" ? "{}" : undefined,
          headers: { "content-type": "application/json" },
        }),
      );
      const body = await response.json();
      assert.ok(
        ![404, 405].includes(response.status) ||
          body.message !== "Not Found" &&
            body.message !== "Method Not Allowed",
        `${verb} ${path}: ${response.status} ${JSON.stringify(body)}`,
      );
    }
  });
  await t.step(
    "every other method of a documented path is 405 with Allow listing the documented ones, and HEAD with GET",
    async () => {
      for (const [path, item] of Object.entries(doc.paths)) {
        const documentedVerbs = VERBS.filter((v) => v in item);
        const operation = item[documentedVerbs[0]];
        for (const verb of VERBS.filter((v) => !(v in item))) {
          const response = await gateway(
            new Request(
              `http://corral.test${concretePath(path, operation)}`,
              { method: verb.toUpperCase() },
            ),
          );
          await response.body?.cancel();
          assert.equal(response.status, 405, `${verb} ${path}`);
          assert.deepEqual(
            response.headers.get("allow")!.split(", ").sort(),
            documentedVerbs.flatMap((v) =>
              v === "get" ? ["GET", "HEAD"] : [v.toUpperCase()]
            ).sort(),
            `${verb} ${path}`,
          );
        }
      }
    },
  );
});

Deno.test("every operation has an operationId Service_Method, its service's tag and the error response", async () => {
  const doc = await currentDocument();
  const tags = doc.tags as { name: string; description?: string }[];
  assert.deepEqual(tags.map((t) => t.name), [
    "ClusterService",
    "ComputeTemplateService",
    "RayJobService",
    "RayJobSubmissionService",
    "QuotaService",
    "RayServeService",
  ]);
  assert.ok(tags.every((t) => t.description), "tags describe their service");
  const ids = new Set<string>();
  for (const [verb, path, operation] of operations(doc)) {
    const where = `${verb} ${path}`;
    // Another path of the same call is numbered, as grpc-gateway numbers it.
    assert.match(
      operation.operationId,
      /^[A-Za-z]+Service_[A-Za-z]+\d*$/,
      where,
    );
    assert.ok(!ids.has(operation.operationId), `${where}: duplicate id`);
    ids.add(operation.operationId);
    assert.deepEqual(operation.tags, [operation.operationId.split("_")[0]]);
    assert.ok(operation.summary && operation.description, where);
    const responses = operation.responses as Record<string, unknown>;
    assert.deepEqual(responses.default, {
      $ref: "#/components/responses/Error",
    }, where);
    for (const name of path.match(/\{\w+\}/g) ?? []) {
      const parameters = operation.parameters as { name: string; in: string }[];
      assert.ok(
        parameters.some((p) => `{${p.name}}` === name && p.in === "path"),
        `${where}: ${name} is not a path parameter`,
      );
    }
  }
  assert.ok(ids.has("ClusterService_CreateCluster"));
  assert.ok(ids.has("ComputeTemplateService_ListAllComputeTemplates"));
  const error = (doc.components.responses.Error as {
    content: Record<string, { schema: unknown }>;
  }).content["application/json"].schema;
  assert.deepEqual(error, { $ref: "#/components/schemas/google.rpc.Status" });
  const status = doc.components.schemas["google.rpc.Status"] as {
    properties: Record<string, unknown>;
  };
  assert.deepEqual(Object.keys(status.properties), [
    "code",
    "message",
    "details",
  ]);
});

Deno.test("each operation documents the error answers it can give, all in the one error shape", async (t) => {
  const doc = await currentDocument();
  // From the service, the gateway and the orchestrator's translation of
  // Kubernetes errors: every call validates its request (400) and calls
  // Kubernetes with Corral's credentials (401, 403, 500, 503, 504); a
  // namespace may not be served (403); a create may find the name taken
  // (409) or the namespace missing (404) and be sent too much (413) or a
  // body that is not JSON (415); a get or delete may find nothing (404).
  // Lists have neither 404 nor 409.
  // Every call counts against its caller's rate (429).
  const common = [400, 401, 403, 429, 500, 503, 504];
  const create = [...common, 404, 409, 413, 415].sort((a, b) => a - b);
  // An update may find nothing (404), meet a change (409, code 10) and be
  // sent too much (413) or a body that is not JSON (415).
  const update = create;
  const one = [...common, 404].sort((a, b) => a - b);
  const want: Record<string, number[]> = {
    ClusterService_CreateCluster: create,
    ClusterService_GetCluster: one,
    ClusterService_ListCluster: common,
    ClusterService_ListAllClusters: common,
    ClusterService_UpdateCluster: update,
    ClusterService_ExtendCluster: update,
    ClusterService_DeleteCluster: one,
    // A watch may be asked to resume from a point too old (409, code 10).
    ClusterService_WatchClusters: [...common, 409].sort((a, b) => a - b),
    ComputeTemplateService_CreateComputeTemplate: create,
    ComputeTemplateService_GetComputeTemplate: one,
    ComputeTemplateService_ListComputeTemplates: common,
    ComputeTemplateService_ListAllComputeTemplates: common,
    ComputeTemplateService_DeleteComputeTemplate: one,
    RayJobService_CreateRayJob: create,
    RayJobService_GetRayJob: one,
    RayJobService_ListRayJobs: common,
    RayJobService_ListAllRayJobs: common,
    RayJobService_UpdateRayJob: update,
    RayJobService_DeleteRayJob: one,
    RayJobService_WatchRayJobs: [...common, 409].sort((a, b) => a - b),
    // A job's log: of a job that may not exist (404); a stream's 409.
    RayJobService_GetRayJobLog: one,
    RayJobService_WatchRayJobLog: [...one, 409].sort((a, b) => a - b),
    RayServeService_CreateRayService: create,
    RayServeService_GetRayService: one,
    RayServeService_ListRayServices: common,
    RayServeService_ListAllRayServices: common,
    RayServeService_UpdateRayService: update,
    RayServeService_UpdateRayServiceConfigs: update,
    RayServeService_DeleteRayService: one,
    // Job submission: every method names a cluster that may not exist
    // (404); a POST and a stream get 409 by the rule's shape.
    RayJobSubmissionService_SubmitRayJob: create,
    RayJobSubmissionService_GetJobDetails: one,
    RayJobSubmissionService_GetJobLog: one,
    RayJobSubmissionService_ListJobDetails: one,
    RayJobSubmissionService_StopRayJob: [...one, 409].sort((a, b) => a - b),
    RayJobSubmissionService_DeleteRayJob: one,
    RayJobSubmissionService_WatchJobLog: [...one, 409].sort((a, b) => a - b),
    RayJobSubmissionService_UploadJobPackage: create,
    // A namespace's usage: a read, as a list (no 404).
    QuotaService_GetQuotaUsage: common,
  };
  for (const [, , operation] of operations(doc)) {
    await t.step(operation.operationId, () => {
      const got = errorStatuses(operation);
      const call = operation.operationId.replace(/\d+$/, "");
      assert.deepEqual(got, want[call], `got ${got}, want ${want[call]}`);
      for (const status of got) {
        const response = documentedResponse(doc, operation, status);
        assert.ok(response.description, `${status} has a description`);
        const content = response.content["application/json"];
        assert.deepEqual(content.schema, {
          $ref: "#/components/schemas/google.rpc.Status",
        });
        for (const example of Object.values(content.examples ?? {})) {
          const name = example.$ref.replace("#/components/examples/", "");
          const value = (doc.components.examples[name] as {
            value: { code: number };
          }).value;
          assert.equal(
            // The gateway's own statuses, of codes that answer others.
            status === 413 || status === 415
              ? status
              : httpStatus(value.code as Code),
            status,
            `${status}: example ${name} has code ${value.code}`,
          );
        }
      }
    });
  }
});

Deno.test("schemas carry the proto comments, required (REQUIRED) and readOnly (OUTPUT_ONLY) fields", async () => {
  const doc = await currentDocument();
  const schemas = doc.components.schemas as Record<
    string,
    {
      description?: string;
      required?: string[];
      properties: Record<string, Record<string, unknown>>;
    }
  >;
  const cluster = schemas.Cluster;
  assert.equal(
    cluster.description,
    "A compute cluster: one head group and any number of worker groups.",
  );
  assert.deepEqual(cluster.required, ["name", "user", "clusterSpec"]);
  for (
    const field of [
      "createdAt",
      "deletedAt",
      "clusterState",
      "events",
      "serviceEndpoint",
    ]
  ) {
    assert.equal(cluster.properties[field].readOnly, true, field);
  }
  assert.equal(cluster.properties.name.readOnly, undefined);
  assert.equal(
    cluster.properties.user.description,
    "The user who owns the cluster.",
  );
  assert.deepEqual(schemas.WorkerGroupSpec.required, [
    "groupName",
    "replicas",
  ]);
  assert.deepEqual(schemas.ComputeTemplate.required, [
    "name",
    "cpu",
    "memory",
  ]);
  // The JSON form: camelCase names, enums by name, timestamps as strings,
  // maps as objects, unset optional values as null.
  assert.deepEqual(cluster.properties.environment, {
    $ref: "#/components/schemas/Cluster.Environment",
    description: "The deployment stage of the cluster.",
  });
  assert.deepEqual(schemas["Cluster.Environment"], {
    type: "string",
    description: "The deployment stage a cluster serves.",
    enum: ["DEV", "TESTING", "STAGING", "PRODUCTION"],
    "x-enum-descriptions": [
      "Development; the default.",
      "Testing.",
      "Staging.",
      "Production.",
    ],
  });
  assert.deepEqual(cluster.properties.createdAt.type, ["string", "null"]);
  assert.equal(cluster.properties.createdAt.format, "date-time");
  assert.deepEqual(cluster.properties.envs.additionalProperties, {
    type: "string",
  });
  assert.deepEqual(schemas.WorkerGroupSpec.properties.minReplicas.type, [
    "integer",
    "null",
  ]);
  const create = doc.paths["/apis/v1alpha2/namespaces/{namespace}/clusters"]
    .post;
  assert.equal(
    create.summary,
    "Creates a cluster in a namespace",
  );
  assert.match(
    String(create.description),
    /^Creates a cluster in a namespace\. The namespace comes from the path; a namespace in the body must match it\./,
  );
});

Deno.test("generateExample() gives every message an example the codec accepts", async () => {
  const api = await schema();
  const types: protobuf.Type[] = [];
  const visit = (ns: protobuf.NamespaceBase) => {
    for (const nested of ns.nestedArray) {
      if (nested instanceof protobuf.Type) types.push(nested);
      if (nested instanceof protobuf.Namespace) visit(nested);
    }
  };
  visit(api.root.lookup("proto") as protobuf.Namespace);
  assert.ok(types.length > 10);
  for (const type of types) {
    const violations: FieldViolation[] = [];
    const example = generateExample(type);
    messageFromJson(type, example, "", violations);
    assert.deepEqual(
      violations,
      [],
      `${type.name}: ${JSON.stringify(example)}`,
    );
  }
  const template = generateExample(
    api.root.lookupType("proto.ComputeTemplate"),
  );
  assert.deepEqual(template, {
    name: "name",
    namespace: "namespace",
    cpu: 1,
    memory: 1,
    gpu: 1,
    gpuAccelerator: "gpu-accelerator",
    tolerations: [{
      key: "key",
      operator: "operator",
      value: "value",
      effect: "effect",
    }],
    extendedResources: { key: 1 },
    memoryUnit: "memory-unit",
  });
  // Output-only fields are left out.
  const cluster = generateExample(api.root.lookupType("proto.Cluster"));
  assert.equal("createdAt" in cluster || "events" in cluster, false);
});

Deno.test("a new RPC with an http rule gets its path, operation and a generated example with no other edit", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/widgets.proto`;
    await Deno.writeTextFile(
      file,
      `syntax = "proto3";
package proto;
import "google/api/annotations.proto";
import "google/api/field_behavior.proto";

// Manages widgets.
service WidgetService {
  // Creates a widget. Widgets are small.
  rpc CreateWidget(CreateWidgetRequest) returns (Widget) {
    option (google.api.http) = {
      post: "/apis/v1/namespaces/{namespace}/widgets"
      body: "*"
    };
  }
}

message CreateWidgetRequest {
  // Where the widget goes.
  string namespace = 1 [(google.api.field_behavior) = REQUIRED];
  // The widget's size.
  uint32 size = 2;
  map<string, string> labels = 3;
}

// A widget.
message Widget {
  string name = 1 [(google.api.field_behavior) = OUTPUT_ONLY];
}
`,
    );
    const api = await loadApiSchema([file]);
    const doc = openApiDocument(compileRoutes(api.services));
    const operation = doc.paths["/apis/v1/namespaces/{namespace}/widgets"]
      .post;
    assert.equal(operation.operationId, "WidgetService_CreateWidget");
    assert.equal(operation.summary, "Creates a widget");
    assert.deepEqual(operation.tags, ["WidgetService"]);
    const body = (operation.requestBody as {
      content: Record<string, { schema: unknown; example: unknown }>;
    }).content["application/json"];
    // The whole request is the body, less the field the path binds.
    assert.deepEqual(body.example, { size: 1, labels: { key: "labels" } });
    assert.deepEqual(body.schema, {
      $ref: "#/components/schemas/WidgetService_CreateWidgetBody",
    });
    assert.deepEqual(
      Object.keys(
        (doc.components.schemas.WidgetService_CreateWidgetBody as {
          properties: object;
        }).properties,
      ),
      ["size", "labels"],
    );
    assert.equal(
      (doc.components.schemas.Widget as {
        properties: Record<string, { readOnly?: boolean }>;
      }).properties.name.readOnly,
      true,
    );
    const result = await new Validator().validate(doc);
    assert.ok(result.valid, JSON.stringify(result.errors));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openApiJson() is what the golden task writes", async () => {
  // The task and the page must write the same bytes, or the golden test
  // would compare different renderings.
  const doc = await currentDocument();
  assert.equal(openApiJson(doc), await (await get("/openapi.json")).text());
});

Deno.test("the document does not depend on the order the .proto files load in", async () => {
  const routes = compileRoutes((await schema()).services);
  const reversed = [...(await schema()).services].reverse();
  assert.equal(
    openApiJson(openApiDocument(compileRoutes(reversed))),
    openApiJson(openApiDocument(routes)),
  );
});

Deno.test("SchemaRegistry makes a schema once, on its first reference, even for a recursive message", () => {
  const { root } = protobuf.parse(`
    syntax = "proto3";
    package proto;
    message Node { string name = 1; repeated Node children = 2; }
  `);
  root.resolveAll();
  const registry = new SchemaRegistry();
  const node = root.lookupType("proto.Node");
  assert.deepEqual(registry.ref(node), { $ref: "#/components/schemas/Node" });
  assert.deepEqual(registry.ref(node), { $ref: "#/components/schemas/Node" });
  const schemas = registry.withErrorSchemas();
  assert.deepEqual(
    Object.keys(schemas).filter((name) => name === "Node"),
    ["Node"],
  );
  assert.ok(schemas["google.rpc.Status"], "the error body's schema");
});

Deno.test("SchemaRegistry refuses two types of one schema name, and a message named as the error body", () => {
  const parse = (source: string) => {
    const { root } = protobuf.parse(`syntax = "proto3"; ${source}`);
    root.resolveAll();
    return root;
  };
  const registry = new SchemaRegistry();
  registry.ref(
    parse("package proto; message Node {}").lookupType("proto.Node"),
  );
  assert.throws(
    () => registry.ref(parse("message Node {}").lookupType("Node")),
    /proto\.Node and Node both map to schema Node/,
  );
  const clashing = new SchemaRegistry();
  clashing.ref(
    parse("package google.rpc; message Status {}").lookupType(
      "google.rpc.Status",
    ),
  );
  assert.throws(
    () => clashing.withErrorSchemas(),
    /a message maps to schema google\.rpc\.Status/,
  );
});
