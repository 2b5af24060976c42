/**
 * Writes the TypeScript types of the API's messages from proto/*.proto by
 * protobufjs reflection, in the message form the codec gives
 * (domain/codec.ts): lowerCamelCase names, enums by value name, timestamps
 * as Date, unset message fields and proto3 `optional` scalars undefined.
 * One module a .proto file (domain/types/cluster.ts for cluster.proto),
 * importing the types it uses from the others; domain/types.ts exports them
 * all, with `ApiMethods`, so the code imports that one.
 *
 *   deno task types:gen   rewrite domain/types.ts and domain/types/ after
 *                         changing proto/
 *
 * tests/tools/types_gen_test.ts fails while the committed files differ from
 * what this writes.
 */
import protobuf from "protobufjs";
import { API_FILES, type ApiSchema, loadApiSchema } from "../api/schema.ts";

/** Where the generated files go: types.ts and types/<proto>.ts. */
export const DOMAIN_DIR = new URL("../domain/", import.meta.url);

/** The index's path under DOMAIN_DIR; the proto files' are under types/. */
export const INDEX_FILE = "types.ts";

const GENERATED =
  "by `deno task types:gen` (tools/types_gen.ts).\n// Do not edit: change the .proto files and run the task again.\n";

const INDEX_HEADER = `// Generated from proto/*.proto ${GENERATED}
/**
 * The service's messages, in the shape of the proto definition with
 * lowerCamelCase field names (as protobufjs names them). Every field is
 * present; an unset message field, timestamp or proto3 \`optional\` scalar is
 * \`undefined\`, enums are their value names. One module a .proto file, in
 * types/; this one exports them all and adds \`ApiMethods\`.
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
 * The generated sources for `schema`'s API files (package `proto`),
 * unformatted, by path under DOMAIN_DIR: types/<proto>.ts with each file's
 * enums, then messages, in the order of their definitions, and the index.
 */
export function typesSources(
  schema: ApiSchema,
  files: string[] = API_FILES,
): Map<string, string> {
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
  const fileIndex = (object: protobuf.ReflectionObject) => {
    const name = object.filename ?? "";
    const index = files.findIndex((f) => name === f || name.endsWith(`/${f}`));
    if (index < 0) throw new Error(`${object.fullName}: not in ${files}`);
    return index;
  };

  // Where each name is defined, by its file's module.
  const modules = files.map(moduleOf);
  const definedIn = new Map<string, string>();
  for (const object of [...enums, ...types]) {
    const taken = definedIn.get(object.name);
    if (taken) {
      throw new Error(
        `Cannot generate domain/types: ${taken} and ${object.fullName} are both named ${object.name}`,
      );
    }
    definedIn.set(object.name, modules[fileIndex(object)]);
  }

  const sources = new Map<string, string>();
  files.forEach((file, index) => {
    const used = new Set<string>();
    const body: string[] = [];
    for (const e of enums) if (fileIndex(e) === index) body.push(enumSource(e));
    for (const type of types) {
      if (fileIndex(type) === index) body.push(messageSource(type, used));
    }
    const header = `// Generated from proto/${file} ${GENERATED}`;
    const imports = importsOf(used, definedIn, modules[index], "./");
    sources.set(
      modules[index],
      [header, ...imports, ...(imports.length ? [""] : []), ...body].join("\n"),
    );
  });
  const used = new Set<string>();
  const methods = methodsSource(schema, used);
  sources.set(
    INDEX_FILE,
    [
      INDEX_HEADER,
      ...importsOf(used, definedIn, INDEX_FILE, "./types/"),
      ...modules.map((module) => `export * from "./${module}";`),
      "",
      methods,
    ].join("\n"),
  );
  return sources;
}

/** "job_submission.proto" -> "types/job_submission.ts" */
function moduleOf(file: string): string {
  return `types/${file.replace(/^.*\//, "").replace(/\.proto$/, "")}.ts`;
}

/**
 * The `import type` lines of the names `used` that are defined in other
 * modules than `self`, a line a module, as seen from `from` ("./" in
 * types/, "./types/" in the index).
 */
function importsOf(
  used: Set<string>,
  definedIn: Map<string, string>,
  self: string,
  from: string,
): string[] {
  const byModule = new Map<string, string[]>();
  for (const name of used) {
    const module = definedIn.get(name);
    if (module === undefined || module === self) continue;
    byModule.set(module, [...byModule.get(module) ?? [], name]);
  }
  return [...byModule.keys()].sort().map((module) =>
    `import type { ${byModule.get(module)!.sort().join(", ")} } from "${from}${
      module.replace(/^types\//, "")
    }";`
  );
}

/**
 * `ApiMethods`: each RPC of the API files by its key
 * ("proto.ClusterService/GetCluster"), with its request and response types
 * and whether it streams its answers. The service's handlers are typed from
 * it (api/service/handlers.ts), so a handler of the wrong shape, or an RPC
 * without one, does not compile.
 */
function methodsSource(schema: ApiSchema, used: Set<string>): string {
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
        typeName(resolved!, `${key}'s ${of}`, used);
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

function messageSource(type: protobuf.Type, used: Set<string>): string {
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
    const { type: tsType, presence } = fieldType(type, field, used);
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
  used: Set<string>,
): { type: string; presence: boolean } {
  const single = valueType(owner, field, used);
  if (field.map) return { type: `Record<string, ${single}>`, presence: false };
  if (field.repeated) return { type: `${single}[]`, presence: false };
  // A message field (a timestamp too) is undefined while unset.
  const resolved = field.resolvedType;
  const isMessage = resolved instanceof protobuf.Type;
  return { type: single, presence: isMessage };
}

function valueType(
  owner: protobuf.Type,
  field: protobuf.Field,
  used: Set<string>,
): string {
  const resolved = field.resolvedType;
  if (resolved) return typeName(resolved, `${owner.name}.${field.name}`, used);
  const scalar = SCALARS[field.type];
  if (!scalar) {
    throw new Error(
      `Cannot generate domain/types: ${owner.name}.${field.name} has type ${field.type}, which tools/types_gen.ts does not map`,
    );
  }
  return scalar;
}

/**
 * The TypeScript name of a message or enum: a well-known type's mapping,
 * else its own name, added to `used` (for the imports); `where` (what has
 * the type) names it in an error.
 */
function typeName(
  resolved: protobuf.Type | protobuf.Enum,
  where: string,
  used: Set<string>,
): string {
  const name = resolved.fullName.replace(/^\./, "");
  if (WELL_KNOWN[name]) return WELL_KNOWN[name];
  if (!name.startsWith("proto.")) {
    throw new Error(
      `Cannot generate domain/types: ${where} has type ${name}, which tools/types_gen.ts does not map`,
    );
  }
  used.add(resolved.name);
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
      `Cannot format domain/types: ${new TextDecoder().decode(stderr)}`,
    );
  }
  return new TextDecoder().decode(stdout);
}

/**
 * The text each generated file should have for the .proto files given, by
 * path under DOMAIN_DIR (typesSources()).
 */
export async function generateTypes(
  files?: string[],
  apiFiles?: string[],
): Promise<Map<string, string>> {
  const sources = typesSources(await loadApiSchema(files), apiFiles);
  const texts = new Map<string, string>();
  for (const [path, source] of sources) {
    texts.set(path, await formatted(source));
  }
  return texts;
}

/** The .ts files in domain/types/ now, by path under DOMAIN_DIR. */
export async function committedModules(): Promise<string[]> {
  const paths: string[] = [];
  for await (const entry of Deno.readDir(new URL("types/", DOMAIN_DIR))) {
    if (entry.isFile && entry.name.endsWith(".ts")) {
      paths.push(`types/${entry.name}`);
    }
  }
  return paths.sort();
}

if (import.meta.main) {
  const texts = await generateTypes();
  await Deno.mkdir(new URL("types/", DOMAIN_DIR), { recursive: true });
  // A module of a .proto file since removed goes with it.
  for (const path of await committedModules()) {
    if (!texts.has(path)) await Deno.remove(new URL(path, DOMAIN_DIR));
  }
  for (const [path, text] of texts) {
    await Deno.writeTextFile(new URL(path, DOMAIN_DIR), text);
    console.log(`Wrote domain/${path}`);
  }
}
