/**
 * The simulated operator's client of the stand-in (api_client.ts): how its
 * watch ends.
 */
import assert from "node:assert/strict";
import { ApiClient } from "../../../standin/operator/api_client.ts";

const LINE = JSON.stringify({
  type: "MODIFIED",
  object: { metadata: { name: "blue", uid: "u", resourceVersion: "7" } },
}) + "\n";

Deno.test("ApiClient.watchObjects() yields nothing once its signal has aborted, not even lines it has read already", async () => {
  // A thousand events in one chunk, then the watch stays open.
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(LINE.repeat(1_000)));
          },
        }),
      ),
  );
  try {
    const api = new ApiClient(`http://127.0.0.1:${server.addr.port}`, {
      group: "ray.io",
      version: "v1",
      plural: "rayclusters",
    });
    const abort = new AbortController();
    let afterAbort = 0;
    try {
      for await (const _ of api.watchObjects("1", abort.signal)) {
        if (abort.signal.aborted) afterAbort++;
        abort.abort();
      }
    } catch (error) {
      assert.equal((error as Error).name, "AbortError");
    }
    assert.equal(afterAbort, 0, "events yielded after the abort");
  } finally {
    await server.shutdown();
  }
});
