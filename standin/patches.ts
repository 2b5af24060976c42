/**
 * The patch formats the stand-in applies: RFC 7386 JSON merge patch (also
 * standing in for strategic merge patch) and RFC 6902 JSON patch.
 */

import { deepEqual, isRecord } from "./json.ts";

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return structuredClone(patch);
  const result: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

export class PatchError extends Error {}

function pointerTokens(pointer: unknown): string[] {
  if (typeof pointer !== "string") {
    throw new PatchError("operation is missing a path");
  }
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) {
    throw new PatchError(`invalid JSON pointer: "${pointer}"`);
  }
  return pointer.slice(1).split("/").map((t) =>
    t.replaceAll("~1", "/").replaceAll("~0", "~")
  );
}

function arrayIndex(
  array: unknown[],
  token: string,
  forInsert: boolean,
): number {
  if (forInsert && token === "-") return array.length;
  if (!/^(0|[1-9]\d*)$/.test(token)) {
    throw new PatchError(`invalid array index: "${token}"`);
  }
  const index = Number(token);
  if (index > array.length || (!forInsert && index === array.length)) {
    throw new PatchError(`array index out of bounds: ${index}`);
  }
  return index;
}

function resolvePointer(document: unknown, tokens: string[]): unknown {
  let current = document;
  for (const token of tokens) {
    if (Array.isArray(current)) {
      current = current[arrayIndex(current, token, false)];
    } else if (isRecord(current) && Object.hasOwn(current, token)) {
      current = current[token];
    } else {
      throw new PatchError(`path "/${tokens.join("/")}" does not exist`);
    }
  }
  return current;
}

function removeAt(document: unknown, tokens: string[]): unknown {
  if (tokens.length === 0) throw new PatchError("cannot remove the root");
  const parent = resolvePointer(document, tokens.slice(0, -1));
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    return parent.splice(arrayIndex(parent, last, false), 1)[0];
  }
  if (isRecord(parent) && Object.hasOwn(parent, last)) {
    const removed = parent[last];
    delete parent[last];
    return removed;
  }
  throw new PatchError(`path "/${tokens.join("/")}" does not exist`);
}

function addAt(document: unknown, tokens: string[], value: unknown): unknown {
  if (tokens.length === 0) return value;
  const parent = resolvePointer(document, tokens.slice(0, -1));
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    parent.splice(arrayIndex(parent, last, true), 0, value);
  } else if (isRecord(parent)) {
    parent[last] = value;
  } else {
    throw new PatchError(`path "/${tokens.join("/")}" has no parent object`);
  }
  return document;
}

/** RFC 6902 JSON patch; throws PatchError when an operation cannot apply. */
export function jsonPatch(document: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) {
    throw new PatchError("a JSON patch must be an array of operations");
  }
  let result = structuredClone(document);
  for (const operation of operations) {
    if (!isRecord(operation)) {
      throw new PatchError("a JSON patch operation must be an object");
    }
    const path = pointerTokens(operation.path);
    const value = structuredClone(operation.value);
    switch (operation.op) {
      case "add":
        result = addAt(result, path, value);
        break;
      case "remove":
        removeAt(result, path);
        break;
      case "replace":
        resolvePointer(result, path);
        if (path.length === 0) {
          result = value;
        } else {
          removeAt(result, path);
          result = addAt(result, path, value);
        }
        break;
      case "move": {
        const moved = removeAt(result, pointerTokens(operation.from));
        result = addAt(result, path, moved);
        break;
      }
      case "copy": {
        const copied = structuredClone(
          resolvePointer(result, pointerTokens(operation.from)),
        );
        result = addAt(result, path, copied);
        break;
      }
      case "test":
        if (!deepEqual(resolvePointer(result, path), operation.value)) {
          throw new PatchError(
            `testing value ${
              String(operation.path)
            } failed: the value differs from the expected one`,
          );
        }
        break;
      default:
        throw new PatchError(
          `unexpected operation: ${JSON.stringify(operation.op)}`,
        );
    }
  }
  return result;
}
