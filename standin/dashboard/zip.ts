/**
 * The file names in a zip archive, read from its central directory (the
 * package Ray's job SDK uploads for a working directory is a zip). Only
 * names are read; nothing is inflated. Undefined when the bytes are not a
 * zip archive this reader understands (no end-of-central-directory record,
 * or one pointing outside the bytes).
 */

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
/** The end record's fixed size; a comment of up to 65535 bytes may follow. */
const END_RECORD_SIZE = 22;

/** The names of the files (not directories) in `bytes`, in archive order. */
export function zipFileNames(bytes: Uint8Array): string[] | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEndRecord(view);
  if (end === undefined) return undefined;
  const count = view.getUint16(end + 10, true);
  let offset = view.getUint32(end + 16, true);
  const names: string[] = [];
  const decoder = new TextDecoder();
  for (let i = 0; i < count; i++) {
    if (offset + 46 > bytes.length) return undefined;
    if (view.getUint32(offset, true) !== CENTRAL_DIRECTORY_ENTRY) {
      return undefined;
    }
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const start = offset + 46;
    if (start + nameLength > bytes.length) return undefined;
    const name = decoder.decode(bytes.subarray(start, start + nameLength));
    if (!name.endsWith("/")) names.push(name);
    offset = start + nameLength + extraLength + commentLength;
  }
  return names;
}

/** The offset of the end-of-central-directory record, searched from the end. */
function findEndRecord(view: DataView): number | undefined {
  const lowest = Math.max(0, view.byteLength - END_RECORD_SIZE - 0xffff);
  for (let at = view.byteLength - END_RECORD_SIZE; at >= lowest; at--) {
    if (view.getUint32(at, true) === END_OF_CENTRAL_DIRECTORY) return at;
  }
  return undefined;
}
