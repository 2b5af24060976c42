/**
 * A unit answering one fixed JSON document to any authenticated caller:
 * the Kubernetes API server's discovery (kube_discovery.ts) and OpenAPI
 * (kube_openapi.ts) documents, which never change while Corral runs. The
 * document is encoded once, when the unit is made, not per request.
 */
import { exactPath } from "./router.ts";
import type { HttpUnit } from "./units.ts";

/** The unit answering `document` at `path`; `key` names it ("discovery.APIGroup/Get"). */
export function documentUnit(
  key: string,
  path: string,
  document: Record<string, unknown>,
): HttpUnit {
  const body = JSON.stringify(document);
  return {
    key,
    methods: ["GET"],
    path,
    ...exactPath(path),
    check: "authentication",
    handle: () =>
      Promise.resolve(
        new Response(body, {
          headers: { "content-type": "application/json" },
        }),
      ),
  };
}
