/**
 * Events expire an hour after their last write, as kube-apiserver's
 * --event-ttl has them (standin/event_ttl.ts), on the stand-in's clock,
 * which these tests move.
 */
import assert from "node:assert/strict";
import { CM, configMap, create, EV, event, send } from "./requests.ts";
import { withStandin } from "./with_standin.ts";

const START = Date.parse("2025-06-01T12:00:00Z");
const MINUTE = 60_000;

Deno.test("stand-in deletes an Event an hour after its last write, as kube-apiserver's --event-ttl, and a write starts its hour again", async () => {
  let now = START;
  await withStandin(async (standin) => {
    const about = { kind: "RayCluster", name: "blue" };
    await create(standin, EV, event("blue.1", about));
    await create(standin, EV, event("blue.2", about));
    now += 30 * MINUTE;
    const renewed = await send(
      standin,
      "PATCH",
      `${EV}/blue.2`,
      { count: 2 },
      "application/merge-patch+json",
    );
    assert.equal(renewed.status, 200, renewed.text);
    now += 30 * MINUTE + 1;
    // Expired Events go at the next write.
    await create(standin, CM, configMap("x"));
    assert.equal((await send(standin, "GET", `${EV}/blue.1`)).status, 404);
    assert.equal((await send(standin, "GET", `${EV}/blue.2`)).status, 200);
    now += 30 * MINUTE;
    await create(standin, CM, configMap("y"));
    assert.equal((await send(standin, "GET", `${EV}/blue.2`)).status, 404);
  }, { now: () => now });
});

Deno.test("stand-in holds an hour of Events under a steady stream of them, not every one", async () => {
  let now = START;
  await withStandin(async (standin) => {
    // One a minute for three hours.
    for (let i = 0; i < 180; i++) {
      await create(standin, EV, event(`e.${i}`, { kind: "Pod", name: "p" }));
      now += MINUTE;
    }
    const list = await send(standin, "GET", EV);
    assert.equal(list.status, 200, list.text);
    assert.ok(list.body.items.length <= 61, `${list.body.items.length} held`);
  }, { now: () => now });
});
