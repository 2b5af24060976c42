/**
 * A Kubernetes list as the Kubernetes-shaped routes answer it
 * (ray_objects.ts): `{apiVersion, kind: "RayClusterList", metadata:
 * {resourceVersion, continue}, items}`, items in name order, each with
 * its apiVersion and kind as a custom resource's are. `limit` and
 * `continue` page it as the API's page tokens do (domain/pagination.ts:
 * the next page starts after the last object of the one before, wherever
 * it now sits); `labelSelector` narrows it. Its resourceVersion is where a
 * watch that follows it resumes from (the watches' resume point, read
 * before the list), or without a cache the highest of its items'.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import {
  type LabelSelector,
  parseLabelSelector,
} from "../../domain/label_selectors.ts";
import { pageCursor } from "../../domain/pagination.ts";
import type { RayObject } from "../service/object_writes.ts";

/** What a list's query string asks for. */
export interface ListQuery {
  /** 0: every object. */
  limit: number;
  continueToken: string;
  selector: LabelSelector;
}

/** The list query of `url`; INVALID_ARGUMENT (400) for a bad one. */
export function listQuery(url: URL, action: string): ListQuery {
  const params = url.searchParams;
  const limitText = params.get("limit") ?? "";
  if (limitText !== "" && !/^\d{1,9}$/.test(limitText)) {
    throw badRequest(`${action}: limit: must be a non-negative integer`);
  }
  const selector = parseLabelSelector(params.get("labelSelector") ?? "");
  if ("problem" in selector) {
    throw badRequest(`${action}: labelSelector: ${selector.problem}`);
  }
  return {
    limit: limitText === "" ? 0 : Number(limitText),
    continueToken: params.get("continue") ?? "",
    selector,
  };
}

/** What a list answer says besides its items. */
export interface ListOptions {
  apiVersion: string;
  /** The objects' kind: "RayCluster" (the list's is "RayClusterList"). */
  kind: string;
  /** The list a continue token belongs to: "rayclusters/team-a". */
  list: string;
  /** The watches' resume point; undefined without a cache. */
  resourceVersion?: string;
  action: string;
}

/** The answer of a list of `objects`. */
export function listAnswer(
  objects: readonly RayObject[],
  query: ListQuery,
  options: ListOptions,
): Record<string, unknown> {
  let cursor;
  try {
    cursor = pageCursor(
      { pageSize: query.limit, pageToken: query.continueToken },
      options.list,
      options.action,
    );
  } catch (error) {
    // The API server's words: a bad continue token is a 400.
    throw error instanceof ServiceError
      ? badRequest(error.message.replaceAll("pageToken", "continue"))
      : error;
  }
  const keyed = objects
    .filter((object) => query.selector(object.metadata.labels))
    .map((object) => ({
      namespace: object.metadata.namespace ?? "",
      name: object.metadata.name,
      object,
    }));
  const { items, nextPageToken } = cursor.page(keyed);
  const metadata: Record<string, string> = {
    resourceVersion: options.resourceVersion ?? highestVersion(objects),
  };
  if (nextPageToken !== "") metadata.continue = nextPageToken;
  return {
    apiVersion: options.apiVersion,
    kind: `${options.kind}List`,
    metadata,
    items: items.map(({ object }) => ({
      ...object,
      apiVersion: object.apiVersion ?? options.apiVersion,
      kind: object.kind ?? options.kind,
    })),
  };
}

/** The highest resourceVersion of `objects`; "" for none. */
function highestVersion(objects: readonly RayObject[]): string {
  let highest: bigint | undefined;
  for (const object of objects) {
    const text = object.metadata.resourceVersion ?? "";
    if (!/^\d{1,30}$/.test(text)) continue;
    const version = BigInt(text);
    if (highest === undefined || version > highest) highest = version;
  }
  return highest === undefined ? "" : String(highest);
}

function badRequest(message: string): ServiceError {
  return new ServiceError(Code.INVALID_ARGUMENT, message);
}
