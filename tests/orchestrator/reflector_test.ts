/**
 * The reflector against a scripted transport: where each watch resumes
 * from (the last event's or bookmark's resourceVersion), when it lists
 * again (410 in the stream or as a status, a failed watch or list), and
 * what the store is told.
 */
import assert from "node:assert/strict";
import { silentLogger } from "../../api/log.ts";
import {
  type Reflected,
  startReflector,
  type StoreChange,
} from "../../orchestrator/reflector.ts";
import type { WatchTransport } from "../../orchestrator/watch_stream.ts";
import { until } from "../eventually.ts";
import { ManualClock } from "../manual_clock.ts";

type Item = Reflected;

/** What one watch call does: events to send, then how it ends. */
interface WatchScript {
  events: [string, object][];
  end: "close" | "error" | "hang";
  /** The watch call itself fails with this HTTP status. */
  status?: number;
}

function item(name: string, resourceVersion: string): Item {
  return { metadata: { name, namespace: "a", resourceVersion, uid: name } };
}

function scripted(
  lists: (() => unknown)[],
  watches: WatchScript[],
): WatchTransport & { watchedFrom: string[]; lists: number } {
  const transport = {
    watchedFrom: [] as string[],
    lists: 0,
    list() {
      const next = lists[transport.lists++] ?? lists[lists.length - 1];
      return Promise.resolve().then(next);
    },
    watch(
      _path: string,
      query: Record<string, string>,
      onEvent: (type: string, object: never) => void,
      done: (error: unknown) => void,
    ) {
      transport.watchedFrom.push(query.resourceVersion);
      assert.equal(query.allowWatchBookmarks, "true");
      const script = watches.shift() ?? { events: [], end: "hang" };
      if (script.status !== undefined) {
        return Promise.reject(
          Object.assign(new Error("status"), { statusCode: script.status }),
        );
      }
      const controller = new AbortController();
      setTimeout(() => {
        for (const [type, object] of script.events) {
          onEvent(type, object as never);
        }
        if (script.end === "close") done(null);
        if (script.end === "error") done(new Error("connection reset"));
      }, 1);
      return Promise.resolve(controller);
    },
  };
  return transport;
}

async function run(
  transport: WatchTransport & { watchedFrom: string[] },
  until: () => boolean,
): Promise<StoreChange<Item>[]> {
  const changes: StoreChange<Item>[] = [];
  const reflector = startReflector<Item>({
    resource: "things",
    namespace: "",
    list: () => transport.list("/things", {}) as never,
    watchPath: "/things",
    watch: transport,
    onChange: (change) => changes.push(change),
    log: silentLogger(),
    backoffMs: 1,
  });
  const deadline = Date.now() + 5_000;
  while (!until() && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
  }
  await reflector.stop();
  assert.ok(until(), `timed out; watched from ${transport.watchedFrom}`);
  return changes;
}

Deno.test("a watch that ends resumes from the last event's or bookmark's resourceVersion", async () => {
  const transport = scripted([() => ({
    items: [item("x", "10")],
    metadata: { resourceVersion: "10" },
  })], [
    { events: [["ADDED", item("y", "11")]], end: "close" },
    {
      events: [["BOOKMARK", { metadata: { resourceVersion: "42" } }]],
      end: "close",
    },
    { events: [], end: "hang" },
  ]);
  const changes = await run(transport, () => transport.watchedFrom.length >= 3);
  assert.deepEqual(transport.watchedFrom, ["10", "11", "42"]);
  assert.equal(transport.lists, 1, "no list again");
  assert.deepEqual(changes.map((c) => c.type), ["replace", "upsert"]);
});

Deno.test("410 Expired in the stream or as the watch's status lists again", async () => {
  const transport = scripted([
    () => ({ items: [item("x", "10")], metadata: { resourceVersion: "10" } }),
    () => ({ items: [], metadata: { resourceVersion: "20" } }),
    () => ({ items: [], metadata: { resourceVersion: "30" } }),
  ], [
    { events: [["ERROR", { code: 410, reason: "Expired" }]], end: "close" },
    { events: [], end: "close", status: 410 },
    { events: [], end: "hang" },
  ]);
  const changes = await run(transport, () => transport.watchedFrom.length >= 3);
  assert.deepEqual(transport.watchedFrom, ["10", "20", "30"]);
  // Each list replaces the store: x, gone from the second list, is dropped.
  assert.deepEqual(
    changes.map((c) => c.type === "replace" ? c.items.length : c.type),
    [1, 0, 0],
  );
});

Deno.test("a failed watch or list lists again after a backoff, and the store converges", async () => {
  const transport = scripted([
    () => ({ items: [item("x", "10")], metadata: { resourceVersion: "10" } }),
    () => {
      throw new Error("connection refused");
    },
    () => ({ items: [], metadata: { resourceVersion: "3" } }),
  ], [
    { events: [], end: "error" },
    { events: [], end: "hang" },
  ]);
  const changes = await run(transport, () => transport.watchedFrom.length >= 2);
  // The third list is of a restarted API server: resourceVersions went
  // back, and the replace says so (the store then takes it as it stands).
  assert.deepEqual(transport.watchedFrom, ["10", "3"]);
  assert.equal(transport.lists, 3);
  const last = changes.at(-1)!;
  assert.deepEqual(last, {
    type: "replace",
    items: [],
    resourceVersion: "3",
    reset: { count: 1 },
  });
});

Deno.test("stop() ends the watch followed even when the one before it, ended as silent, calls back late", async () => {
  // The clock moves only when the test says: the first watch goes silent
  // past the limit, the second never does.
  const clock = new ManualClock();
  const dones: ((error: unknown) => void)[] = [];
  const controllers: AbortController[] = [];
  const transport: WatchTransport = {
    list: () =>
      Promise.resolve({ items: [], metadata: { resourceVersion: "1" } }),
    watch(_path, _query, _onEvent, done) {
      // Neither watch calls back when aborted: a hung API server.
      dones.push(done);
      const controller = new AbortController();
      controllers.push(controller);
      return Promise.resolve(controller);
    },
    version: () => Promise.resolve(),
  } as WatchTransport;
  const reflector = startReflector<Item>({
    resource: "things",
    namespace: "",
    list: () => transport.list("/things", {}) as never,
    watchPath: "/things",
    watch: transport,
    onChange: () => {},
    log: silentLogger(),
    backoffMs: 1,
    silenceLimitMs: 50,
    timers: clock,
  });
  try {
    await until("the first watch", () => dones.length === 1);
    clock.advance(49);
    assert.ok(!controllers[0].signal.aborted, "not silent before the limit");
    clock.advance(1);
    await until("the silent watch started again", () => dones.length === 2);
    assert.ok(controllers[0].signal.aborted, "the silent watch was ended");
    // The first watch's stream ends only now; any pause it caused passes.
    dones[0](null);
    clock.advance(1);
    await new Promise((r) => setTimeout(r, 0));
  } finally {
    await reflector.stop();
  }
  assert.equal(dones.length, 2, "no watch after stop()");
  assert.ok(controllers[1].signal.aborted, "the second watch was ended");
});
