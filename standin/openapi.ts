/**
 * A minimal OpenAPI v3 document per group version: enough for kubectl to
 * validate fields on the server and to `kubectl explain` custom kinds.
 */

import { SERVER_VERSION } from "./discovery.ts";
import { json } from "./json.ts";
import { unknownPath } from "./status.ts";
import { type ResourceType, serves } from "./types.ts";

/** `api/v1`, `apis/ray.io/v1`: how OpenAPI v3 names a group version. */
function openApiPath(group: string, version: string): string {
  return group === "" ? `api/${version}` : `apis/${group}/${version}`;
}

/** `io.ray.v1.RayCluster`: the schema name Kubernetes gives a kind. */
function definitionName(resource: ResourceType): string {
  const group = resource.group === ""
    ? "io.k8s.api.core"
    : resource.group.split(".").reverse().join(".");
  return `${group}.${resource.version}.${resource.kind}`;
}

/**
 * A minimal OpenAPI v3 document of one group version: a path per served
 * resource whose create and patch operations declare the fieldValidation
 * query parameter (how kubectl learns the server validates fields, so that
 * `kubectl create -f` and `apply` use server-side strict validation), and
 * each kind's schema (the CRD's, for custom kinds) for `kubectl explain`.
 */
function openApiGroupVersion(
  resources: readonly ResourceType[],
  group: string,
  version: string,
): unknown {
  const served = resources.filter((r) =>
    r.group === group && r.version === version
  );
  const fieldValidation = {
    name: "fieldValidation",
    in: "query",
    description:
      "Ignore, Warn (the default) or Strict: what to do with unknown or duplicate fields",
    schema: { type: "string", uniqueItems: true },
  };
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const resource of served) {
    const gvk = [{ group, version, kind: resource.kind }];
    const ref = { $ref: `#/components/schemas/${definitionName(resource)}` };
    const operation = (action: string, withFieldValidation: boolean) => ({
      operationId: `${action}${resource.kind}`,
      parameters: withFieldValidation ? [fieldValidation] : [],
      responses: {
        "200": { content: { "application/json": { schema: ref } } },
      },
      "x-kubernetes-action": action,
      "x-kubernetes-group-version-kind": gvk[0],
    });
    const base = `/${openApiPath(group, version)}${
      resource.namespaced ? "/namespaces/{namespace}" : ""
    }/${resource.plural}`;
    // Only the served verbs: a TokenReview is created, nothing else.
    const served = (
      entries: [string, string, string, boolean][],
    ): Record<string, unknown> =>
      Object.fromEntries(
        entries.filter(([verb]) => serves(resource, verb)).map((
          [, method, action, withFieldValidation],
        ) => [method, operation(action, withFieldValidation)]),
      );
    const collection = served([
      ["list", "get", "list", false],
      ["create", "post", "post", true],
    ]);
    const item = served([
      ["get", "get", "get", false],
      ["update", "put", "put", true],
      ["patch", "patch", "patch", true],
      ["delete", "delete", "delete", false],
    ]);
    if (Object.keys(collection).length > 0) paths[base] = collection;
    if (Object.keys(item).length > 0) paths[`${base}/{name}`] = item;
    schemas[definitionName(resource)] = {
      ...(resource.schema ?? { type: "object" }),
      "x-kubernetes-group-version-kind": gvk,
    };
  }
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: SERVER_VERSION.gitVersion },
    paths,
    components: { schemas },
  };
}

export function openApiV3(
  resources: readonly ResourceType[],
  rest: string[],
): Response {
  const groupVersions = new Map<string, [string, string]>();
  for (const r of resources) {
    groupVersions.set(openApiPath(r.group, r.version), [r.group, r.version]);
  }
  if (rest.length === 0) {
    const paths: Record<string, unknown> = {};
    for (const [path, [group, version]] of groupVersions) {
      const document = JSON.stringify(
        openApiGroupVersion(resources, group, version),
      );
      paths[path] = {
        serverRelativeURL: `/openapi/v3/${path}?hash=${contentHash(document)}`,
      };
    }
    return json({ paths });
  }
  const found = groupVersions.get(rest.join("/"));
  if (!found) throw unknownPath();
  return json(openApiGroupVersion(resources, found[0], found[1]));
}

/** A short FNV-1a hash: what the OpenAPI v3 index uses to bust caches. */
function contentHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).toUpperCase().padStart(8, "0");
}
