/**
 * WatchFanout (watch_fanout.ts) on its own, over a feed the test drives:
 * what its history holds of the changes it keeps for resuming.
 */
import assert from "node:assert/strict";
import {
  type FeedChange,
  WatchFanout,
  type WatchKind,
} from "../../../api/service/watch_fanout.ts";
import { Watched } from "../../collected.ts";

interface Thing {
  name: string;
  payload: number[];
}

interface ThingAnswer {
  type: string;
  thing?: Thing;
  resourceVersion: string;
}

const THINGS: WatchKind<Thing, ThingAnswer> = {
  noun: "things",
  method: "WatchThings",
  answer: (type, thing, resourceVersion) => ({
    type,
    ...(thing ? { thing } : {}),
    resourceVersion,
  }),
};

/** A feed of changes the test makes, holding no object of its own. */
class Feed {
  readonly #listeners = new Set<(change: FeedChange<Thing>) => void>();
  #version = 0;

  feed = (listener: (change: FeedChange<Thing>) => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /** A new thing `name`, made (as the cache's objects are) when captured. */
  add(name: string): void {
    const change: FeedChange<Thing> = {
      namespace: "team-a",
      name,
      type: "ADDED",
      resourceVersion: String(++this.#version),
      epoch: 0,
      capture: () => {
        const thing = {
          name,
          payload: Array.from({ length: 100 }, (_, i) => i),
        };
        return () => thing;
      },
    };
    for (const listener of this.#listeners) listener(change);
  }
}

/** The next `n` answers of `watch` as JSON, each watched. */
async function read(
  watch: AsyncIterableIterator<ThingAnswer>,
  n: number,
  watched?: Watched,
): Promise<string[]> {
  const answers: string[] = [];
  for (let i = 0; i < n; i++) {
    const { value } = await watch.next();
    answers.push(JSON.stringify(watched ? watched.add(value) : value));
  }
  return answers;
}

Deno.test("WatchFanout's history holds no answer its watchers have sent, and a watch resuming from it gets the same answers", async () => {
  const feed = new Feed();
  const fanout = new WatchFanout(THINGS, {
    feed: feed.feed,
    inStep: () => true,
  });
  try {
    const watch = fanout.watch({});
    assert.equal((await watch.next()).value.type, "BOOKMARK");
    const watched = new Watched();
    for (let n = 0; n < 200; n++) feed.add(`thing-${n}`);
    const sent = await read(watch, 200, watched);
    assert.equal(await watched.held(), 0, "answers held by the history");
    const resumed = fanout.watch({ resourceVersion: "0" });
    assert.deepEqual(await read(resumed, 200), sent);
    await watch.return!();
    await resumed.return!();
  } finally {
    fanout.close();
  }
});
