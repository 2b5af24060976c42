/**
 * gRPC server reflection and the standard health service, asked by generic
 * grpc-js clients that know neither Corral's .proto files nor its code.
 */
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import {
  addHealthService,
  healthServiceDefinition,
} from "../../../api/grpc/health.ts";
import {
  addReflection,
  fileDescriptors,
} from "../../../api/grpc/reflection.ts";
import { bindFreePort, schema } from "../../harness.ts";
import { type DiscoveryClient, discoveryClient } from "./discovery_client.ts";

const SERVICES = [
  "proto.ClusterService",
  "proto.ComputeTemplateService",
  "proto.QuotaService",
  "proto.RayJobService",
  "proto.RayJobSubmissionService",
  "proto.RayServeService",
];

async function withServer(
  fn: (
    client: DiscoveryClient,
    health: ReturnType<typeof addHealthService>,
  ) => Promise<void>,
): Promise<void> {
  const api = await schema();
  const server = new grpc.Server();
  const health = addHealthService(server, SERVICES);
  addReflection(server, [...api.services, healthServiceDefinition()], api.root);
  const port = await bindFreePort(server);
  const client = await discoveryClient(`127.0.0.1:${port}`, api.root);
  try {
    await fn(client, health);
  } finally {
    client.close();
    health.shutdown();
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  }
}

type File = {
  name: string;
  package?: string;
  dependency?: string[];
  messageType?: Message[];
  service?: {
    name: string;
    method: { name: string; inputType: string; outputType: string }[];
  }[];
};
type Message = {
  name: string;
  field?: {
    name: string;
    number: number;
    label: string;
    type: string;
    typeName?: string;
    jsonName?: string;
    proto3Optional?: boolean;
    oneofIndex?: number;
  }[];
  nestedType?: Message[];
  oneofDecl?: { name: string }[];
  options?: { mapEntry?: boolean };
};

Deno.test("reflection lists proto.ClusterService, proto.ComputeTemplateService, proto.QuotaService, proto.RayJobService, proto.RayJobSubmissionService, proto.RayServeService and grpc.health.v1.Health", async () => {
  await withServer(async (client) => {
    assert.deepEqual((await client.listServices()).sort(), [
      "grpc.health.v1.Health",
      ...SERVICES,
    ]);
  });
});

Deno.test("reflection describes each service with every file it needs", async () => {
  await withServer(async (client) => {
    for (const service of [...SERVICES, "grpc.health.v1.Health"]) {
      const files = await client.fileContainingSymbol(service) as File[];
      const names = files.map((f) => f.name);
      // Self-contained: every import is among the files returned.
      for (const file of files) {
        for (const dependency of file.dependency ?? []) {
          assert.ok(names.includes(dependency), `${service}: ${dependency}`);
        }
      }
      const symbols = new Set(files.flatMap((f) => [
        ...(f.messageType ?? []).map((m) => `.${f.package}.${m.name}`),
      ]));
      const [pkg, name] = [
        service.slice(0, service.lastIndexOf(".")),
        service.slice(service.lastIndexOf(".") + 1),
      ];
      const file = files.find((f) =>
        f.package === pkg && f.service?.some((s) => s.name === name)
      );
      assert.ok(file, `${service} is in none of ${names}`);
      const methods = file.service!.find((s) => s.name === name)!.method;
      // QuotaService has one method; every other service three or more.
      assert.ok(
        methods.length >= (service === "proto.QuotaService" ? 1 : 3),
        service,
      );
      for (const method of methods) {
        assert.ok(symbols.has(method.inputType), method.inputType);
        assert.ok(symbols.has(method.outputType), method.outputType);
      }
    }
  });
});

Deno.test("reflection's cluster.proto is the wire contract: names, numbers, maps, optional fields", async () => {
  await withServer(async (client) => {
    const files = await client.fileByFilename("cluster.proto") as File[];
    const file = files[0];
    assert.equal(file.name, "cluster.proto");
    assert.equal(file.package, "proto");
    assert.deepEqual(file.dependency, [
      "google/protobuf/empty.proto",
      "google/protobuf/field_mask.proto",
      "google/protobuf/timestamp.proto",
    ]);
    const cluster = file.messageType!.find((m) => m.name === "Cluster")!;
    assert.deepEqual(
      cluster.field!.map((f) => [f.name, f.number, f.jsonName]),
      [
        ["name", 1, "name"],
        ["namespace", 2, "namespace"],
        ["user", 3, "user"],
        ["version", 4, "version"],
        ["environment", 5, "environment"],
        ["cluster_spec", 6, "clusterSpec"],
        ["created_at", 7, "createdAt"],
        ["deleted_at", 8, "deletedAt"],
        ["cluster_state", 9, "clusterState"],
        ["events", 10, "events"],
        ["service_endpoint", 11, "serviceEndpoint"],
        ["envs", 12, "envs"],
        ["etag", 14, "etag"],
        // Corral's own, above KubeRay's numbers: where a ready cluster is.
        ["client_url", 101, "clientUrl"],
        ["dashboard_url", 102, "dashboardUrl"],
        ["dashboard_proxy_url", 103, "dashboardProxyUrl"],
        // Expiry's own, from 110.
        ["ttl", 110, "ttl"],
        ["expires_at", 111, "expiresAt"],
        // Queues' own (Kueue), past expiry's.
        ["queue", 112, "queue"],
        // KubeRay's later fields, where v0.6.0 had used KubeRay's numbers.
        ["annotations", 20, "annotations"],
        ["envs_values_from", 21, "envsValuesFrom"],
      ],
    );
    const endpoint = cluster.field!.find((f) => f.name === "service_endpoint")!;
    assert.equal(endpoint.label, "LABEL_REPEATED");
    assert.equal(endpoint.typeName, ".proto.Cluster.ServiceEndpointEntry");
    const entry = cluster.nestedType!.find((m) =>
      m.name === "ServiceEndpointEntry"
    )!;
    assert.equal(entry.options?.mapEntry, true);
    assert.equal(
      cluster.field!.find((f) => f.name === "created_at")!.typeName,
      ".google.protobuf.Timestamp",
    );
    const worker = file.messageType!.find((m) => m.name === "WorkerGroupSpec")!;
    const min = worker.field!.find((f) => f.name === "min_replicas")!;
    assert.equal(min.proto3Optional, true);
    assert.equal(worker.oneofDecl![min.oneofIndex!].name, "_min_replicas");
    // A symbol resolves to its file too.
    const byType = await client.fileContainingSymbol("proto.Cluster");
    assert.equal((byType[0] as File).name, "cluster.proto");
  });
});

Deno.test("fileDescriptors() names files as they are imported and orders imports first", async () => {
  const api = await schema();
  const names = fileDescriptors(api.services).map((f) => f.name);
  assert.deepEqual(names, [
    "google/protobuf/empty.proto",
    "google/protobuf/field_mask.proto",
    "google/protobuf/timestamp.proto",
    "cluster.proto",
    "compute_template.proto",
    "job.proto",
    "job_submission.proto",
    "quota.proto",
    "serve.proto",
  ]);
  assert.deepEqual(
    fileDescriptors([...api.services].reverse()).map((f) => f.name),
    names,
  );
});

Deno.test("the health service answers SERVING for the server and each service, NOT_FOUND for others", async () => {
  await withServer(async (client) => {
    assert.equal(await client.check(""), "SERVING");
    for (const service of SERVICES) {
      assert.equal(await client.check(service), "SERVING", service);
    }
    assert.deepEqual(await client.check("proto.NoSuchService"), {
      code: grpc.status.NOT_FOUND,
    });
  });
});

Deno.test("the health service reports a status change to Check and Watch, and shutdown() ends the watch", async () => {
  await withServer(async (client, health) => {
    const watch = client.watch("");
    assert.equal(await watch.next(), "SERVING");
    health.setStatus("", "NOT_SERVING");
    assert.equal(await watch.next(), "NOT_SERVING");
    assert.equal(await client.check(""), "NOT_SERVING");
    health.setAll("SERVING");
    assert.equal(await watch.next(), "SERVING");
    assert.equal(await client.check("proto.ClusterService"), "SERVING");
    const unknown = client.watch("proto.NoSuchService");
    assert.equal(await unknown.next(), "SERVICE_UNKNOWN");
    health.shutdown();
    assert.equal(await watch.next(), "NOT_SERVING");
    assert.equal(await watch.next(), undefined, "the stream ended");
    assert.equal(await unknown.next(), undefined, "the stream ended");
    assert.equal(await client.check(""), "NOT_SERVING");
  });
});
