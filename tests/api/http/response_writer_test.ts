/**
 * The listener's writing of a stream (writeResponse): a client that stalls
 * is waited for, and each wait leaves no listener behind.
 */
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import type http from "node:http";
import { writeResponse } from "../../../api/http/response_writer.ts";
import { until } from "../../eventually.ts";

/** A ServerResponse whose every write fills its buffer until drained. */
class SlowResponse extends EventEmitter {
  statusCode = 0;
  destroyed = false;
  written = 0;
  ended = false;
  setHeader(): void {}
  flushHeaders(): void {}
  write(): boolean {
    this.written++;
    return false;
  }
  end(): void {
    this.ended = true;
  }
}

Deno.test("writeResponse() waits for each drain of a stream and leaves no listener behind", async () => {
  const chunks = 5;
  const encoder = new TextEncoder();
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ < chunks) controller.enqueue(encoder.encode("{}\n"));
      else controller.close();
    },
  }, { highWaterMark: 0 });
  const res = new SlowResponse();
  const written = writeResponse(
    res as unknown as http.ServerResponse,
    new Response(body, { headers: { "content-type": "application/x-ndjson" } }),
    false,
  );
  for (let i = 1; i <= chunks; i++) {
    await until(`chunk ${i} written`, () => res.written === i);
    assert.equal(res.listenerCount("drain"), 1, "waiting for one drain");
    assert.equal(res.listenerCount("close"), 1, "and one close");
    res.emit("drain");
  }
  await written;
  assert.ok(res.ended);
  assert.equal(res.listenerCount("drain"), 0);
  assert.equal(res.listenerCount("close"), 0);
});
