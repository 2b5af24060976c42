import assert from "node:assert/strict";
import { readLimitedBody } from "../../../api/http/body.ts";

class TooLarge extends Error {}
const tooLarge = () => new TooLarge();

/** A body streamed in chunks, counting how many were pulled. */
function streamed(chunks: number[]) {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === chunks.length) return controller.close();
      controller.enqueue(new Uint8Array(chunks[pulled++]));
    },
  });
  return { body, pulled: () => pulled };
}

Deno.test("readLimitedBody() reads a body up to the limit", async () => {
  const request = new Request("http://x/", { method: "POST", body: "12345" });
  const bytes = await readLimitedBody(request, 5, tooLarge);
  assert.equal(new TextDecoder().decode(bytes), "12345");
});

Deno.test("readLimitedBody() reads no body as empty", async () => {
  const bytes = await readLimitedBody(new Request("http://x/"), 5, tooLarge);
  assert.equal(bytes.byteLength, 0);
});

Deno.test("readLimitedBody() refuses a declared length over the limit before reading", async () => {
  // Reading this body fails with another error than the one wanted.
  const body = new ReadableStream<Uint8Array>({
    pull: (controller) => controller.error(new Error("the body was read")),
  });
  const request = new Request("http://x/", {
    method: "POST",
    body,
    headers: { "content-length": "6" },
  });
  await assert.rejects(readLimitedBody(request, 5, tooLarge), TooLarge);
});

Deno.test("readLimitedBody() stops at the first chunk past the limit", async () => {
  const { body, pulled } = streamed([4, 4, 4, 4]);
  const request = new Request("http://x/", { method: "POST", body });
  await assert.rejects(readLimitedBody(request, 5, tooLarge), TooLarge);
  assert.ok(pulled() <= 3, `${pulled()} chunks read`);
});
