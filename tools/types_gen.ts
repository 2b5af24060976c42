/**
 * Writes domain/types.ts, the TypeScript types of the API's messages, from
 * proto/*.proto by protobufjs reflection, in the message form the codec
 * gives (domain/codec.ts): lowerCamelCase names, enums by value name,
 * timestamps as Date, unset message fields and proto3 `optional` scalars
 * undefined.
 *
 *   deno task types:gen   rewrite domain/types.ts after changing proto/
 *
 * tests/tools/types_gen_test.ts fails while the committed file differs from
 * what this writes.
 */
import protobuf from "protobufjs";
import { API_FILES, type ApiSchema, loadApiSchema } from "../api/schema.ts";

export const TYPES_FILE = new URL("../domain/types.ts", import.meta.url);

const HEADER =
  `// Generated from proto/*.proto by \`deno task types:gen\` (tools/types_gen.ts).
// Do not edit: change the .proto files and run the task again.

/**
 * The service's messages, in the shape of the proto definition with
 * lowerCamelCase field names (as protobufjs names them). Every field is
 * present; an unset message field, timestamp or proto3 \`optional\` scalar is
 * \`undefined\`, enums are their value names.
 */
`;

/** TypeScript types of proto scalars, as the codec represents them. */
const SCALARS: Record<string, string> = {
  string: "string",
  bool: "boolean",
  double: "number",
  float: "number",
  int32: "number",
  sint32: "number",
  sfixed32: "number",
  uint32: "number",
  fixed32: "number",
  // The codec keeps 64-bit integers as numbers (safe integers only).
  int64: "number",
  sint64: "number",
  sfixed64: "number",
  uint64: "number",
  fixed64: "number",
};

/** Well-known types, as the codec represents them. */
const WELL_KNOWN: Record<string, string> = {
  "google.protobuf.Timestamp": "Date",
  "google.protobuf.Empty": "Record<string, never>",
  // Paths in proto form (snake_case), whichever form the JSON gave.
  "google.protobuf.FieldMask": "{ paths: string[] }",
};

/**
 * The source of domain/types.ts for the messages and enums of `schema`'s
 * API files (package `proto`), unformatted. Enums first, then messages, each
 * in the order of the files and of their definitions.
 */
export function typesSource(
  schema: ApiSchema,
  files: string[] = API_FILES,
): string {
  const enums: protobuf.Enum[] = [];
  const types: protobuf.Type[] = [];
  const visit = (ns: protobuf.NamespaceBase) => {
    for (const nested of ns.nestedArray) {
      if (nested instanceof protobuf.Enum) enums.push(nested);
      if (nested instanceof protobuf.Type) types.push(nested);
      if (nested instanceof protobuf.Namespace) visit(nested);
    }
  };
  visit(schema.root.lookup("proto") as protobuf.Namespace);
  // The files load concurrently, so the namespace holds their definitions
  // in whichever order they finished; the sort is stable.
  const fileIndex = (object: protobuf.ReflectionObject) => {
    const name = object.filename ?? "";
    const index = files.findIndex((f) => name === f || name.endsWith(`/${f}`));
    if (index < 0) throw new Error(`${object.fullName}: not in ${files}`);
    return index;
  };
  const byFile = (a: protobuf.ReflectionObject, b: protobuf.ReflectionObject) =>
    fileIndex(a) - fileIndex(b);
  enums.sort(byFile);
  types.sort(byFile);

  const names = new Map<string, string>();
  for (const object of [...enums, ...types]) {
    const taken = names.get(object.name);
    if (taken) {
      throw new Error(
        `Cannot generate domain/types.ts: ${taken} and ${object.fullName} are both named ${object.name}`,
      );
    }
    names.set(object.name, object.fullName);
  }

  const parts = [HEADER];
  for (const e of enums) parts.push(enumSource(e));
  for (const type of types) parts.push(messageSource(type));
  parts.push(methodsSource(schema));
  return parts.join("\n");
}

/**
 * `ApiMethods`: each RPC of the API files by its key
 * ("proto.ClusterService/GetCluster"), with its request and response types
 * and whether it streams its answers. The service's handlers are typed from
 * it (api/service/handlers.ts), so a handler of the wrong shape, or an RPC
 * without one, does not compile.
 */
function methodsSource(schema: ApiSchema): string {
  const lines: (string | undefined)[] = [
    "/** The API's methods, by the key of their handler. */",
    "export interface ApiMethods {",
  ];
  // loadApiSchema keeps the API files' services only, in their order.
  for (const service of schema.services) {
    for (const method of service.methodsArray) {
      method.resolve();
      const key = `${service.fullName.replace(/^\./, "")}/${method.name}`;
      const type = (resolved: protobuf.Type | null, of: string) =>
        typeName(resolved!, `${key}'s ${of}`);
      lines.push(
        jsDoc(method.comment, "  "),
        `  ${JSON.stringify(key)}: {`,
        `    request: ${type(method.resolvedRequestType, "request")};`,
        `    response: ${type(method.resolvedResponseType, "response")};`,
        `    streaming: ${method.responseStream === true};`,
        "  };",
      );
    }
  }
  lines.push("}", "");
  return lines.filter((line) => line !== undefined).join("\n");
}

function enumSource(e: protobuf.Enum): string {
  const constant = `${screamingSnake(e.name)}S`;
  const values = Object.keys(e.values).map((v) => JSON.stringify(v));
  return [
    jsDoc(e.comment, ""),
    `export const ${constant} = [${values.join(", ")}] as const;`,
    `export type ${e.name} = typeof ${constant}[number];`,
    "",
  ].filter((line) => line !== undefined).join("\n");
}

function messageSource(type: protobuf.Type): string {
  const head = jsDoc(type.comment, "");
  if (type.fieldsArray.length === 0) {
    return [
      head,
      `export type ${type.name} = Record<string, never>;`,
      "",
    ].filter((line) => line !== undefined).join("\n");
  }
  const lines = [head, `export interface ${type.name} {`];
  for (const field of type.fieldsArray) {
    const optional = field.options?.proto3_optional === true;
    const comment = [
      field.comment?.trim(),
      optional ? "Undefined when not set (proto3 `optional`)." : undefined,
    ].filter(Boolean).join("\n");
    lines.push(jsDoc(comment, "  "));
    const { type: tsType, presence } = fieldType(type, field);
    lines.push(
      `  ${field.name}${presence || optional ? "?" : ""}: ${tsType};`,
    );
  }
  lines.push("}", "");
  return lines.filter((line) => line !== undefined).join("\n");
}

/** A field's TypeScript type, and whether an unset value is undefined. */
function fieldType(
  owner: protobuf.Type,
  field: protobuf.Field,
): { type: string; presence: boolean } {
  const single = valueType(owner, field);
  if (field.map) return { type: `Record<string, ${single}>`, presence: false };
  if (field.repeated) return { type: `${single}[]`, presence: false };
  // A message field (a timestamp too) is undefined while unset.
  const resolved = field.resolvedType;
  const isMessage = resolved instanceof protobuf.Type;
  return { type: single, presence: isMessage };
}

function valueType(owner: protobuf.Type, field: protobuf.Field): string {
  const resolved = field.resolvedType;
  if (resolved) return typeName(resolved, `${owner.name}.${field.name}`);
  const scalar = SCALARS[field.type];
  if (!scalar) {
    throw new Error(
      `Cannot generate domain/types.ts: ${owner.name}.${field.name} has type ${field.type}, which tools/types_gen.ts does not map`,
    );
  }
  return scalar;
}

/**
 * The TypeScript name of a message or enum: a well-known type's mapping,
 * else its own name; `where` (what has the type) names it in an error.
 */
function typeName(
  resolved: protobuf.Type | protobuf.Enum,
  where: string,
): string {
  const name = resolved.fullName.replace(/^\./, "");
  if (WELL_KNOWN[name]) return WELL_KNOWN[name];
  if (!name.startsWith("proto.")) {
    throw new Error(
      `Cannot generate domain/types.ts: ${where} has type ${name}, which tools/types_gen.ts does not map`,
    );
  }
  return resolved.name;
}

/** A JSDoc block of a proto comment, or undefined when there is none. */
function jsDoc(
  comment: string | null | undefined,
  indent: string,
): string | undefined {
  const lines = (comment ?? "").trim().split("\n").map((l) => l.trim())
    .filter((l, i, all) => l !== "" || (i > 0 && i < all.length - 1));
  if (lines.length === 0 || lines[0] === "") return undefined;
  const safe = lines.map((l) => l.replaceAll("*/", "*\\/"));
  if (safe.length === 1) return `${indent}/** ${safe[0]} */`;
  return [
    `${indent}/**`,
    ...safe.map((l) => l ? `${indent} * ${l}` : `${indent} *`),
    `${indent} */`,
  ].join("\n");
}

/** "MountPropagationMode" -> "MOUNT_PROPAGATION_MODE" */
function screamingSnake(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
}

/** Formats TypeScript source as `deno fmt` does. */
export async function formatted(source: string): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext=ts", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(source));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  if (code !== 0) {
    throw new Error(
      `Cannot format domain/types.ts: ${new TextDecoder().decode(stderr)}`,
    );
  }
  return new TextDecoder().decode(stdout);
}

/** The text domain/types.ts should have for the .proto files given. */
export async function generateTypes(
  files?: string[],
  apiFiles?: string[],
): Promise<string> {
  return await formatted(typesSource(await loadApiSchema(files), apiFiles));
}

if (import.meta.main) {
  await Deno.writeTextFile(TYPES_FILE, await generateTypes());
  console.log(`Wrote ${TYPES_FILE.pathname}`);
}
