/**
 * Side channel: what the gateway makes of a kept answer (domain/kept.ts),
 * made once and then sent to every client that asks for it.
 *
 * - What is kept: a kept unary answer's body (its JSON text, or its bytes
 *   from COMPRESS_MIN_BYTES on) and that body gzip-compressed; and a kept
 *   stream message's frame (its NDJSON line, its SSE event), as bytes.
 * - Keyed by: the body and its compressed form by the answer's JSON form
 *   (the object the codec keeps for a kept message, so the same answer
 *   always finds them); a frame by the message, one map per stream format.
 * - Who writes and reads it: the gateway alone (gateway.ts and
 *   stream_answers.ts), only for kept answers: any other answer's encoding
 *   is made for its request and dropped with it. One store per gateway, as
 *   a frame holds the gateway's JSON dialect (--kuberay-json or not).
 * - Why not a field: kept answers are frozen, and what they hold is what
 *   goes on the wire; WeakMaps let the encodings go with the answers.
 */
export class KeptEncodings {
  readonly #bodies = new WeakMap<object, string | Uint8Array>();
  readonly #compressed = new WeakMap<object, Promise<Uint8Array>>();
  readonly #ndjson = new WeakMap<object, Uint8Array>();
  readonly #sse = new WeakMap<object, Uint8Array>();

  /** The body kept for the answer whose JSON form is `json`. */
  body(json: object): string | Uint8Array | undefined {
    return this.#bodies.get(json);
  }

  setBody(json: object, body: string | Uint8Array): void {
    this.#bodies.set(json, body);
  }

  /** The compressed body kept for the answer whose JSON form is `json`. */
  compressed(json: object): Promise<Uint8Array> | undefined {
    return this.#compressed.get(json);
  }

  setCompressed(json: object, compressed: Promise<Uint8Array>): void {
    this.#compressed.set(json, compressed);
  }

  /** The frame kept for a stream's `message`, as SSE or NDJSON. */
  frame(message: object, sse: boolean): Uint8Array | undefined {
    return (sse ? this.#sse : this.#ndjson).get(message);
  }

  setFrame(message: object, sse: boolean, bytes: Uint8Array): void {
    (sse ? this.#sse : this.#ndjson).set(message, bytes);
  }
}
