/**
 * Writes the Python SDK's TypedDicts (clients/python/corral/_models.py)
 * from the OpenAPI document the server serves, so that the SDK's types are
 * the API's JSON and never a list of fields copied by hand: one TypedDict
 * (total=False: proto3 JSON may leave any field out) per object schema,
 * one `Literal` alias per enum, each with the schema's description.
 *
 *   deno task sdk:gen   rewrite _models.py after changing proto/ (or the
 *                       OpenAPI generator)
 *
 * tests/tools/sdk_gen_test.ts fails while the committed file differs from
 * what this writes.
 */
import { compileRoutes } from "../api/http/rules.ts";
import { openApiDocument, type Schema } from "../api/openapi.ts";
import { loadApiSchema } from "../api/schema.ts";

export const MODELS_FILE = new URL(
  "../clients/python/corral/_models.py",
  import.meta.url,
);

const HEADER =
  `# Generated from Corral's OpenAPI document by \`deno task sdk:gen\`
# (tools/sdk_gen.ts). Do not edit: change proto/ and run the task again.
"""The JSON of Corral's API, as TypedDicts.

Requests and answers are plain dicts in the API's JSON (lowerCamelCase
names, enums by name, timestamps as RFC 3339 strings); these types name
their keys for a type checker and an editor. Every TypedDict is
total=False: an answer leaves out fields at their default, and a request
needs only the fields the API documents as required.
"""

from __future__ import annotations

from typing import Any, Literal, Optional, TypedDict
`;

type Schemas = Record<string, Schema>;

/** The Python name of a schema: no package, no service, no dots. */
export function pythonName(schemaName: string): string {
  return schemaName
    .replace(/^google\.(protobuf|rpc)\./, "")
    .replace(/^\w+Service_/, "")
    .replace(/\./g, "");
}

const SCALARS: Record<string, string> = {
  string: "str",
  integer: "int",
  number: "float",
  boolean: "bool",
};

/** The Python type of `schema`; nested objects are added to `extra`. */
function typeOf(schema: Schema, context: string, extra: string[]): string {
  const s = schema as Record<string, unknown>;
  if (typeof s.$ref === "string") {
    return pythonName(s.$ref.replace("#/components/schemas/", ""));
  }
  if (Array.isArray(s.oneOf)) {
    const options = (s.oneOf as Schema[]).filter((o) =>
      (o as Record<string, unknown>).type !== "null"
    );
    const types = options.map((o) => typeOf(o, context, extra));
    const union = types.length === 1 ? types[0] : types.join(" | ");
    return options.length < s.oneOf.length ? `Optional[${union}]` : union;
  }
  if (Array.isArray(s.type)) {
    const nonNull = (s.type as string[]).filter((t) => t !== "null");
    const inner = typeOf({ ...s, type: nonNull[0] } as Schema, context, extra);
    return nonNull.length < s.type.length ? `Optional[${inner}]` : inner;
  }
  if (Array.isArray(s.enum)) {
    return `Literal[${
      (s.enum as string[]).map((v) => JSON.stringify(v)).join(", ")
    }]`;
  }
  if (typeof s.const === "string") return `Literal[${JSON.stringify(s.const)}]`;
  if (s.type === "array") {
    return `list[${typeOf(s.items as Schema, `${context}Item`, extra)}]`;
  }
  if (s.type === "object") {
    if (s.properties) {
      extra.push(...typedDict(context, schema, extra));
      return context;
    }
    const values = s.additionalProperties;
    return typeof values === "object" && values !== null
      ? `dict[str, ${typeOf(values as Schema, `${context}Value`, extra)}]`
      : "dict[str, Any]";
  }
  return SCALARS[s.type as string] ?? "Any";
}

function capitalized(text: string): string {
  return text.replace(/^[a-z@]/, (c) => c.toUpperCase()).replace(/^@/, "");
}

/** A description as `#:` comment lines at `indent`. */
function comment(description: unknown, indent: string): string[] {
  if (typeof description !== "string" || !description) return [];
  return description.split("\n").filter((line) => line.trim()).map((line) =>
    `${indent}#: ${line.trim()}`
  );
}

/** A docstring's lines for `description`. */
function docstring(description: unknown, indent: string): string[] {
  const text = typeof description === "string" && description
    ? description.replaceAll("\\", "\\\\").replaceAll('"""', '\\"\\"\\"')
    : "";
  if (!text) return [];
  const lines = text.split("\n");
  return lines.length === 1 ? [`${indent}"""${text}"""`] : [
    `${indent}"""${lines[0]}`,
    ...lines.slice(1).map((l) => l ? `${indent}${l}` : ""),
    `${indent}"""`,
  ];
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const KEYWORDS = new Set([
  "False",
  "None",
  "True",
  "and",
  "as",
  "assert",
  "async",
  "await",
  "break",
  "class",
  "continue",
  "def",
  "del",
  "elif",
  "else",
  "except",
  "finally",
  "for",
  "from",
  "global",
  "if",
  "import",
  "in",
  "is",
  "lambda",
  "nonlocal",
  "not",
  "or",
  "pass",
  "raise",
  "return",
  "try",
  "while",
  "with",
  "yield",
]);

/**
 * The lines of a TypedDict for an object schema: a class, or the
 * functional form when a key is not a Python identifier ("@type").
 */
function typedDict(name: string, schema: Schema, extra: string[]): string[] {
  const s = schema as Record<string, unknown>;
  const properties = Object.entries(
    (s.properties ?? {}) as Record<string, Schema>,
  );
  const fields = properties.map(([key, property]) => ({
    key,
    type: typeOf(property, `${name}${capitalized(key)}`, extra),
    description: (property as Record<string, unknown>).description,
  }));
  const classForm = fields.every(({ key }) =>
    IDENTIFIER.test(key) && !KEYWORDS.has(key)
  );
  if (!classForm) {
    return [
      "",
      "",
      ...comment(s.description, ""),
      `${name} = TypedDict("${name}", {`,
      ...fields.flatMap(({ key, type, description }) => [
        ...comment(description, "    "),
        `    ${JSON.stringify(key)}: ${JSON.stringify(type)},`,
      ]),
      "}, total=False)",
    ];
  }
  const body = fields.flatMap(({ key, type, description }) => [
    ...comment(description, "    "),
    `    ${key}: ${type}`,
  ]);
  const doc = docstring(s.description, "    ");
  return [
    "",
    "",
    `class ${name}(TypedDict, total=False):`,
    ...doc,
    ...(doc.length && body.length ? [""] : []),
    ...(body.length || doc.length ? body : ["    pass"]),
  ];
}

/** _models.py's text for the components of `document`. */
export function modelsSource(schemas: Schemas): string {
  const aliases: string[] = [];
  const classes: string[] = [];
  const named = new Map<string, string>();
  for (const [schemaName, schema] of Object.entries(schemas).sort()) {
    const name = pythonName(schemaName);
    if (named.has(name)) {
      throw new Error(
        `schemas ${
          named.get(name)
        } and ${schemaName} are both ${name} in Python: give pythonName() a way to tell them apart`,
      );
    }
    named.set(name, schemaName);
    const s = schema as Record<string, unknown>;
    if (s.type === "object") {
      const extra: string[] = [];
      const lines = typedDict(name, schema, extra);
      classes.push(...extra, ...lines);
    } else {
      aliases.push(
        "",
        ...comment(s.description, ""),
        `${name} = ${typeOf(schema, name, classes)}`,
      );
    }
  }
  return `${HEADER}${aliases.join("\n")}\n${classes.join("\n")}\n`;
}

/** The text `deno task sdk:gen` writes, from the served document. */
export async function generateModels(): Promise<string> {
  const api = await loadApiSchema();
  const document = openApiDocument(compileRoutes(api.services));
  return modelsSource(document.components.schemas);
}

if (import.meta.main) {
  await Deno.writeTextFile(MODELS_FILE, await generateModels());
  console.log(`Wrote ${MODELS_FILE.pathname}`);
}
