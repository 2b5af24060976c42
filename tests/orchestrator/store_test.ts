import assert from "node:assert/strict";
import { Store } from "../../orchestrator/store.ts";
import type { Reflected } from "../../orchestrator/reflector.ts";

function item(
  namespace: string,
  name: string,
  rv = "1",
  uid = name,
): Reflected {
  return { metadata: { namespace, name, resourceVersion: rv, uid } };
}

const names = (items: readonly Reflected[]) =>
  items.map((i) => `${i.metadata!.namespace}/${i.metadata!.name}`);

Deno.test("Store lists by namespace then name, and keeps lists in step with changes", () => {
  const store = new Store<Reflected>();
  store.apply({
    type: "replace",
    items: [item("b", "z"), item("a", "y"), item("b", "a"), item("a", "c")],
  });
  assert.deepEqual(names(store.list()), ["a/c", "a/y", "b/a", "b/z"]);
  assert.deepEqual(names(store.list("b")), ["b/a", "b/z"]);
  store.apply({ type: "upsert", item: item("a", "b") });
  store.apply({ type: "delete", item: item("b", "z") });
  assert.deepEqual(names(store.list()), ["a/b", "a/c", "a/y", "b/a"]);
  assert.equal(store.size, 4);
});

Deno.test("Store: a replace within a namespace leaves the others; one for all drops what is gone", () => {
  const store = new Store<Reflected>();
  store.apply({ type: "replace", items: [item("a", "x"), item("b", "x")] });
  store.apply({ type: "replace", items: [item("a", "y")] }, "a");
  assert.deepEqual(names(store.list()), ["a/y", "b/x"]);
  store.apply({ type: "replace", items: [] });
  assert.deepEqual(names(store.list()), []);
  assert.equal(store.size, 0);
});

Deno.test("Store ignores an older version of an object it holds, not a namesake's", () => {
  const store = new Store<Reflected>();
  store.apply({ type: "upsert", item: item("a", "x", "20") });
  // A write's answer arriving after the watch brought a later change.
  store.apply({ type: "upsert", item: item("a", "x", "19") });
  assert.equal(store.get("a", "x")?.metadata?.resourceVersion, "20");
  // A new object of the same name (another uid) replaces it, whatever its version.
  store.apply({ type: "upsert", item: item("a", "x", "5", "other") });
  assert.equal(store.get("a", "x")?.metadata?.uid, "other");
});

Deno.test("Store indexes objects by a key of their own", () => {
  const store = new Store<Reflected & { about?: string }>((i) => i.about);
  store.apply({
    type: "replace",
    items: [
      { ...item("a", "e1"), about: "a/blue" },
      { ...item("a", "e2"), about: "a/blue" },
      { ...item("a", "e3"), about: "a/green" },
    ],
  });
  assert.equal([...store.indexed("a/blue")].length, 2);
  store.apply({ type: "delete", item: item("a", "e1") });
  assert.deepEqual(names([...store.indexed("a/blue")]), ["a/e2"]);
  assert.deepEqual([...store.indexed("a/none")], []);
});

Deno.test("Store: a replace marked a reset (versions started again) is taken as it stands, older versions and deleted objects included", () => {
  const store = new Store<Reflected>();
  store.apply({
    type: "replace",
    items: [item("a", "x", "1200"), item("a", "y", "1210")],
    resourceVersion: "1238",
  });
  store.apply({ type: "delete", item: item("a", "y", "1230") });
  // An API server restored from a backup: the same objects (same uids) at
  // lower versions, y among them although the store saw it deleted.
  const restored = [item("a", "x", "100"), item("a", "y", "110")];
  // Without the mark, the store keeps what it held: versions only grow.
  store.apply({ type: "replace", items: restored, resourceVersion: "121" });
  assert.equal(store.get("a", "x")?.metadata?.resourceVersion, "1200");
  assert.equal(store.get("a", "y"), undefined);
  const changed = store.apply({
    type: "replace",
    items: restored,
    resourceVersion: "121",
    reset: { count: 1 },
  });
  assert.deepEqual(
    changed.map(([, after]) => after?.metadata?.resourceVersion),
    ["100", "110"],
  );
  assert.equal(store.get("a", "x")?.metadata?.resourceVersion, "100");
  assert.equal(store.get("a", "y")?.metadata?.resourceVersion, "110");
  // After it, versions compare again, within the new epoch.
  store.apply({ type: "upsert", item: item("a", "x", "99") });
  assert.equal(store.get("a", "x")?.metadata?.resourceVersion, "100");
});

Deno.test("Store: a replace marked a reset tells no change of an object it holds at the same uid and version", () => {
  const store = new Store<Reflected>();
  store.apply({
    type: "replace",
    items: [item("a", "x", "100"), item("a", "y", "110")],
    resourceVersion: "1238",
  });
  // Restored from a backup: x as it was, y at another version.
  const changed = store.apply({
    type: "replace",
    items: [item("a", "x", "100"), item("a", "y", "105")],
    resourceVersion: "121",
    reset: { count: 1 },
  });
  assert.deepEqual(
    changed.map(([before, after]) => [
      before?.metadata?.resourceVersion,
      after?.metadata?.resourceVersion,
    ]),
    [["110", "105"]],
  );
});

Deno.test("Store: a list taken before a write does not drop the write's answer applied first, nor hide it from the watch", () => {
  const store = new Store<Reflected>();
  // A template created while the first list was on its way: the write's
  // answer (version 12) reaches the store first, the list (version 10)
  // after it, then the watch from 10 brings the creation.
  store.apply({ type: "upsert", item: item("a", "small", "12") });
  store.apply({
    type: "replace",
    items: [item("a", "other", "3")],
    resourceVersion: "10",
  });
  assert.deepEqual(names(store.list()), ["a/other", "a/small"]);
  assert.deepEqual(
    store.apply({ type: "upsert", item: item("a", "small", "12") }),
    [],
  );
  // A list taken after the write that no longer has it: deleted since.
  store.apply({
    type: "replace",
    items: [item("a", "other", "3")],
    resourceVersion: "15",
  });
  assert.deepEqual(names(store.list()), ["a/other"]);
  store.apply({ type: "upsert", item: item("a", "small", "12") });
  assert.deepEqual(names(store.list()), ["a/other"]);
});
