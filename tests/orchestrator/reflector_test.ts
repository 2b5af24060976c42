/**
 * The reflector against a scripted transport: where each watch resumes
 * from (the last event's or bookmark's resourceVersion), when it lists
 * again (410 in the stream or as a status, a failed watch or list, a
 * watch the API server ended early, "too large"), and what the store is
 * told; and reflectors sharing their versions (version_line.ts).
 */
import assert from "node:assert/strict";
import { silentLogger } from "../../api/log.ts";
import {
  type Reflected,
  type Reflector,
  startReflector,
  type StoreChange,
} from "../../orchestrator/reflector.ts";
import { VersionLine } from "../../orchestrator/version_line.ts";
import type { WatchTransport } from "../../orchestrator/watch_stream.ts";
import { until } from "../eventually.ts";
import { ManualClock } from "../manual_clock.ts";

type Item = Reflected;

/**
 * What one watch call does: events to send, then how it ends: "close" at
 * its time limit (the clock moved on to it, when there is one), "early"
 * (cleanly, before it), with an error, or never.
 */
interface WatchScript {
  events: [string, object][];
  end: "close" | "early" | "error" | "hang";
  /** The watch call itself fails with this HTTP status. */
  status?: number;
}

function item(name: string, resourceVersion: string): Item {
  return { metadata: { name, namespace: "a", resourceVersion, uid: name } };
}

type Scripted = WatchTransport & {
  watchedFrom: string[];
  listedFrom: string[];
  lists: number;
};

function scripted(
  lists: (() => unknown)[],
  watches: WatchScript[],
  clock?: ManualClock,
): Scripted {
  const transport = {
    watchedFrom: [] as string[],
    listedFrom: [] as string[],
    lists: 0,
    list(_path: string, query: Record<string, string>) {
      transport.listedFrom.push(query.resourceVersion);
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
        if (script.end === "close") {
          clock?.advance(Number(query.timeoutSeconds) * 1000);
          done(null);
        }
        if (script.end === "early") done(null);
        if (script.end === "error") done(new Error("connection reset"));
      }, 1);
      return Promise.resolve(controller);
    },
  };
  return transport;
}

/** A reflector over `transport`, with its versions and clock if given. */
function reflectorOver(
  transport: Scripted,
  onChange: (change: StoreChange<Item>) => void,
  options: {
    versions?: VersionLine;
    timers?: ManualClock;
    currentVersion?: () => Promise<string>;
  } = {},
): Reflector {
  return startReflector<Item>({
    resource: "things",
    namespace: "",
    list: ({ resourceVersion }) =>
      transport.list("/things", { resourceVersion }) as never,
    watchPath: "/things",
    watch: transport,
    onChange,
    log: silentLogger(),
    backoffMs: 1,
    ...options,
  });
}

async function run(
  transport: Scripted,
  until: () => boolean,
  clock?: ManualClock,
): Promise<StoreChange<Item>[]> {
  const changes: StoreChange<Item>[] = [];
  const reflector = reflectorOver(
    transport,
    (change) => changes.push(change),
    { timers: clock },
  );
  const deadline = Date.now() + 5_000;
  while (!until() && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
  }
  await reflector.stop();
  assert.ok(until(), `timed out; watched from ${transport.watchedFrom}`);
  return changes;
}

Deno.test("a watch that ends at its time limit resumes from the last event's or bookmark's resourceVersion", async () => {
  const clock = new ManualClock();
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
  ], clock);
  const changes = await run(
    transport,
    () => transport.watchedFrom.length >= 3,
    clock,
  );
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

Deno.test("a watch the API server ends before its time limit is lost: the reflector lists again from the last version synced, relisting until the list is in", async () => {
  let relistingAtList: boolean | undefined;
  const transport = scripted([
    () => ({ items: [item("x", "10")], metadata: { resourceVersion: "10" } }),
    () => {
      relistingAtList = reflector.relisting;
      return { items: [], metadata: { resourceVersion: "12" } };
    },
  ], [
    { events: [["ADDED", item("y", "11")]], end: "early" },
    { events: [], end: "hang" },
  ]);
  const changes: StoreChange<Item>[] = [];
  const reflector = reflectorOver(transport, (c) => changes.push(c));
  try {
    await until("the watch after the list", () => transport.lists === 2);
    await until(
      "the second watch",
      () => transport.watchedFrom.length === 2,
    );
    assert.deepEqual(transport.listedFrom, ["0", "11"]);
    assert.deepEqual(transport.watchedFrom, ["10", "12"]);
    assert.equal(relistingAtList, true, "relisting while it lists");
    assert.equal(reflector.relisting, false, "in step once listed");
    assert.deepEqual(changes.map((c) => c.type), [
      "replace",
      "upsert",
      "replace",
    ]);
  } finally {
    await reflector.stop();
  }
});

Deno.test('a watch answered "too large resource version" is a loss: the next list, made at once, is a consistent read, and a version lower than the last synced is a reset', async () => {
  // No time passes: a pause before the list would never end.
  const clock = new ManualClock();
  const tooLarge = {
    kind: "Status",
    code: 504,
    reason: "Timeout",
    message: "Too large resource version: 50, current: 7",
    details: { causes: [{ reason: "ResourceVersionTooLarge" }] },
  };
  const transport = scripted([
    () => ({ items: [item("x", "50")], metadata: { resourceVersion: "50" } }),
    () => ({ items: [], metadata: { resourceVersion: "7" } }),
  ], [
    { events: [["ERROR", tooLarge]], end: "close" },
    { events: [], end: "hang" },
  ], clock);
  const changes = await run(
    transport,
    () => transport.watchedFrom.length >= 2,
    clock,
  );
  assert.deepEqual(transport.listedFrom, ["0", ""]);
  assert.deepEqual(transport.watchedFrom, ["50", "7"]);
  assert.deepEqual(changes.at(-1), {
    type: "replace",
    items: [],
    resourceVersion: "7",
    reset: { count: 1 },
  });
});

/**
 * Reflector A at 40 (a bookmark), then B at 12, whose watch fails: after
 * the loss B asks the API server's current version (`current`).
 */
async function afterALoss(current: string) {
  const versions = new VersionLine();
  const a = scripted([
    () => ({ items: [item("a", "10")], metadata: { resourceVersion: "10" } }),
    () => ({ items: [item("a2", "16")], metadata: { resourceVersion: "16" } }),
  ], [
    {
      events: [["BOOKMARK", { metadata: { resourceVersion: "40" } }]],
      end: "hang",
    },
    { events: [], end: "hang" },
  ]);
  const b = scripted([
    () => ({ items: [item("b", "12")], metadata: { resourceVersion: "12" } }),
    () => ({ items: [], metadata: { resourceVersion: "15" } }),
  ], [
    { events: [], end: "error" },
    { events: [], end: "hang" },
  ]);
  const changes = {
    a: [] as StoreChange<Item>[],
    b: [] as StoreChange<Item>[],
  };
  const reflectorA = reflectorOver(a, (c) => changes.a.push(c), { versions });
  await until("a's bookmark", () => versions.highest === "40");
  const asked: string[] = [];
  const reflectorB = reflectorOver(b, (c) => changes.b.push(c), {
    versions,
    currentVersion: () => {
      asked.push(current);
      return Promise.resolve(current);
    },
  });
  await until("b listed twice", () => b.lists === 2);
  return {
    versions,
    a,
    b,
    changes,
    asked,
    reflectors: [reflectorA, reflectorB],
  };
}

Deno.test("after a loss, an API server's current version lower than the highest any reflector synced is a reset, though above the reflector's own: every reflector lists again as of it", async () => {
  const { versions, a, b, changes, asked, reflectors } = await afterALoss(
    "14",
  );
  try {
    await until("a watching again", () => a.watchedFrom.length === 2);
    assert.deepEqual(asked, ["14"], "asked once, after the loss");
    assert.deepEqual(b.listedFrom, ["0", ""]);
    assert.deepEqual(a.listedFrom, ["0", ""], "a lists as of the reset");
    assert.deepEqual(a.watchedFrom, ["10", "16"]);
    assert.equal(versions.epoch, 1, "one reset, one epoch");
    assert.deepEqual(changes.b.at(-1), {
      type: "replace",
      items: [],
      resourceVersion: "15",
      reset: { count: 1 },
    });
    assert.deepEqual(changes.a.at(-1), {
      type: "replace",
      items: [item("a2", "16")],
      resourceVersion: "16",
      reset: { count: 1 },
    });
    for (const reflector of reflectors) {
      assert.equal(reflector.relisting, false);
    }
  } finally {
    for (const reflector of reflectors) await reflector.stop();
  }
});

Deno.test("after a loss, an API server's current version no lower than the highest synced is no reset: the list asks for the reflector's own last version", async () => {
  const { versions, a, b, changes, reflectors } = await afterALoss("41");
  try {
    assert.deepEqual(b.listedFrom, ["0", "12"]);
    assert.deepEqual(a.listedFrom, ["0"], "a lists nothing again");
    assert.equal(versions.epoch, 0);
    assert.equal(changes.b.at(-1)?.type, "replace");
    assert.equal(
      (changes.b.at(-1) as { reset?: unknown }).reset,
      undefined,
    );
  } finally {
    for (const reflector of reflectors) await reflector.stop();
  }
});

Deno.test("reflectors that find the same reset at once start one epoch", async () => {
  const versions = new VersionLine();
  const answers: ((version: string) => void)[] = [];
  const currentVersion = () =>
    new Promise<string>((resolve) => answers.push(resolve));
  const lost = (version: string) =>
    scripted([
      () => ({ items: [], metadata: { resourceVersion: version } }),
      () => ({ items: [], metadata: { resourceVersion: "6" } }),
    ], [{ events: [], end: "error" }, { events: [], end: "hang" }]);
  const [a, b] = [lost("40"), lost("42")];
  const changes: StoreChange<Item>[] = [];
  const reflectors = [a, b].map((transport) =>
    reflectorOver(transport, (change) => changes.push(change), {
      versions,
      currentVersion,
    })
  );
  try {
    await until("both asking the current version", () => answers.length === 2);
    for (const answer of answers) answer("5");
    await until("both listed again", () => a.lists === 2 && b.lists === 2);
    assert.equal(versions.epoch, 1);
    assert.deepEqual(
      changes.slice(-2).map((change) => (change as { reset?: unknown }).reset),
      [{ count: 1 }, { count: 1 }],
    );
  } finally {
    for (const reflector of reflectors) await reflector.stop();
  }
});
