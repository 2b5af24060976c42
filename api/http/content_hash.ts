/**
 * The start of a file's SHA-256, in hex: put in the path of a file served
 * for good (Cache-Control: immutable), so that new content has a new path.
 */
export async function contentHash(
  content: Uint8Array<ArrayBuffer> | string,
  hexDigits: number,
): Promise<string> {
  const bytes = typeof content === "string"
    ? new TextEncoder().encode(content)
    : content;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest.subarray(0, Math.ceil(hexDigits / 2)))
    .map((b) => b.toString(16).padStart(2, "0")).join("").slice(0, hexDigits);
}
