/**
 * api/grpc/kuberay_codec.ts: KubeRay's current messages read into the
 * API's requests and the API's answers written as KubeRay's, without a
 * server. A field KubeRay's message has and Corral keeps nowhere is
 * refused by name: KubeRay's Cluster is given such a field here, as a
 * later KubeRay may add one.
 */
import assert from "node:assert/strict";
import protobuf from "protobufjs";
import { kuberayCodec, NOT_KEPT } from "../../../api/grpc/kuberay_codec.ts";
import {
  type ApiSchema,
  loadApiSchema,
  loadKubeRaySchema,
  methodKey,
} from "../../../api/schema.ts";
import { Code, ServiceError } from "../../../domain/errors.ts";
import type { Message } from "../../../domain/message_form.ts";

function method(schema: ApiSchema, key: string): protobuf.Method {
  for (const service of schema.services) {
    for (const m of service.methodsArray) {
      m.resolve();
      if (methodKey(m) === key) return m;
    }
  }
  throw new Error(`no ${key}`);
}

function bytesOf(type: protobuf.Type, object: Record<string, unknown>) {
  return type.encode(type.fromObject(object)).finish();
}

const CREATE = "proto.ClusterService/CreateCluster";

Deno.test("a KubeRay field Corral keeps nowhere is refused by name with code 3, never dropped", async () => {
  const kuberay = await loadKubeRaySchema();
  kuberay.root.lookupType("proto.Cluster").add(
    new protobuf.Field("laterField", 99, "string"),
  );
  const codec = kuberayCodec(kuberay, await loadApiSchema());
  const create = method(kuberay, CREATE);
  const bytes = bytesOf(create.resolvedRequestType!, {
    namespace: "team-a",
    cluster: { name: "c", laterField: "x", annotations: { a: "b" } },
  });
  assert.throws(
    () => codec.decode(create, bytes),
    (error: unknown) => {
      assert.ok(error instanceof ServiceError);
      assert.equal(error.code, Code.INVALID_ARGUMENT);
      assert.equal(
        error.message,
        `Invalid request: cluster.laterField: ${NOT_KEPT}`,
      );
      assert.deepEqual(error.details, [{
        "@type": "type.googleapis.com/google.rpc.BadRequest",
        fieldViolations: [{
          field: "cluster.laterField",
          description: NOT_KEPT,
        }],
      }]);
      return true;
    },
  );
});

Deno.test("KubeRay's request becomes the API's, its start parameters and variables where the API keeps them", async () => {
  const kuberay = await loadKubeRaySchema();
  const codec = kuberayCodec(kuberay, await loadApiSchema());
  const create = method(kuberay, CREATE);
  const request = codec.decode(
    create,
    bytesOf(create.resolvedRequestType!, {
      namespace: "team-a",
      cluster: {
        name: "c",
        clusterSpec: {
          headGroupSpec: {
            computeTemplate: "t",
            rayStartParams: { "num-cpus": "1" },
            environment: {
              values: { A: "1" },
              valuesFrom: { B: { source: 1, name: "s", key: "k" } },
            },
          },
        },
      },
    }),
  );
  const head = ((request.cluster as Message).clusterSpec as Message)
    .headGroupSpec as Message;
  assert.equal(request.namespace, "team-a");
  assert.deepEqual(head.engineStartParams, { "num-cpus": "1" });
  assert.deepEqual(head.environment, { A: "1" });
  assert.deepEqual(head.environmentValuesFrom, {
    B: { source: "SECRET", name: "s", key: "k" },
  });
});

Deno.test("the API's answer is written as KubeRay's message, Corral's own fields left out", async () => {
  const kuberay = await loadKubeRaySchema();
  const api = await loadApiSchema();
  const codec = kuberayCodec(kuberay, api);
  const create = method(kuberay, CREATE);
  const apiCluster = api.root.lookupType("proto.Cluster");
  const answer = apiCluster.toObject(
    apiCluster.fromObject({
      name: "c",
      etag: "7",
      clusterSpec: {
        headGroupSpec: {
          computeTemplate: "t",
          engineStartParams: { "num-cpus": "1" },
          environment: { A: "1" },
        },
      },
    }),
  );
  const bytes = codec.encode(create, {
    ...answer,
    createdAt: new Date("2026-01-02T03:04:05Z"),
  } as Message);
  const cluster = kuberay.root.lookupType("proto.Cluster");
  const decoded = cluster.toObject(cluster.decode(bytes), {
    defaults: false,
    longs: Number,
  }) as Record<string, unknown>;
  assert.deepEqual(decoded, {
    name: "c",
    clusterSpec: {
      headGroupSpec: {
        computeTemplate: "t",
        rayStartParams: { "num-cpus": "1" },
        environment: { values: { A: "1" } },
      },
    },
    createdAt: { seconds: 1767323045 },
  });
});
