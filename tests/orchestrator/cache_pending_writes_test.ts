/**
 * A write answered while the cache is out of step (a lost watch being
 * listed again, orchestrator/cache_objects.ts) is read back by this replica
 * once the cache is in step again, though the relist was taken just before
 * the write; unless the API server lost its data between the two (a new
 * epoch), when what the write named may be what was lost.
 */
import assert from "node:assert/strict";
import { KINDS } from "../../domain/kinds.ts";
import type { ObjectPort } from "../../domain/ports.ts";
import type { ConfigMap } from "../../domain/resources.ts";
import { CachedObjects } from "../../orchestrator/cache_objects.ts";
import { MissLookups } from "../../orchestrator/cache_misses.ts";
import { CacheStores } from "../../orchestrator/cache_stores.ts";

function template(name: string, resourceVersion: string): ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name,
      namespace: "team-a",
      uid: `uid-${name}`,
      resourceVersion,
      labels: {
        "ray.io/config-type": "compute-template",
        "ray.io/compute-template": name,
      },
    },
    data: { name, namespace: "team-a", cpu: "1", memory: "1" },
  };
}

/** The direct port: a create answers the object at version 7. */
const direct = {
  create: (object: ConfigMap) =>
    Promise.resolve({
      ...object,
      metadata: { ...object.metadata, uid: "uid-small", resourceVersion: "7" },
    }),
} as unknown as ObjectPort<ConfigMap>;

function rig() {
  const stores = new CacheStores();
  const held = stores.kinds.templates;
  const gate = { inStep: false };
  const objects = new CachedObjects(
    KINDS.templates,
    direct,
    held,
    new MissLookups(),
    {
      staleness: () =>
        gate.inStep ? undefined : { reason: "listing", unanswered: true },
      notInStep: () => gate.inStep ? undefined : "listing again",
    },
  );
  return { held, gate, objects };
}

Deno.test("a write made while the cache is listed again is read back once it is in step, though the list was taken before it", async () => {
  const { held, gate, objects } = rig();
  await objects.create(template("small", ""));
  // The relist, taken before the write, lands without it.
  held.applyKept({ type: "replace", items: [], resourceVersion: "6" });
  gate.inStep = true;
  const names = (await objects.list("team-a")).map((t) => t.metadata.name);
  assert.deepEqual(names, ["small"]);
  assert.equal(
    (await objects.get("team-a", "small")).metadata.resourceVersion,
    "7",
  );
});

Deno.test("a write made before the API server lost its data is not read back in the new epoch", async () => {
  const { held, gate, objects } = rig();
  await objects.create(template("small", ""));
  held.applyKept({
    type: "replace",
    items: [],
    resourceVersion: "2",
    reset: { count: 1 },
  });
  gate.inStep = true;
  assert.deepEqual(await objects.list("team-a"), []);
});
