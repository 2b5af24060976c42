/**
 * The least of the API server's OpenAPI v3 documents that `kubectl create`
 * and `kubectl replace` need with their default flags: kubectl validates an
 * object against the server's schema unless the server takes the
 * `fieldValidation` parameter, which it learns from `/openapi/v3` (the
 * index of group-versions) and the group-version's document (a PATCH of
 * the kind that lists the parameter). So Corral serves the index with its
 * RayCluster API group-version only, and that document with the three
 * kinds' PATCH operations and their parameter: kubectl then sends
 * `fieldValidation=Strict` and leaves the object's schema to the API
 * server behind Corral, which checks every write against the CRDs.
 *
 * The documents hold no schemas: `kubectl explain` finds nothing in them.
 */
import { KINDS } from "../../domain/kinds.ts";
import { documentUnit } from "./document_unit.ts";
import type { HttpUnit } from "./units.ts";

/** The units of `/openapi/v3` and of the group-version's document. */
export function openApiV3Units(clusterApiVersion: string): HttpUnit[] {
  const [group, version] = clusterApiVersion.split("/");
  const documentPath = `/openapi/v3/apis/${group}/${version}`;
  const document = groupVersionDocument(group, version);
  // What the index names the document by: kubectl caches it under it.
  const hash = String(
    [...JSON.stringify(document)].reduce(
      (sum, char) => (sum * 31 + char.charCodeAt(0)) >>> 0,
      7,
    ),
  );
  return [
    documentUnit("openapi.v3.Index/Get", "/openapi/v3", {
      paths: {
        [`apis/${group}/${version}`]: {
          serverRelativeURL: `${documentPath}?hash=${hash}`,
        },
      },
    }),
    documentUnit("openapi.v3.GroupVersion/Get", documentPath, document),
  ];
}

function groupVersionDocument(group: string, version: string) {
  const paths: Record<string, unknown> = {};
  for (const name of ["clusters", "jobs", "services"] as const) {
    const { kind, plural } = KINDS[name].resource;
    paths[`/apis/${group}/${version}/namespaces/{namespace}/${plural}/{name}`] =
      {
        patch: {
          operationId: `patch${kind}`,
          "x-kubernetes-group-version-kind": { group, version, kind },
          parameters: [{
            name: "fieldValidation",
            in: "query",
            description:
              "taken as the API server takes it; the API server behind Corral checks the object against its CRD",
            schema: { type: "string" },
          }],
          responses: { "200": { description: "OK" } },
        },
      };
  }
  return {
    openapi: "3.0.0",
    info: { title: "Corral: KubeRay's Kubernetes-shaped routes", version },
    paths,
  };
}
