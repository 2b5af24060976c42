/**
 * Protobuf messages written by field number, as another project's
 * generated stubs encode them: the numbers are the test's, by hand, so a
 * renumbered field in proto/ fails it.
 */
import protobuf from "protobufjs";

export type Value = string | number | Uint8Array;
/** [field number, value]: strings and bytes length-delimited, numbers varint. */
export type Field = [number, Value];

export function encode(fields: Field[]): Uint8Array {
  const writer = protobuf.Writer.create();
  for (const [number, value] of fields) {
    if (typeof value === "number") {
      writer.uint32(number << 3).int32(value);
    } else if (typeof value === "string") {
      writer.uint32((number << 3) | 2).string(value);
    } else {
      writer.uint32((number << 3) | 2).bytes(value);
    }
  }
  return writer.finish();
}

/** The entries of a map<string, string> field, each an entry message. */
export function map(number: number, entries: Record<string, string>): Field[] {
  return Object.entries(entries).map((
    [key, value],
  ) => [number, encode([[1, key], [2, value]])]);
}
