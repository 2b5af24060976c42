/**
 * The non-empty lines of a byte stream of text, as they arrive: how
 * newline-delimited JSON (a watch) is read. A last line without its newline
 * is given too.
 */
export async function* lines(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<string> {
  let buffer = "";
  for await (const chunk of body.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line !== "") yield line;
    }
  }
  if (buffer.trim() !== "") yield buffer.trim();
}
