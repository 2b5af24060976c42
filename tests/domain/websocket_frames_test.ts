/**
 * WebSocket frames (domain/websocket_frames.ts),
 * without a socket: a client's masked frames decoded however they are
 * split across reads, a message split into frames, control frames, and
 * the frames that break the protocol; the server's frames and the
 * handshake's accept key.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import {
  acceptKey,
  CLOSE,
  encodeFrame,
  FrameDecoder,
  FrameError,
  MAX_FRAME_BYTES,
} from "../../domain/websocket_frames.ts";

/** A client's frame: masked, as RFC 6455 requires. */
function clientFrame(
  opcode: number,
  payload: Uint8Array,
  fin = true,
): Buffer {
  const mask = Buffer.from([0x12, 0x34, 0x56, 0x78]);
  const unmasked = encodeFrame(opcode, payload);
  const headLength = unmasked.length - payload.length;
  const head = Buffer.from(unmasked.subarray(0, headLength));
  if (!fin) head[0] &= 0x7f;
  head[1] |= 0x80;
  const masked = Buffer.from(payload).map((b, i) => b ^ mask[i & 3]);
  return Buffer.concat([head, mask, masked]);
}

function bytes(length: number): Uint8Array {
  return new Uint8Array(length).map((_, i) => (i * 13) & 0xff);
}

Deno.test("acceptKey() is RFC 6455's example", () => {
  assert.equal(
    acceptKey("dGhlIHNhbXBsZSBub25jZQ=="),
    "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=",
  );
});

Deno.test("FrameDecoder takes frames of each length form, fed a byte at a time or all at once", async (t) => {
  for (const length of [0, 1, 125, 126, 65_535, 65_536, 200_000]) {
    await t.step(`${length} bytes`, () => {
      const payload = bytes(length);
      const wire = clientFrame(0x2, payload);
      const whole = new FrameDecoder().push(wire);
      assert.equal(whole.length, 1);
      assert.ok(Buffer.from(payload).equals(whole[0].payload));
      if (length > 70_000) return;
      const decoder = new FrameDecoder();
      const frames = [];
      for (const byte of wire) {
        frames.push(...decoder.push(Uint8Array.of(byte)));
      }
      assert.equal(frames.length, 1);
      assert.ok(Buffer.from(payload).equals(frames[0].payload));
    });
  }
});

Deno.test("FrameDecoder gives a message split into frames, and frames sharing a read, in order", () => {
  const wire = Buffer.concat([
    clientFrame(0x2, Buffer.from("ab"), false),
    clientFrame(0x0, Buffer.from("cd"), false),
    clientFrame(0x9, Buffer.from("ping")),
    clientFrame(0x0, Buffer.from("ef")),
  ]);
  const decoder = new FrameDecoder();
  const frames = [
    ...decoder.push(wire.subarray(0, 7)),
    ...decoder.push(wire.subarray(7)),
  ];
  assert.deepEqual(
    frames.map((f) => [f.opcode, f.fin, f.payload.toString()]),
    [[2, false, "ab"], [0, false, "cd"], [9, true, "ping"], [0, true, "ef"]],
  );
});

Deno.test("FrameDecoder refuses unmasked frames, reserved bits, long or split control frames, and frames over its bound", async (t) => {
  const cases: [string, Uint8Array, number][] = [
    ["unmasked", encodeFrame(0x2, Buffer.from("x")), CLOSE.protocolError],
    [
      "reserved bit",
      (() => {
        const frame = clientFrame(0x2, Buffer.from("x"));
        frame[0] |= 0x40;
        return frame;
      })(),
      CLOSE.protocolError,
    ],
    ["long ping", clientFrame(0x9, bytes(126)), CLOSE.protocolError],
    ["split ping", clientFrame(0x9, bytes(1), false), CLOSE.protocolError],
    [
      "too large",
      Buffer.concat([
        Buffer.from([0x82, 0xff]),
        (() => {
          const length = Buffer.alloc(8);
          length.writeBigUInt64BE(BigInt(MAX_FRAME_BYTES + 1));
          return length;
        })(),
      ]),
      CLOSE.tooBig,
    ],
  ];
  for (const [name, wire, code] of cases) {
    await t.step(name, () => {
      assert.throws(
        () => new FrameDecoder().push(wire),
        (error) => error instanceof FrameError && error.code === code,
      );
    });
  }
});

Deno.test("a client's FrameDecoder takes a server's unmasked frames and refuses masked ones; encodeFrame masks with the key given", () => {
  const decoder = new FrameDecoder({ masked: false });
  const [frame] = decoder.push(encodeFrame(0x2, Buffer.from("hello")));
  assert.equal(frame.payload.toString(), "hello");
  const masked = encodeFrame(0x2, Buffer.from("hello"), Buffer.from("abcd"));
  assert.deepEqual(
    [...masked.subarray(0, 6)],
    [0x82, 0x85, ...Buffer.from("abcd")],
  );
  const [unmasked] = new FrameDecoder().push(masked);
  assert.equal(unmasked.payload.toString(), "hello");
  assert.throws(
    () => new FrameDecoder({ masked: false }).push(masked),
    (error) =>
      error instanceof FrameError && error.code === CLOSE.protocolError,
  );
});
