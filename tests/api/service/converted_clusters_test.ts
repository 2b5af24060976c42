import assert from "node:assert/strict";
import { ConvertedClusters } from "../../../api/service/converted_clusters.ts";
import { encode } from "../../../api/grpc/server.ts";
import { messageToJson } from "../../../domain/codec.ts";
import { messageToGatewayJson } from "../../../domain/kuberay_json.ts";
import type { KubeEvent, RayCluster } from "../../../domain/resources.ts";
import { schema } from "../../schema.ts";

function rayCluster(name: string, resourceVersion = "1"): RayCluster {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: {
      name,
      namespace: "team-a",
      uid: `uid-${name}`,
      resourceVersion,
      labels: { "ray.io/user": "ada" },
    },
    spec: {
      headGroupSpec: {
        rayStartParams: {},
        template: { spec: { containers: [{ name: "ray-head", image: "x" }] } },
      },
    },
  };
}

function event(name: string, resourceVersion: string): KubeEvent {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name, uid: `uid-${name}`, resourceVersion },
    involvedObject: { kind: "RayCluster", name: "blue", namespace: "team-a" },
    reason: name,
  };
}

Deno.test("a cluster is converted once while its RayCluster object and events stay the same", () => {
  const converted = new ConvertedClusters();
  const blue = rayCluster("blue");
  const events = [event("a", "5")];
  const first = converted.of(blue, events);
  assert.equal(converted.of(blue, [event("a", "5")]), first, "kept");
  assert.ok(Object.isFrozen(first) && Object.isFrozen(first.events));

  const changedEvent = converted.of(blue, [event("a", "6")]);
  assert.notEqual(changedEvent, first, "an event changed");
  const added = converted.of(blue, [event("a", "6"), event("b", "7")]);
  assert.deepEqual(added.events.map((e) => e.reason), ["a", "b"]);

  // The cache replaces a changed RayCluster with a new object.
  const moved = converted.of(rayCluster("blue", "2"), [event("a", "6")]);
  assert.notEqual(moved, changedEvent);
  assert.deepEqual(
    { ...moved, etag: "" },
    { ...changedEvent, etag: "" },
    "same content, converted anew",
  );
  assert.notEqual(moved.etag, changedEvent.etag);
});

Deno.test("a kept cluster's JSON is encoded once, in either dialect", async () => {
  const Cluster = (await schema()).root.lookupType("proto.Cluster");
  const kept = new ConvertedClusters().of(rayCluster("blue"), [
    event("a", "5"),
  ]);
  for (const encode of [messageToJson, messageToGatewayJson]) {
    const json = encode(Cluster, kept as never);
    assert.equal(encode(Cluster, kept as never), json, encode.name);
    // A message that is not kept (not frozen) is encoded each time.
    const fresh = structuredClone(kept);
    assert.notEqual(encode(Cluster, fresh as never), json);
    assert.deepEqual(encode(Cluster, fresh as never), json);
  }
  // The dialects differ (enums as numbers, unpopulated fields left out).
  assert.notDeepEqual(
    messageToGatewayJson(Cluster, kept as never),
    messageToJson(Cluster, kept as never),
  );
});

Deno.test("a list is converted once while the cache hands out the same arrays", () => {
  const converted = new ConvertedClusters();
  const resources = [rayCluster("blue"), rayCluster("green")];
  const events = [event("a", "5")];
  const first = converted.list(resources, events);
  assert.equal(first.length, 2);
  assert.ok(Object.isFrozen(first));
  assert.equal(converted.list(resources, events), first, "kept");
  assert.deepEqual(first[0].events.map((e) => e.reason), ["a"]);
  // Another array (the cache changed): a new list, its unchanged clusters kept.
  const next = converted.list([...resources], [...events]);
  assert.notEqual(next, first);
  assert.equal(next[1], first[1]);
});

Deno.test("what is kept of a cluster is held in slots no encoder, spread or comparison sees: its message on the RayCluster, its JSON on the message; equal specs are one object", async () => {
  const Cluster = (await schema()).root.lookupType("proto.Cluster");
  const converted = new ConvertedClusters();
  const blue = rayCluster("blue");
  const before = JSON.stringify(blue);
  const kept = converted.of(blue, []);
  assert.equal(JSON.stringify(blue), before, "the RayCluster reads the same");
  assert.deepEqual({ ...blue }, JSON.parse(before));
  assert.deepEqual(Object.getOwnPropertySymbols(blue).length, 1);
  assert.equal(
    Object.getOwnPropertyDescriptor(
      blue,
      Object.getOwnPropertySymbols(blue)[0],
    )?.enumerable,
    false,
  );
  const json = messageToJson(Cluster, kept as never);
  assert.equal(messageToJson(Cluster, kept as never), json, "encoded once");
  assert.deepEqual(Object.keys(kept), Object.keys({ ...kept }));
  assert.deepEqual(
    JSON.parse(JSON.stringify(kept)),
    JSON.parse(JSON.stringify(structuredClone(kept))),
  );
  // A RayCluster that cannot take a slot (frozen) is kept all the same.
  const frozen = Object.freeze(rayCluster("frozen"));
  assert.equal(converted.of(frozen, []), converted.of(frozen, []));
  // Two clusters alike but for their names share one frozen spec.
  const green = converted.of(rayCluster("green"), []);
  assert.equal(green.clusterSpec, kept.clusterSpec);
  assert.ok(Object.isFrozen(green.clusterSpec?.headGroupSpec));
});

Deno.test("a kept cluster's protobuf bytes are made once; a message not kept is encoded each time", async () => {
  const Cluster = (await schema()).root.lookupType("proto.Cluster");
  const kept = new ConvertedClusters().of(rayCluster("blue"), [
    event("a", "5"),
  ]);
  const bytes = encode(Cluster, kept as never);
  assert.equal(encode(Cluster, kept as never), bytes);
  const fresh = structuredClone(kept);
  const again = encode(Cluster, fresh as never);
  assert.notEqual(again, bytes);
  assert.deepEqual(again, bytes);
  assert.equal(
    (Cluster.decode(bytes) as unknown as { name: string }).name,
    "blue",
  );
});
