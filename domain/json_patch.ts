import { isPlainObject } from "./message_form.ts";
/**
 * JSON patches (RFC 6902), as the Kubernetes API server applies a PATCH of
 * application/json-patch+json to a custom resource: a list of operations
 * (add, remove, replace, move, copy, test) at JSON pointers (RFC 6901),
 * applied in order to a copy of the target; the first that cannot be
 * applied fails the whole patch and the target is left as it was.
 */

/** Why a patch is no JSON patch, or could not be applied. */
export class JsonPatchError extends Error {
  /** Whether the document is malformed (not a failed operation). */
  readonly malformed: boolean;
  constructor(message: string, malformed: boolean) {
    super(message);
    this.name = "JsonPatchError";
    this.malformed = malformed;
  }
}

/** One operation, as checked by jsonPatchOf. */
export interface JsonPatchOperation {
  op: "add" | "remove" | "replace" | "move" | "copy" | "test";
  path: string;
  from?: string;
  value?: unknown;
}

const OPS = new Set(["add", "remove", "replace", "move", "copy", "test"]);

/**
 * `document` as a JSON patch: a list of operations, each with a known
 * `op`, a `path` (and a `from` for move and copy, a `value` for add,
 * replace and test). JsonPatchError (malformed) otherwise.
 */
export function jsonPatchOf(document: unknown): JsonPatchOperation[] {
  if (!Array.isArray(document)) {
    throw new JsonPatchError("a JSON patch must be a list of operations", true);
  }
  return document.map((operation, i) => {
    const at = `operation ${i}`;
    if (!isPlainObject(operation) || !OPS.has(String(operation.op))) {
      throw new JsonPatchError(
        `${at}: "op" must be one of ${[...OPS].join(", ")}`,
        true,
      );
    }
    if (typeof operation.path !== "string") {
      throw new JsonPatchError(`${at}: "path" must be a string`, true);
    }
    const op = operation.op as JsonPatchOperation["op"];
    if (
      (op === "move" || op === "copy") && typeof operation.from !== "string"
    ) {
      throw new JsonPatchError(`${at}: "from" must be a string`, true);
    }
    if (
      (op === "add" || op === "replace" || op === "test") &&
      !Object.hasOwn(operation, "value")
    ) {
      throw new JsonPatchError(`${at}: "value" is required`, true);
    }
    return operation as unknown as JsonPatchOperation;
  });
}

/** `target` with `patch` applied; neither is changed. */
export function applyJsonPatch(
  target: unknown,
  patch: readonly JsonPatchOperation[],
): unknown {
  let document = structuredClone(target);
  patch.forEach((operation, i) => {
    try {
      document = applyOne(document, operation);
    } catch (error) {
      if (!(error instanceof JsonPatchError)) throw error;
      throw new JsonPatchError(
        `operation ${i} (${operation.op} ${operation.path}): ${error.message}`,
        error.malformed,
      );
    }
  });
  return document;
}

function applyOne(document: unknown, operation: JsonPatchOperation): unknown {
  const { op, path, from, value } = operation;
  switch (op) {
    case "add":
      return add(document, path, structuredClone(value));
    case "remove":
      return remove(document, path).document;
    case "replace":
      return add(remove(document, path).document, path, structuredClone(value));
    case "move": {
      if (path.startsWith(`${from}/`)) {
        throw new JsonPatchError("cannot move a value into itself", false);
      }
      const taken = remove(document, from!);
      return add(taken.document, path, taken.value);
    }
    case "copy":
      return add(document, path, structuredClone(valueAt(document, from!)));
    case "test":
      if (!equal(valueAt(document, path), value)) {
        throw new JsonPatchError("the value differs", false);
      }
      return document;
  }
}

/** The reference tokens of a JSON pointer ("" is the whole document). */
function tokensOf(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) {
    throw new JsonPatchError(`"${pointer}" is no JSON pointer`, true);
  }
  return pointer.slice(1).split("/").map((token) =>
    token.replaceAll("~1", "/").replaceAll("~0", "~")
  );
}

/** The container of the pointer's last token, and that token. */
function parentOf(
  document: unknown,
  pointer: string,
): { parent: unknown; key: string } | undefined {
  const tokens = tokensOf(pointer);
  if (tokens.length === 0) return undefined;
  const key = tokens.pop()!;
  let parent = document;
  for (const token of tokens) parent = child(parent, token);
  return { parent, key };
}

function child(container: unknown, token: string): unknown {
  if (Array.isArray(container)) {
    const index = indexOf(container, token, false);
    return container[index];
  }
  if (isPlainObject(container) && Object.hasOwn(container, token)) {
    return container[token];
  }
  throw new JsonPatchError(`"${token}" is missing`, false);
}

function valueAt(document: unknown, pointer: string): unknown {
  let value = document;
  for (const token of tokensOf(pointer)) value = child(value, token);
  return value;
}

/** An array index of `token`; `adding` takes "-" and the length. */
function indexOf(list: unknown[], token: string, adding: boolean): number {
  if (adding && token === "-") return list.length;
  if (!/^(0|[1-9]\d{0,8})$/.test(token)) {
    throw new JsonPatchError(`"${token}" is no array index`, false);
  }
  const index = Number(token);
  if (index > list.length || (!adding && index === list.length)) {
    throw new JsonPatchError(`index ${index} is out of bounds`, false);
  }
  return index;
}

function add(document: unknown, pointer: string, value: unknown): unknown {
  const at = parentOf(document, pointer);
  if (!at) return value;
  const { parent, key } = at;
  if (Array.isArray(parent)) {
    parent.splice(indexOf(parent, key, true), 0, value);
  } else if (isPlainObject(parent)) {
    parent[key] = value;
  } else {
    throw new JsonPatchError("the parent is no object or array", false);
  }
  return document;
}

function remove(
  document: unknown,
  pointer: string,
): { document: unknown; value: unknown } {
  const at = parentOf(document, pointer);
  if (!at) return { document: undefined, value: document };
  const { parent, key } = at;
  if (Array.isArray(parent)) {
    const [value] = parent.splice(indexOf(parent, key, false), 1);
    return { document, value };
  }
  if (isPlainObject(parent) && Object.hasOwn(parent, key)) {
    const value = parent[key];
    delete parent[key];
    return { document, value };
  }
  throw new JsonPatchError(`"${key}" is missing`, false);
}

/** Structural equality of JSON values. */
function equal(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length &&
      a.every((item, i) => equal(item, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length &&
      keys.every((key) => Object.hasOwn(b, key) && equal(a[key], b[key]));
  }
  return a === b;
}
