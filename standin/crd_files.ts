/** CRD files (YAML or JSON) installed at start, as if POSTed. */

import { parseAllDocuments } from "yaml";
import { decodeObject } from "./bodies.ts";
import { CUSTOM_RESOURCE_DEFINITION } from "./crd.ts";
import { isRecord } from "./json.ts";
import type { State } from "./state.ts";
import { StatusError } from "./status.ts";
import { create } from "./verbs.ts";

const crdFileCache = new Map<
  string,
  { mtime: number; size: number; documents: unknown[] }
>();

/**
 * The documents of a YAML or JSON file (a `List` expands to its items);
 * parsed once per file version, since the KubeRay CRD takes a second.
 */
function readManifestFile(path: string): unknown[] {
  let info: Deno.FileInfo;
  let text: string;
  try {
    info = Deno.statSync(path);
    const cached = crdFileCache.get(path);
    if (
      cached && cached.mtime === (info.mtime?.getTime() ?? 0) &&
      cached.size === info.size
    ) {
      return structuredClone(cached.documents);
    }
    text = Deno.readTextFileSync(path);
  } catch (error) {
    const reason = error instanceof Deno.errors.NotFound
      ? "no such file"
      : error instanceof Error
      ? error.message
      : String(error);
    throw new Error(`Cannot read CRD file "${path}": ${reason}`);
  }
  const documents: unknown[] = [];
  for (const document of parseAllDocuments(text, { version: "1.1" })) {
    const problem = document.errors[0];
    if (problem) {
      throw new Error(
        `Cannot parse CRD file "${path}": ${
          problem.message.split("\n")[0].replace(/:$/, "")
        }`,
      );
    }
    const value = document.toJS({ maxAliasCount: -1 });
    if (value === null || value === undefined) continue;
    if (
      isRecord(value) && value.kind === "List" && Array.isArray(value.items)
    ) {
      documents.push(...value.items);
    } else {
      documents.push(value);
    }
  }
  crdFileCache.set(path, {
    mtime: info.mtime?.getTime() ?? 0,
    size: info.size,
    documents: structuredClone(documents),
  });
  return documents;
}

/** Installs the CRDs of files as POSTs would; throws a clear Error if not. */
export function installCrdFiles(state: State, paths: string[]): void {
  for (const path of paths) {
    const documents = readManifestFile(path);
    if (documents.length === 0) {
      throw new Error(
        `Cannot install CRDs from "${path}": the file holds no documents`,
      );
    }
    documents.forEach((document, i) => {
      const kind = isRecord(document) ? document.kind : undefined;
      const apiVersion = isRecord(document) ? document.apiVersion : undefined;
      if (
        kind !== "CustomResourceDefinition" ||
        apiVersion !== "apiextensions.k8s.io/v1"
      ) {
        throw new Error(
          `Cannot install CRDs from "${path}": document ${i + 1} is ${
            typeof kind === "string" ? `a ${kind}` : "not an object"
          }${
            typeof apiVersion === "string" ? ` (${apiVersion})` : ""
          }, not an apiextensions.k8s.io/v1 CustomResourceDefinition`,
        );
      }
      try {
        create(
          state,
          CUSTOM_RESOURCE_DEFINITION,
          "",
          decodeObject(document, CUSTOM_RESOURCE_DEFINITION),
        );
      } catch (error) {
        if (!(error instanceof StatusError)) throw error;
        throw new Error(
          `Cannot install CRDs from "${path}": document ${
            i + 1
          }: ${error.message}`,
        );
      }
    });
  }
}
