/**
 * WebSocket frames (RFC 6455), both ends' forms, without I/O: the
 * handshake's accept key, a decoder fed chunks as they are read, and the
 * encoding of a final frame. What the Ray client tunnel speaks to its
 * caller (api/http/websocket_bytes.ts) and to the API server's port
 * forwarding (orchestrator/port_forward.ts).
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";

/** RFC 6455's GUID of the handshake's accept key. */
const HANDSHAKE_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/** The largest frame taken from the caller: a bound on what is buffered. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

export const OPCODE = {
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

/** One frame, unmasked. */
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
 * Decodes frames from chunks as they are read: push() returns the frames
 * completed so far and keeps the rest. A server's decoder (`masked`, the
 * default) takes only masked frames, a client's only unmasked ones.
 * Throws FrameError.
 */
export class FrameDecoder {
  #buffered: Buffer = Buffer.alloc(0);
  /**
   * Chunks not joined to #buffered yet: a large frame arriving in many
   * chunks is joined once it is whole, not copied again with every chunk.
   */
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  /** The bytes the frame begun in #buffered needs in all (0: unknown). */
  #wanted = 0;
  readonly #masked: boolean;

  constructor(options: { masked?: boolean } = {}) {
    this.#masked = options.masked ?? true;
  }

  push(chunk: Uint8Array): Frame[] {
    this.#pending.push(chunk);
    this.#pendingBytes += chunk.length;
    if (this.#buffered.length + this.#pendingBytes < this.#wanted) return [];
    this.#buffered = Buffer.concat([this.#buffered, ...this.#pending]);
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#wanted = 0;
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
    if (((second & 0x80) !== 0) !== this.#masked) {
      throw new FrameError(
        CLOSE.protocolError,
        this.#masked ? "a client's frame unmasked" : "a server's frame masked",
      );
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
    const maskLength = this.#masked ? 4 : 0;
    const start = offset + maskLength;
    if (bytes.length < start + length) {
      this.#wanted = start + length;
      return undefined;
    }
    const payload = Buffer.from(bytes.subarray(start, start + length));
    if (this.#masked) {
      const mask = bytes.subarray(offset, start);
      for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i & 3];
    }
    this.#buffered = bytes.subarray(start + length);
    return { fin, opcode, payload };
  }
}

function tooBig(): FrameError {
  return new FrameError(
    CLOSE.tooBig,
    `a frame larger than ${MAX_FRAME_BYTES} bytes`,
  );
}

/**
 * A final frame: a server's, unmasked, or a client's, masked with `mask`
 * (four bytes).
 */
export function encodeFrame(
  opcode: number,
  payload: Uint8Array,
  mask?: Uint8Array,
): Buffer {
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
  if (!mask) return Buffer.concat([head, payload]);
  head[1] |= 0x80;
  const masked = Buffer.from(payload);
  for (let i = 0; i < masked.length; i++) masked[i] ^= mask[i & 3];
  return Buffer.concat([head, mask, masked]);
}

/** A close frame's payload: its code and reason. */
export function closePayload(code: number, reason = ""): Buffer {
  const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
  payload.writeUInt16BE(code, 0);
  payload.write(reason, 2);
  return payload;
}
