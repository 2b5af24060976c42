/**
 * Messages as protobufjs decodes and encodes them (the gRPC transport's
 * bytes): its decoded objects into message form, with the fields and enum
 * numbers the definition does not know refused, and message form into the
 * objects its `Type.fromObject` takes.
 */
import type { Field, Type } from "protobufjs";
import type { FieldViolation } from "./errors.ts";
import {
  emptyMessage,
  emptyValue,
  enumOf,
  fullName,
  isMap,
  isTimestamp,
  join,
  type Message,
  messageTypeOf,
  quote,
  setOwn,
  UNKNOWN_FIELD,
} from "./message_form.ts";

/**
 * Converts a message decoded by protobufjs into message form. Enum numbers
 * the definition does not know are reported as violations.
 */
export function messageFromProto(
  type: Type,
  decoded: Record<string, unknown>,
  path: string,
  violations: FieldViolation[],
): Message {
  const out = emptyMessage(type);
  // protobufjs keeps the fields the definition lacks, as their bytes; a
  // request that carries one is refused, as JSON with an unknown key is,
  // rather than losing what the client meant silently.
  const unknowns = (decoded as { $unknowns?: Uint8Array[] }).$unknowns ?? [];
  for (const bytes of unknowns) {
    const number = fieldNumberOf(bytes);
    violations.push({
      field: join(path, `#${number}`),
      description: `${UNKNOWN_FIELD} number ${number} of message ${
        fullName(type)
      }`,
    });
  }
  for (const field of type.fieldsArray) {
    const value = decoded[field.name];
    if (value === undefined || value === null) continue;
    const fieldPath = join(path, field.name);
    if (isMap(field)) {
      const entries: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        setOwn(
          entries,
          k,
          singleFromProto(
            field,
            v,
            `${fieldPath}[${JSON.stringify(k)}]`,
            violations,
          ),
        );
      }
      out[field.name] = entries;
    } else if (field.repeated) {
      out[field.name] = (value as unknown[]).map((v, i) =>
        singleFromProto(field, v, `${fieldPath}[${i}]`, violations)
      );
    } else {
      out[field.name] = singleFromProto(field, value, fieldPath, violations);
    }
  }
  return out;
}

function singleFromProto(
  field: Field,
  value: unknown,
  path: string,
  violations: FieldViolation[],
): unknown {
  if (isTimestamp(field)) {
    const { seconds, nanos } = value as { seconds: unknown; nanos: number };
    return new Date(toNumber(seconds) * 1000 + Math.floor((nanos ?? 0) / 1e6));
  }
  const messageType = messageTypeOf(field);
  if (messageType) {
    return messageFromProto(
      messageType,
      value as Record<string, unknown>,
      path,
      violations,
    );
  }
  const e = enumOf(field);
  if (e) {
    const name = e.valuesById[value as number];
    if (name === undefined) {
      const names = Object.keys(e.values).map(quote).join(", ");
      violations.push({
        field: path,
        description: `must be one of ${names}, got ${value}`,
      });
      return emptyValue(field);
    }
    return name;
  }
  if (typeof value === "object" && value !== null && "low" in value) {
    return toNumber(value);
  }
  return value;
}

/** Converts a message into an object protobufjs' `Type.fromObject` takes. */
export function messageToProto(type: Type, message: Message): Message {
  const out: Message = {};
  for (const field of type.fieldsArray) {
    const value = message[field.name];
    if (value === undefined || value === null) continue;
    if (isMap(field)) {
      const entries: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        setOwn(entries, k, singleToProto(field, v));
      }
      out[field.name] = entries;
    } else if (field.repeated) {
      out[field.name] = (value as unknown[]).map((v) =>
        singleToProto(field, v)
      );
    } else {
      out[field.name] = singleToProto(field, value);
    }
  }
  return out;
}

function singleToProto(field: Field, value: unknown): unknown {
  if (isTimestamp(field)) {
    const ms = (value as Date).getTime();
    const seconds = Math.floor(ms / 1000);
    return { seconds, nanos: (ms - seconds * 1000) * 1e6 };
  }
  const messageType = messageTypeOf(field);
  if (messageType) return messageToProto(messageType, value as Message);
  return value;
}

/** The field number of an encoded field: its key, a varint, shifted by 3. */
function fieldNumberOf(bytes: Uint8Array): number {
  let key = 0;
  for (let i = 0, shift = 0; i < bytes.length && i < 5; i++, shift += 7) {
    key += (bytes[i] & 0x7f) * 2 ** shift;
    if ((bytes[i] & 0x80) === 0) break;
  }
  return Math.floor(key / 8);
}

function toNumber(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "string") return Number(value);
  return Number(String(value));
}
