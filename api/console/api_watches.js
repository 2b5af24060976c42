// @ts-check
/// <reference lib="dom" />
/**
 * The watches' answers as they start (WatchClusters, WatchRayJobs), for
 * watch.js and jobs_watch.js to follow: newline-delimited JSON, one
 * `{result}` or `{error}` a line.
 */
import { headers, paths, send, whenUnauthorized } from "./api.js";

/**
 * WatchClusters' answer as it starts: from `resourceVersion` on, or with the
 * clusters as they are when it is empty. Its body is newline-delimited
 * JSON, one `{result: WatchAnswer}` or `{error}` a line.
 * @param {string} resourceVersion
 * @param {AbortSignal} signal
 */
export function openWatch(resourceVersion, signal) {
  const query = resourceVersion === ""
    ? ""
    : `?resourceVersion=${encodeURIComponent(resourceVersion)}`;
  return send(`${paths.watch}${query}`, { headers: headers(false), signal });
}

/**
 * WatchRayJobs' answer as it starts, as openWatch()'s for clusters: the
 * jobs of `namespace` (every namespace the caller may watch when
 * undefined) from `resourceVersion` on, or as they are when it is empty;
 * newline-delimited JSON, one `{result: JobWatchAnswer}` or `{error}` a
 * line. A 401 asks for a token, as listing the jobs did.
 * @param {string | undefined} namespace
 * @param {string} resourceVersion
 * @param {AbortSignal} signal
 */
export async function openJobsWatch(namespace, resourceVersion, signal) {
  const query = resourceVersion === ""
    ? ""
    : `?resourceVersion=${encodeURIComponent(resourceVersion)}`;
  const response = await send(`${paths.jobsWatch(namespace)}${query}`, {
    headers: headers(false),
    signal,
  });
  if (response.status === 401) whenUnauthorized();
  return response;
}
