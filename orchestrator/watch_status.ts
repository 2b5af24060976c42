/**
 * What the API server's failed answers to a list or a watch say, read as
 * client-go's reflector reads them: the HTTP status, 410 Expired, "Too
 * large resource version", a watch's time limit, and the Status an ERROR
 * event of a watch carries.
 *
 * Stands apart from the list/watch loop (reflector.ts) because it only
 * reads answers, and the cache's pager (list_pages.ts) reads them too.
 */

export function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === "TimeoutError";
}

/** The HTTP status a failed list or watch answered, if it got that far. */
export function statusOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === "number" ? status : undefined;
}

/**
 * Whether a list was answered that the version it asked for is gone: 410
 * Expired (compacted), or an API server behind it ("Too large resource
 * version", 504 with that cause: it restarted, or lost its data), as
 * client-go's reflector tells them apart.
 */
export function isVersionGone(error: unknown): boolean {
  const status = statusOf(error);
  if (status === 410) return true;
  return isTooLarge(status, (error as { causes?: unknown } | null)?.causes);
}

/** Whether a Status of `code` with `causes` says "Too large resource version". */
export function isTooLarge(code: unknown, causes: unknown): boolean {
  return code === 504 && Array.isArray(causes) &&
    causes.some((cause) => cause?.reason === "ResourceVersionTooLarge");
}

/** The Status an ERROR event of a watch carries. */
export interface WatchStatus {
  code?: number;
  message?: string;
  details?: { causes?: unknown };
}
