/**
 * The OpenAPI document's schema registry: components.schemas, each made on
 * its first reference.
 */
import type protobuf from "protobufjs";
import { fullName } from "../domain/message_form.ts";
import { ERROR_SCHEMA, errorSchemas } from "./openapi_errors.ts";
import {
  enumSchema,
  isEnum,
  messageSchema,
  type Schema,
  schemaName,
} from "./openapi_schemas.ts";

/** A reference to a message's or an enum's schema, made on first use. */
export type Ref = (type: protobuf.Type | protobuf.Enum) => Schema;

/**
 * The document's components.schemas: one per message or enum an operation
 * refers to, made on its first reference, and the request bodies that leave
 * out the fields bound to the path.
 */
export class SchemaRegistry {
  readonly #schemas: Record<string, Schema> = {};
  /** The full name of the type each schema name was made for. */
  readonly #owners = new Map<string, string>();

  /**
   * A $ref to the type's schema, made now if this is the first; throws if
   * another type already maps to the same schema name.
   */
  readonly ref: Ref = (type) => {
    const name = schemaName(type);
    const owner = this.#owners.get(name);
    if (owner === undefined) {
      this.#owners.set(name, fullName(type));
      this.#schemas[name] = {}; // reserved first: messages may be recursive
      this.#schemas[name] = isEnum(type)
        ? enumSchema(type)
        : messageSchema(type, this.ref, new Set());
    } else if (owner !== fullName(type)) {
      throw new Error(
        `Cannot generate the OpenAPI document: ${owner} and ${
          fullName(type)
        } both map to schema ${name}`,
      );
    }
    return { $ref: `#/components/schemas/${name}` };
  };

  /** Adds a schema made for one operation under `name`; a $ref to it. */
  add(name: string, schema: Schema): Schema {
    this.#schemas[name] = schema;
    return { $ref: `#/components/schemas/${name}` };
  }

  /**
   * Every schema, with the error body's added; throws if a message took the
   * error body's name.
   */
  withErrorSchemas(): Record<string, Schema> {
    if (this.#schemas[ERROR_SCHEMA]) {
      throw new Error(
        `Cannot generate the OpenAPI document: a message maps to schema ${ERROR_SCHEMA}`,
      );
    }
    return { ...this.#schemas, ...errorSchemas() };
  }
}
