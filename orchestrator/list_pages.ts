/** The cache's lists: a whole collection, in pages, as client-go asks. */
import type { ListAnswer } from "./reflector.ts";
import { statusOf } from "./watch_status.ts";
import type { WatchTransport } from "./watch_stream.ts";

/** Objects a list asks for at a time: client-go's pager's default. */
export const LIST_PAGE_SIZE = 500;

/**
 * A whole collection, asked for in pages of LIST_PAGE_SIZE as client-go's
 * reflector asks (its pager): from an API server that pages, each answer is
 * a few MB, where one answer of 10,000 RayClusters is tens of MB of text
 * parsed at once, which the process keeps as resident memory long after.
 *
 * The first list asks for resourceVersion 0, as client-go's first list
 * does: an API server with its watch cache answers it whole from memory
 * (the limit is ignored there), and asks nothing of etcd. A list after a
 * failure asks for the last version synced (no older than it, from the
 * watch cache too); only once that is gone, for "" (the latest, a
 * consistent read that a real API server pages from etcd). Pages after the first carry only the
 * continue token, which holds the first page's snapshot. When that
 * snapshot is compacted away before the last page (410 Expired), the list
 * is made again in one answer, as client-go's pager does.
 */
export async function listInPages<T>(
  watch: WatchTransport,
  path: string,
  selector: Record<string, string>,
  normalize: (item: unknown) => T,
  from: { resourceVersion: string; signal: AbortSignal },
): Promise<ListAnswer<T>> {
  const first = {
    ...selector,
    ...(from.resourceVersion === ""
      ? {}
      : { resourceVersion: from.resourceVersion }),
  };
  const items: T[] = [];
  let resourceVersion: string | undefined;
  let token = "";
  do {
    let answer: ListAnswer<unknown> & { metadata?: { continue?: string } };
    try {
      answer = await watch.list(
        path,
        token === ""
          ? { ...first, limit: String(LIST_PAGE_SIZE) }
          : { ...selector, limit: String(LIST_PAGE_SIZE), continue: token },
        from.signal,
      ) as typeof answer;
    } catch (error) {
      if (token === "" || statusOf(error) !== 410) throw error;
      const whole = await watch.list(path, first, from.signal) as ListAnswer<
        unknown
      >;
      return {
        ...whole,
        items: (whole.items ?? []).map(normalize),
      };
    }
    for (const item of answer.items ?? []) items.push(normalize(item));
    resourceVersion = answer.metadata?.resourceVersion;
    token = answer.metadata?.continue ?? "";
  } while (token !== "");
  return { items, metadata: { resourceVersion } };
}

/**
 * The API server's current resourceVersion, as the cache asks for it after
 * a lost watch: a consistent read ("": no resourceVersion) of one object
 * of the collection, whose version is etcd's current revision, higher
 * than any version the API server ever answered unless its data was lost
 * or restored. One object: the read costs the API server little.
 */
export async function currentVersion(
  watch: WatchTransport,
  path: string,
  selector: Record<string, string>,
  signal: AbortSignal,
): Promise<string> {
  const answer = await watch.list(
    path,
    { ...selector, limit: "1" },
    signal,
  ) as ListAnswer<unknown>;
  return answer.metadata?.resourceVersion ?? "";
}
