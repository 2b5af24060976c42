/**
 * A byte stream carried in a WebSocket's binary messages (RFC 6455), the
 * server's end, on a raw upgraded connection: what the Ray client tunnel
 * (client_tunnel.ts) speaks to its caller in front of a TCP connection.
 *
 * Frames are decoded as they come, never gathered into messages: each
 * data frame's payload is written on as it is, so a message split in
 * frames, or frames split across reads, come out as the same bytes.
 * Text frames and reserved bits are protocol errors (no extension is
 * negotiated); pings are answered. The caller's close ends the byte
 * stream's writing side (a half-close) after the close is answered; the
 * other side's end is a close (1000) to the caller.
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import type { Duplex } from "node:stream";

/** RFC 6455's GUID of the handshake's accept key. */
const HANDSHAKE_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/** The largest frame taken from the caller: a bound on what is buffered. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

const OPCODE = {
  continuation: 0x0,
  text: 0x1,
  binary: 0x2,
  close: 0x8,
  ping: 0x9,
  pong: 0xa,
} as const;

/** Close codes sent (RFC 6455 7.4.1). */
export const CLOSE = {
  normal: 1000,
  protocolError: 1002,
  unsupportedData: 1003,
  tooBig: 1009,
} as const;

/** Sec-WebSocket-Accept for a handshake's Sec-WebSocket-Key. */
export function acceptKey(key: string): string {
  return createHash("sha1").update(key + HANDSHAKE_GUID).digest("base64");
}

/** One frame from the caller, unmasked. */
export interface Frame {
  fin: boolean;
  opcode: number;
  payload: Buffer;
}

/** A frame that breaks the protocol: the close code it earns. */
export class FrameError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

/**
 * Decodes a client's frames from chunks as they are read: push() returns
 * the frames completed so far and keeps the rest. Throws FrameError.
 */
export class FrameDecoder {
  #buffered: Buffer = Buffer.alloc(0);

  push(chunk: Uint8Array): Frame[] {
    this.#buffered = this.#buffered.length === 0
      ? Buffer.from(chunk)
      : Buffer.concat([this.#buffered, chunk]);
    const frames: Frame[] = [];
    for (;;) {
      const frame = this.#next();
      if (!frame) return frames;
      frames.push(frame);
    }
  }

  #next(): Frame | undefined {
    const bytes = this.#buffered;
    if (bytes.length < 2) return undefined;
    const [first, second] = bytes;
    if ((first & 0x70) !== 0) {
      throw new FrameError(CLOSE.protocolError, "reserved bits set");
    }
    if ((second & 0x80) === 0) {
      throw new FrameError(CLOSE.protocolError, "a client frame unmasked");
    }
    const fin = (first & 0x80) !== 0;
    const opcode = first & 0x0f;
    let length = second & 0x7f;
    let offset = 2;
    if (length === 126) {
      if (bytes.length < 4) return undefined;
      length = bytes.readUInt16BE(2);
      offset = 4;
    } else if (length === 127) {
      if (bytes.length < 10) return undefined;
      const long = bytes.readBigUInt64BE(2);
      if (long > BigInt(MAX_FRAME_BYTES)) throw tooBig();
      length = Number(long);
      offset = 10;
    }
    if (length > MAX_FRAME_BYTES) throw tooBig();
    if (opcode >= 0x8 && (!fin || length > 125)) {
      throw new FrameError(CLOSE.protocolError, "a control frame too long");
    }
    if (bytes.length < offset + 4 + length) return undefined;
    const mask = bytes.subarray(offset, offset + 4);
    const payload = Buffer.from(
      bytes.subarray(offset + 4, offset + 4 + length),
    );
    for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i & 3];
    this.#buffered = bytes.subarray(offset + 4 + length);
    return { fin, opcode, payload };
  }
}

function tooBig(): FrameError {
  return new FrameError(
    CLOSE.tooBig,
    `a frame larger than ${MAX_FRAME_BYTES} bytes`,
  );
}

/** A server's frame (unmasked), final. */
export function encodeFrame(opcode: number, payload: Uint8Array): Buffer {
  const length = payload.length;
  const head = length < 126
    ? Buffer.from([0x80 | opcode, length])
    : length < 0x10000
    ? Buffer.from([0x80 | opcode, 126, length >> 8, length & 0xff])
    : Buffer.alloc(10);
  if (length >= 0x10000) {
    head[0] = 0x80 | opcode;
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([head, payload]);
}

/** A close frame's payload: its code and reason. */
function closePayload(code: number, reason = ""): Buffer {
  const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
  payload.writeUInt16BE(code, 0);
  payload.write(reason, 2);
  return payload;
}

/**
 * Joins the caller's upgraded connection (`client`, after the 101, with
 * `head` already read from it) to `upstream`, a byte stream: binary
 * messages one way, bytes as binary frames the other, until either end
 * closes; `ended` once both connections are done with.
 */
export function spliceWebSocket(
  client: Duplex,
  head: Uint8Array,
  upstream: Duplex,
  ended: () => void,
): () => void {
  const decoder = new FrameDecoder();
  let closeSent = false;
  let finished = false;
  const sendClose = (code: number, reason?: string) => {
    if (closeSent) return;
    closeSent = true;
    client.end(encodeFrame(OPCODE.close, closePayload(code, reason)));
  };
  const end = () => {
    if (finished) return;
    finished = true;
    client.destroy();
    // A half-close sent on (the caller's close) reaches the upstream first.
    if (upstream.writableEnded && !upstream.writableFinished) {
      upstream.once("finish", () => upstream.destroy());
      upstream.once("error", () => upstream.destroy());
    } else upstream.destroy();
    ended();
  };
  const onFrame = (frame: Frame) => {
    switch (frame.opcode) {
      case OPCODE.binary:
      case OPCODE.continuation:
        if (!upstream.writableEnded && !upstream.write(frame.payload)) {
          client.pause();
          upstream.once("drain", () => client.resume());
        }
        return;
      case OPCODE.ping:
        if (!closeSent) client.write(encodeFrame(OPCODE.pong, frame.payload));
        return;
      case OPCODE.pong:
        return;
      case OPCODE.close:
        // The caller is done sending: the upstream's writing side ends,
        // the close is answered, and the connection ends with it.
        upstream.end();
        sendClose(CLOSE.normal);
        return;
      case OPCODE.text:
        throw new FrameError(CLOSE.unsupportedData, "text messages");
      default:
        throw new FrameError(CLOSE.protocolError, "an unknown opcode");
    }
  };
  const onClientData = (chunk: Uint8Array) => {
    try {
      for (const frame of decoder.push(chunk)) onFrame(frame);
    } catch (error) {
      if (!(error instanceof FrameError)) throw error;
      upstream.end();
      sendClose(error.code, error.message);
    }
  };
  upstream.on("data", (chunk: Uint8Array) => {
    if (closeSent) return;
    if (!client.write(encodeFrame(OPCODE.binary, chunk))) {
      upstream.pause();
      client.once("drain", () => upstream.resume());
    }
  });
  // The upstream's end (its FIN) closes the WebSocket.
  upstream.once("end", () => sendClose(CLOSE.normal));
  client.on("data", onClientData);
  for (const socket of [client, upstream]) {
    socket.once("close", end);
    socket.on("error", end);
  }
  if (client.destroyed || upstream.destroyed) {
    end();
    return end;
  }
  if (head.length > 0) onClientData(head);
  upstream.resume();
  return end;
}
