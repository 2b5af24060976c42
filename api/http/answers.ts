/**
 * Side channel: whole answers (a JSON text, a compressed one) as the gateway
 * and the pages make them and the listener writes them.
 *
 * - What is kept: the body (text or bytes) a Response was made with.
 * - Keyed by: that Response, in a WeakMap.
 * - Who writes it: wholeResponse(), for the gateway (json_answers.ts) and
 *   the pages' files (assets.ts).
 * - Who reads it: the listener (response_writer.ts, wholeBodyOf()), which
 *   writes that body rather than reading it back out of the Response.
 * - Why not a field: the answer must stay a plain Response, which the
 *   gateway's callers (tests among them) read as one; and see below.
 *
 * Measured under Deno 2.9, for a GetCluster of about 55 µs: reading a
 * Response's text body back with arrayBuffer() is 4 µs; a Response given
 * its headers in the init copies them into native headers, 3.6 µs, where
 * setting them on the Response is 0.4 µs. The answer is still a Response
 * (the gateway's callers, tests among them, read it as one); this module
 * only spares the listener the cost.
 */
const bodies = new WeakMap<Response, string | Uint8Array>();

/** A 200 answer of `body` with `headers`. */
export function wholeResponse(
  body: string | Uint8Array,
  headers: Record<string, string>,
): Response {
  // Bytes go in as a stream of themselves: `new Response(bytes)` copies
  // them (the fetch standard's "extract a body"), 15 MB an answer for a
  // kept list of 10,000 clusters, which the listener never reads anyway.
  const response = new Response(
    typeof body === "string" ? body : new ReadableStream({
      start(controller) {
        controller.enqueue(body);
        controller.close();
      },
    }),
  );
  for (const name in headers) response.headers.set(name, headers[name]);
  bodies.set(response, body);
  return response;
}

/**
 * The body `response` was made with by wholeResponse(), for a listener to
 * write as it is (the Response's own body is then left unread); undefined
 * for any other Response.
 */
export function wholeBodyOf(
  response: Response,
): string | Uint8Array | undefined {
  return bodies.get(response);
}

/**
 * Answers whose body is made as it is written (streamedResponse(),
 * streamingResponse()): the listener writes them chunk by chunk, where it
 * reads any other answer in full first.
 */
const streamed = new WeakSet<Response>();

const encoder = new TextEncoder();

/**
 * A 200 answer of the text `chunks` make, with `headers`: each chunk is
 * made when the one before has been taken, so the whole text is never
 * held at once (json_answers.ts, for answers too large to keep).
 */
export function streamedResponse(
  chunks: Iterator<string>,
  headers: Record<string, string>,
): Response {
  const response = new Response(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
    }, { highWaterMark: 0 }),
  );
  for (const name in headers) response.headers.set(name, headers[name]);
  streamed.add(response);
  return response;
}

/**
 * A 200 answer of `body`, which comes as it is made for as long as it
 * lasts, with `headers`: a Kubernetes watch, whose Content-Type
 * (application/json) does not tell the listener it is a stream.
 */
export function streamingResponse(
  body: ReadableStream<Uint8Array>,
  headers: Record<string, string>,
): Response {
  const response = new Response(body);
  for (const name in headers) response.headers.set(name, headers[name]);
  streamed.add(response);
  return response;
}

/** Whether `response` was made by streamedResponse() or streamingResponse(). */
export function isStreamedAnswer(response: Response): boolean {
  return streamed.has(response);
}
