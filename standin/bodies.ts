/**
 * Request bodies: size limit, media type, and decoding into an object of the
 * resource's kind or into DeleteOptions, refusing what the real server's Go
 * decoder refuses, with its messages.
 */

import { readLimitedBody } from "../api/http/body.ts";
import { isRecord } from "./json.ts";
import type { State } from "./state.ts";
import { badRequest, StatusError, unsupportedMediaType } from "./status.ts";
import { groupVersion, type KubeObject, type ResourceType } from "./types.ts";

export function readBytes(
  state: State,
  request: Request,
): Promise<Uint8Array> {
  const limit = state.maxBodyBytes;
  const tooLarge = () =>
    new StatusError(
      413,
      "RequestEntityTooLarge",
      `Request entity too large: limit is ${limit}`,
    );
  return readLimitedBody(request, limit, tooLarge);
}

export async function readText(
  state: State,
  request: Request,
): Promise<string> {
  return new TextDecoder().decode(await readBytes(state, request));
}

function parseJson(text: string, resource: ResourceType): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(
      `the object provided is unrecognized (must be of type ${resource.kind}): couldn't get version/kind; json parse error: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
}

export function isJsonMediaType(contentType: string | null): boolean {
  if (contentType === null || contentType === "") return true;
  const media = contentType.split(";")[0].trim().toLowerCase();
  return media === "application/json" || media === "*/*";
}

/** Strings only: what Go would fail to decode into map[string]string. */
function checkStringMap(value: unknown, path: string): void {
  if (value === undefined || value === null) return;
  if (!isRecord(value)) {
    throw badRequest(
      `json: cannot unmarshal ${
        jsonType(value)
      } into Go struct field ${path} of type map[string]string`,
    );
  }
  for (const v of Object.values(value)) {
    if (typeof v !== "string") {
      throw badRequest(
        `json: cannot unmarshal ${
          jsonType(v)
        } into Go struct field ${path} of type string`,
      );
    }
  }
}

export function jsonType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  return typeof value === "object" ? "object" : typeof value;
}

/**
 * Decodes a request body into an object of the resource's kind: JSON only,
 * apiVersion and kind checked (defaulted for built-in kinds, required for
 * custom ones), metadata well-typed.
 */
export function decodeObject(
  value: unknown,
  resource: ResourceType,
): KubeObject {
  if (!isRecord(value)) {
    throw badRequest(
      `the object provided is unrecognized (must be of type ${resource.kind}): couldn't get version/kind; json parse error: json: cannot unmarshal ${
        jsonType(value)
      } into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  }
  const expected = groupVersion(resource);
  if (resource.custom && (value.kind === undefined || value.kind === "")) {
    throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(value)}'`);
  }
  if (value.apiVersion !== undefined && value.apiVersion !== expected) {
    throw badRequest(
      `the API version in the data (${
        String(value.apiVersion)
      }) does not match the expected API version (${expected})`,
    );
  }
  if (value.kind !== undefined && value.kind !== resource.kind) {
    throw badRequest(
      `the object provided is unrecognized (must be of type ${resource.kind}): kind "${
        String(value.kind)
      }" is not "${resource.kind}"`,
    );
  }
  const metadata = value.metadata ?? {};
  if (!isRecord(metadata)) {
    throw badRequest(
      `json: cannot unmarshal ${
        jsonType(metadata)
      } into Go struct field ${resource.kind}.metadata of type v1.ObjectMeta`,
    );
  }
  for (
    const key of ["name", "generateName", "namespace", "resourceVersion", "uid"]
  ) {
    if (metadata[key] !== undefined && typeof metadata[key] !== "string") {
      throw badRequest(
        `json: cannot unmarshal ${
          jsonType(metadata[key])
        } into Go struct field ObjectMeta.metadata.${key} of type string`,
      );
    }
  }
  checkStringMap(metadata.labels, "ObjectMeta.metadata.labels");
  checkStringMap(metadata.annotations, "ObjectMeta.metadata.annotations");
  if (resource.kind === "ConfigMap") {
    checkStringMap(value.data, "ConfigMap.data");
  }
  return {
    ...value,
    apiVersion: expected,
    kind: resource.kind,
    metadata: { ...metadata },
  };
}

export async function readObject(
  state: State,
  request: Request,
  resource: ResourceType,
): Promise<KubeObject> {
  if (!isJsonMediaType(request.headers.get("content-type"))) {
    throw unsupportedMediaType(["application/json"]);
  }
  const text = await readText(state, request);
  return decodeObject(parseJson(text, resource), resource);
}

export interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
}

export async function readDeleteOptions(
  state: State,
  request: Request,
): Promise<DeleteOptions> {
  const text = await readText(state, request);
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badRequest(
      `couldn't get version/kind; json parse error: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  if (!isRecord(value)) {
    throw badRequest(
      `json: cannot unmarshal ${
        jsonType(value)
      } into Go value of type v1.DeleteOptions`,
    );
  }
  if (value.kind !== undefined && value.kind !== "DeleteOptions") {
    throw badRequest(
      `the object provided is unrecognized (must be of type DeleteOptions): kind "${
        String(value.kind)
      }" is not "DeleteOptions"`,
    );
  }
  const preconditions = value.preconditions;
  if (preconditions === undefined || preconditions === null) return {};
  if (!isRecord(preconditions)) {
    throw badRequest(
      `json: cannot unmarshal ${
        jsonType(preconditions)
      } into Go struct field DeleteOptions.preconditions of type v1.Preconditions`,
    );
  }
  const { uid, resourceVersion } = preconditions;
  for (const [key, v] of Object.entries({ uid, resourceVersion })) {
    if (v !== undefined && v !== null && typeof v !== "string") {
      throw badRequest(
        `json: cannot unmarshal ${
          jsonType(v)
        } into Go struct field Preconditions.preconditions.${key} of type string`,
      );
    }
  }
  return {
    preconditions: {
      uid: typeof uid === "string" ? uid : undefined,
      resourceVersion: typeof resourceVersion === "string"
        ? resourceVersion
        : undefined,
    },
  };
}
