/** lines() (domain/lines.ts): a text stream cut anywhere reads as its lines. */
import assert from "node:assert/strict";
import { lines } from "../../domain/lines.ts";

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return ReadableStream.from(chunks.map((c) => encoder.encode(c)));
}

Deno.test("lines() gives each non-empty line once, however the chunks cut it, and a last line without its newline", async () => {
  const got: string[] = [];
  for await (
    const line of lines(streamOf('{"a":', '1}\n\n  \n{"b"', ":2}\r\n", "tail"))
  ) got.push(line);
  assert.deepEqual(got, ['{"a":1}', '{"b":2}', "tail"]);
});

Deno.test("lines() keeps a character cut between chunks whole", async () => {
  const bytes = new TextEncoder().encode("é✓\n");
  const stream = ReadableStream.from([bytes.subarray(0, 1), bytes.subarray(1)]);
  const got: string[] = [];
  for await (const line of lines(stream)) got.push(line);
  assert.deepEqual(got, ["é✓"]);
});
