/**
 * The bytes of the request bodies being received at once, and the limit on
 * them. A body counts by its Content-Length from its headers on, or chunk by
 * chunk as it arrives (chunked), until its request is answered. Past the
 * limit, a new body is refused before any of it is read (429 code 8 with
 * Retry-After); one body alone always fits, so that the handler can say 413
 * itself.
 */
import type http from "node:http";

/** Told the size of each chunk of a body as it arrives. */
type ChunkCounter = (bytes: number) => void;

export class BodyBudget {
  readonly #max: number;
  /** Bytes of the request bodies counted against the budget now. */
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#max = maxBytes;
  }

  /** Bytes counted now. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Counts the body of `req` until `res` closes: what the chunks of a body
   * without Content-Length add is told to the counter returned. Undefined
   * when the body is refused: the budget would be exceeded by what it
   * declares, or is exhausted by bodies streaming in.
   */
  admit(
    req: http.IncomingMessage,
    res: http.ServerResponse,
  ): ChunkCounter | undefined {
    let counted = 0;
    if (!req.complete) {
      const declared = Number(req.headers["content-length"]);
      const over = Number.isFinite(declared)
        ? this.#bytes > 0 && this.#bytes + declared > this.#max
        : this.#bytes >= this.#max;
      if (over) return undefined;
      counted = Number.isFinite(declared) ? declared : 0;
      this.#bytes += counted;
      res.once("close", () => this.#bytes -= counted);
    }
    return (chunk) => {
      if (req.headers["content-length"] !== undefined) return;
      counted += chunk;
      this.#bytes += chunk;
    };
  }
}
