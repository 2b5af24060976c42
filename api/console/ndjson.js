// @ts-check
/// <reference lib="dom" />
/**
 * Reading one of the API's streams as it comes (a watch, a job's log):
 * newline-delimited JSON, a `{result}` a line, or an `{error}` that ends
 * it.
 */

/** The `{error}` a stream ended with: its message and gRPC code. */
export class StreamError extends Error {
  /** @param {{ code?: number, message?: string }} error */
  constructor(error) {
    super(error.message);
    /** The gRPC code, when the line has one. */
    this.code = error.code;
  }
}

/**
 * Calls `onResult` with each line's result as it comes, and `onChunk`
 * after each chunk of lines; resolves when the stream ends. An `{error}`
 * line throws it, as a StreamError; blank lines are passed over.
 * @param {Response} response
 * @param {(result: any) => void} onResult
 * @param {() => void} [onChunk]
 */
export async function readResults(response, onResult, onChunk = () => {}) {
  const body = /** @type {NonNullable<Response["body"]>} */ (response.body);
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += value;
    let at;
    while ((at = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, at).trim();
      buffered = buffered.slice(at + 1);
      if (!line) continue;
      const parsed = JSON.parse(line);
      if (parsed.error) throw new StreamError(parsed.error);
      onResult(parsed.result);
    }
    onChunk();
  }
}
