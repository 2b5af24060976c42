/**
 * A Kubernetes watch as the HTTP port answers it (api/http/kube_watch.ts):
 * newline-delimited events, sent as they come through buffering proxies,
 * each kept event's line made once for every watch that sends it.
 */
import assert from "node:assert/strict";
import { keep } from "../../../domain/kept.ts";
import { watchAnswer } from "../../../api/http/kube_watch.ts";
import type { KubeWatchEvent } from "../../../api/service/object_watch.ts";

const TARGET = { group: "ray.io", kind: "rayclusters" };

async function* eventsOf(
  ...events: KubeWatchEvent[]
): AsyncGenerator<KubeWatchEvent> {
  yield* events;
}

/** The chunks of a body, to its end. */
async function chunksOf(
  body: ReadableStream<Uint8Array>,
): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return chunks;
}

Deno.test("a watch is answered as NDJSON that proxies do not buffer", async () => {
  const event = keep<KubeWatchEvent>({
    type: "ADDED",
    object: { metadata: { name: "blue" } },
  });
  const { response } = watchAnswer(eventsOf(event), {
    bookmarks: false,
    target: TARGET,
  });
  assert.equal(response.headers.get("content-type"), "application/json");
  assert.equal(response.headers.get("x-accel-buffering"), "no");
  assert.equal(
    await response.text(),
    '{"type":"ADDED","object":{"metadata":{"name":"blue"}}}\n',
  );
});

Deno.test("watches sending the same kept event send the line made for the first", async () => {
  const event = keep<KubeWatchEvent>({
    type: "MODIFIED",
    object: { metadata: { name: "blue" } },
  });
  const options = { bookmarks: false, target: TARGET };
  const [first] = await chunksOf(
    watchAnswer(eventsOf(event), options).response.body!,
  );
  const [second] = await chunksOf(
    watchAnswer(eventsOf(event), options).response.body!,
  );
  assert.equal(new TextDecoder().decode(first), `${JSON.stringify(event)}\n`);
  assert.equal(second, first);
});
