/**
 * Kubernetes' protobuf encoding, read just far enough for the one body the
 * stand-in takes in it: the TokenRequest that `kubectl create token` sends
 * (client-go's typed clients send built-in kinds as protobuf). That is the
 * `k8s\0` envelope around a runtime.Unknown, and the fields of a message by
 * number. Reading other kinds, and writing protobuf, are not modelled:
 * answers are JSON, which every client's Accept header allows.
 */

export const PROTOBUF_MEDIA_TYPE = "application/vnd.kubernetes.protobuf";

/** runtime.protobufSerializer's prefix of every message. */
const MAGIC = [0x6b, 0x38, 0x73, 0x00]; // "k8s\0"

/** A value as read: bytes when length-delimited, a bigint otherwise. */
type Value = Uint8Array | bigint;

/** The fields of one message, by number, repeated ones in order. */
export type Fields = Map<number, Value[]>;

export class ProtobufError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProtobufError";
  }
}

function readVarint(bytes: Uint8Array, at: number): [bigint, number] {
  let value = 0n;
  for (let shift = 0n; shift < 70n; shift += 7n) {
    if (at >= bytes.length) throw new ProtobufError("truncated varint");
    const byte = bytes[at++];
    value |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [value, at];
  }
  throw new ProtobufError("varint longer than 10 bytes");
}

/** The fields of a message; fixed-width values are kept as their bits. */
export function readFields(bytes: Uint8Array): Fields {
  const fields: Fields = new Map();
  let at = 0;
  while (at < bytes.length) {
    let key: bigint;
    [key, at] = readVarint(bytes, at);
    const number = Number(key >> 3n);
    let value: Value;
    switch (Number(key & 7n)) {
      case 0:
        [value, at] = readVarint(bytes, at);
        break;
      case 1:
      case 5: {
        const width = (key & 7n) === 1n ? 8 : 4;
        if (at + width > bytes.length) {
          throw new ProtobufError("truncated fixed-width value");
        }
        value = 0n;
        for (let i = width - 1; i >= 0; i--) {
          value = (value << 8n) | BigInt(bytes[at + i]);
        }
        at += width;
        break;
      }
      case 2: {
        let length: bigint;
        [length, at] = readVarint(bytes, at);
        const end = at + Number(length);
        if (end > bytes.length) {
          throw new ProtobufError("truncated length-delimited value");
        }
        value = bytes.subarray(at, end);
        at = end;
        break;
      }
      default:
        throw new ProtobufError(`unsupported wire type ${key & 7n}`);
    }
    fields.set(number, [...(fields.get(number) ?? []), value]);
  }
  return fields;
}

function bytesOf(value: Value | undefined): Uint8Array | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "bigint") {
    throw new ProtobufError("expected a length-delimited field");
  }
  return value;
}

/** The last value of a string field (proto3: the last one wins). */
export function stringField(fields: Fields, number: number): string {
  const bytes = bytesOf(fields.get(number)?.at(-1));
  return bytes ? new TextDecoder().decode(bytes) : "";
}

/** Every value of a repeated string field. */
export function stringsField(fields: Fields, number: number): string[] {
  return (fields.get(number) ?? []).map((v) =>
    new TextDecoder().decode(bytesOf(v))
  );
}

/** An embedded message; undefined when absent. */
export function messageField(
  fields: Fields,
  number: number,
): Fields | undefined {
  const bytes = bytesOf(fields.get(number)?.at(-1));
  return bytes ? readFields(bytes) : undefined;
}

/** An int64 field; undefined when absent. */
export function int64Field(fields: Fields, number: number): number | undefined {
  const value = fields.get(number)?.at(-1);
  if (value === undefined) return undefined;
  if (typeof value !== "bigint") throw new ProtobufError("expected a varint");
  return Number(BigInt.asIntN(64, value));
}

/**
 * The message inside the `k8s\0` envelope (a runtime.Unknown): its
 * apiVersion and kind, and its own bytes.
 */
export function unwrapEnvelope(
  bytes: Uint8Array,
): { apiVersion: string; kind: string; raw: Uint8Array } {
  if (!MAGIC.every((b, i) => bytes[i] === b)) {
    throw new ProtobufError("the body does not start with the k8s prefix");
  }
  const unknown = readFields(bytes.subarray(MAGIC.length));
  const typeMeta = messageField(unknown, 1) ?? new Map();
  return {
    apiVersion: stringField(typeMeta, 1),
    kind: stringField(typeMeta, 2),
    raw: bytesOf(unknown.get(2)?.at(-1)) ?? new Uint8Array(),
  };
}
