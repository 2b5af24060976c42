/**
 * The store only moves forward: late answers (a cache miss's lookup, a
 * write's answer, a relist listed before a delete) never replace a newer
 * version of an object nor bring back one it saw deleted; tombstones end
 * with their time and their bound.
 */
import assert from "node:assert/strict";
import { Store } from "../../orchestrator/store.ts";
import type { Reflected } from "../../orchestrator/reflector.ts";

function item(name: string, rv: string, uid = name): Reflected {
  return { metadata: { namespace: "a", name, resourceVersion: rv, uid } };
}

const versionOf = (store: Store<Reflected>, name: string) =>
  store.get("a", name)?.metadata?.resourceVersion;

Deno.test("Store: a lookup's answer arriving after the watch's delete does not bring the object back", () => {
  const store = new Store<Reflected>();
  store.apply({ type: "upsert", item: item("x", "10") });
  store.apply({ type: "delete", item: item("x", "12") });
  // The miss lookup answered before the delete; its answer comes late.
  assert.deepEqual(store.apply({ type: "upsert", item: item("x", "10") }), []);
  assert.equal(store.get("a", "x"), undefined);
  assert.deepEqual(store.list("a"), []);
  // Even when the store never held it (the watch's ADDED and DELETED came
  // together after the lookup left).
  store.apply({ type: "delete", item: item("y", "7") });
  store.apply({ type: "upsert", item: item("y", "6") });
  assert.equal(store.get("a", "y"), undefined);
});

Deno.test("Store: a new object of a deleted one's name comes in; a finalizer-kept one at a newer version too", () => {
  const store = new Store<Reflected>();
  store.apply({ type: "delete", item: item("x", "12") });
  store.apply({ type: "upsert", item: item("x", "3", "another-uid") });
  assert.equal(store.get("a", "x")?.metadata?.uid, "another-uid");
  // Corral's own delete buries the version it held; the object, kept by a
  // finalizer, comes back from the watch with its deletion time.
  store.apply({ type: "upsert", item: item("kept", "20") });
  store.apply({ type: "delete", item: item("kept", "20") });
  store.apply({ type: "upsert", item: item("kept", "20") });
  assert.equal(store.get("a", "kept"), undefined);
  store.apply({ type: "upsert", item: item("kept", "21") });
  assert.equal(versionOf(store, "kept"), "21");
});

Deno.test("Store: a relist listed before a delete does not bring the object back, nor an older version", () => {
  const store = new Store<Reflected>();
  store.apply({ type: "upsert", item: item("gone", "5") });
  store.apply({ type: "upsert", item: item("moved", "9") });
  store.apply({ type: "delete", item: item("gone", "8") });
  store.apply({
    type: "replace",
    items: [item("gone", "5"), item("moved", "7")],
    resourceVersion: "7",
  });
  assert.equal(store.get("a", "gone"), undefined);
  assert.equal(versionOf(store, "moved"), "9");
});

Deno.test("Store: what a relist no longer has is buried at the list's version", () => {
  const store = new Store<Reflected>();
  store.apply({ type: "upsert", item: item("x", "4") });
  store.apply({ type: "replace", items: [], resourceVersion: "30" });
  store.apply({ type: "upsert", item: item("x", "25") });
  assert.equal(store.get("a", "x"), undefined);
  store.apply({ type: "upsert", item: item("x", "31") });
  assert.equal(versionOf(store, "x"), "31");
});

Deno.test("Store: tombstones end after their time and beyond their bound", () => {
  let now = 0;
  const store = new Store<Reflected>(undefined, {
    tombstoneMs: 1_000,
    maxTombstones: 3,
    now: () => now,
  });
  store.apply({ type: "delete", item: item("x", "12") });
  now = 1_001;
  store.apply({ type: "upsert", item: item("x", "10") });
  assert.equal(versionOf(store, "x"), "10");

  for (const name of ["a", "b", "c", "d"]) {
    store.apply({ type: "delete", item: item(name, "50") });
  }
  store.apply({ type: "upsert", item: item("a", "40") });
  assert.equal(versionOf(store, "a"), "40", "the oldest went first");
  store.apply({ type: "upsert", item: item("d", "40") });
  assert.equal(store.get("a", "d"), undefined, "the newest three are kept");
});
