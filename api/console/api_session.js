// @ts-check
/// <reference lib="dom" />
/**
 * Who Corral takes this tab to be (whoami), whether a token signs in, and
 * the dashboard sessions the tab opened, ended when it signs out.
 */
import { ApiError, call, headers, paths, send } from "./api.js";

/**
 * Who Corral takes this tab to be, with its token (or its certificate, or
 * as system:anonymous where Corral allows that): `{ user, groups }`; null
 * when it takes the tab for no one (401), which asks for no token: the
 * watch does that.
 * @returns {Promise<{ user: string, groups: string[] } | null>}
 */
export async function whoAmI() {
  return await identityOf(headers(false));
}

/**
 * Who `candidate` signs in as, or null when Corral does not accept it;
 * asked before the tab keeps a token, so a wrong one is said at once.
 * @param {string} candidate
 * @returns {Promise<{ user: string, groups: string[] } | null>}
 */
export async function checkToken(candidate) {
  return await identityOf({ authorization: `Bearer ${candidate}` });
}

/**
 * Who whoami says the caller of these headers is; null on a 401.
 * @param {Record<string, string>} callHeaders
 * @returns {Promise<{ user: string, groups: string[] } | null>}
 */
async function identityOf(callHeaders) {
  const response = await send(paths.whoami, { headers: callHeaders });
  if (response.status === 401) {
    await response.body?.cancel();
    return null;
  }
  const json = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, json);
  return json;
}

/**
 * The clusters whose dashboards this tab opened a session for, so that
 * signing out ends those sessions too.
 * @type {Set<string>}
 */
const dashboardSessions = new Set();

/**
 * The path of a cluster's dashboard session (POST opens, DELETE ends).
 * @param {string} namespace
 * @param {string} name
 */
function dashboardSessionPath(namespace, name) {
  return `${paths.cluster(namespace, name)}/dashboard:session`;
}

/**
 * Opens a dashboard session: Corral sets a cookie, for that one cluster's
 * proxy path, with which the browser may follow links into the dashboard.
 * @param {string} namespace
 * @param {string} name
 * @returns {Promise<{ url: string, expiresAt: string }>}
 */
export async function openDashboardSession(namespace, name) {
  const answer = await call("POST", dashboardSessionPath(namespace, name));
  dashboardSessions.add(JSON.stringify([namespace, name]));
  return answer;
}

/** Ends every dashboard session this tab opened; failures are ignored. */
export async function endDashboardSessions() {
  await Promise.allSettled(
    [...dashboardSessions].map((key) => {
      const [namespace, name] = JSON.parse(key);
      return fetch(dashboardSessionPath(namespace, name), {
        method: "DELETE",
        headers: headers(false),
      });
    }),
  );
  dashboardSessions.clear();
}

/** The Ray versions Corral knows, newest first, once read. */
let knownVersions = /** @type {Promise<string[]> | null} */ (null);

/**
 * The Ray versions Corral knows, newest first, as GET /version answers
 * them (domain/ray_versions.ts): the create form offers them and starts
 * on the newest. None from a Corral that does not say (or cannot be
 * reached); asked once per tab.
 * @returns {Promise<string[]>}
 */
export function rayVersions() {
  knownVersions ??= send(paths.version, {}).then(async (response) => {
    const json = await response.json().catch(() => ({}));
    const versions = response.ok ? json.rayVersions : undefined;
    return Array.isArray(versions) ? versions.map(String) : [];
  }).catch(() => {
    knownVersions = null;
    return [];
  });
  return knownVersions;
}
