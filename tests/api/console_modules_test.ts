/**
 * The parts of the console's modules (api/console/) that need no page: the
 * watch's answers applied to what the console knows, the cluster list's
 * filter and the ages it shows. The browser walk is
 * tests/browser/console_test.ts.
 *
 * The modules are loaded by URL, as the browser loads them: a static import
 * would bring the DOM library they reference into the type-check of every
 * test (`deno check api/console/` checks them on their own).
 */
import assert from "node:assert/strict";

const CONSOLE = new URL("../../api/console/", import.meta.url);

interface Cluster {
  name: string;
  namespace: string;
  user?: string;
  version?: string;
}
interface Answer {
  type: string;
  cluster?: Cluster;
  resourceVersion: string;
}
interface State {
  clusters: Map<string, Cluster>;
  watch: { resourceVersion: string; synced: boolean };
}

const { state } = await import(`${CONSOLE}state.js`) as { state: State };
const { applyAnswer } = await import(`${CONSOLE}watch.js`) as {
  applyAnswer: (answer: Answer, fresh: boolean, seen: Set<string>) => void;
};
const { filtered } = await import(`${CONSOLE}clusters_view.js`) as {
  filtered: (filter: { ns: string; text: string }) => Cluster[];
};
const { age } = await import(`${CONSOLE}format.js`) as {
  age: (timestamp: string | null | undefined) => string;
};

function cluster(namespace: string, name: string, user = ""): Cluster {
  return { namespace, name, user, version: "2.9.0" };
}

function reset(clusters: Cluster[] = []): void {
  state.clusters = new Map(
    clusters.map((c) => [`${c.namespace}/${c.name}`, c]),
  );
  state.watch.resourceVersion = "";
  state.watch.synced = false;
}

Deno.test("applyAnswer() ends a fresh watch's first clusters at its BOOKMARK, dropping those it did not send", () => {
  reset([cluster("a", "gone")]);
  const seen = new Set<string>();
  applyAnswer(
    { type: "ADDED", cluster: cluster("a", "x"), resourceVersion: "" },
    true,
    seen,
  );
  applyAnswer(
    { type: "ADDED", cluster: cluster("b", "y"), resourceVersion: "" },
    true,
    seen,
  );
  assert.equal(state.watch.synced, false);
  applyAnswer({ type: "BOOKMARK", resourceVersion: "5" }, true, seen);
  assert.deepEqual([...state.clusters.keys()].sort(), ["a/x", "b/y"]);
  assert.equal(state.watch.synced, true);
  assert.equal(state.watch.resourceVersion, "5");
});

Deno.test("applyAnswer() follows changes and deletions, and where the watch is", () => {
  reset([cluster("a", "x"), cluster("a", "y")]);
  state.watch.synced = true;
  const seen = new Set<string>();
  applyAnswer(
    {
      type: "MODIFIED",
      cluster: cluster("a", "x", "bob"),
      resourceVersion: "6",
    },
    false,
    seen,
  );
  applyAnswer(
    { type: "DELETED", cluster: cluster("a", "y"), resourceVersion: "7" },
    false,
    seen,
  );
  applyAnswer({ type: "BOOKMARK", resourceVersion: "8" }, false, seen);
  assert.deepEqual([...state.clusters.values()], [cluster("a", "x", "bob")]);
  assert.equal(state.watch.resourceVersion, "8");
});

Deno.test("filtered() keeps a namespace's clusters whose name, user or version holds the text, by namespace and name", () => {
  reset([
    cluster("b", "blue", "alice"),
    cluster("a", "green", "bob"),
    cluster("a", "blue", "carol"),
  ]);
  const names = (ns: string, text: string) =>
    filtered({ ns, text }).map((c) => `${c.namespace}/${c.name}`);
  assert.deepEqual(names("", ""), ["a/blue", "a/green", "b/blue"]);
  assert.deepEqual(names("a", ""), ["a/blue", "a/green"]);
  assert.deepEqual(names("", "blu"), ["a/blue", "b/blue"]);
  assert.deepEqual(names("", "alice"), ["b/blue"]);
  assert.deepEqual(names("b", "bob"), []);
});

Deno.test("age() is written as kubectl writes it", async (t) => {
  const ago = (seconds: number) =>
    new Date(Date.now() - seconds * 1000).toISOString();
  for (
    const [timestamp, want] of [
      [ago(45), "45s"],
      [ago(12 * 60), "12m"],
      [ago(3 * 3600), "3h"],
      [ago(5 * 86400), "5d"],
      [null, ""],
    ] as const
  ) {
    await t.step(`${want || "unknown"}`, () => {
      assert.equal(age(timestamp), want);
    });
  }
});
