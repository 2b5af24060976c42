/**
 * The dashboard's browser sessions as calls (dashboard_proxy.ts declares
 * them as units of the chain): opening one, signing out of one, and
 * whether a cookie is still signed in to its cluster.
 *
 * - Opening and signing out take what proxying takes: the chain's policy
 *   row (`proxy` on clusters in the namespace, the namespace served, the
 *   caller's rate), then here the cluster, which must exist (NOT_FOUND)
 *   and, where the rule says `owners: only`, be the caller's
 *   (PERMISSION_DENIED). It is read from Kubernetes, not from the cache:
 *   its record of sign-outs must be the latest.
 * - A sign-out adds one to the caller's count in the cluster's record of
 *   sign-outs (domain/dashboard_sign_outs.ts), written with the read's
 *   resourceVersion as its precondition and done again on the fresh
 *   cluster when another write came first, as ExtendCluster does. Every
 *   cookie of that user for that cluster, wherever it was opened, is then
 *   refused: on this replica at once (its cache holds its own writes), on
 *   the others as soon as their watch brings the change.
 * - A cookie is checked against the cluster as this replica reads it (its
 *   cache), before the chain authenticates the credentials it carries.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import {
  DASHBOARD_SIGN_OUTS_ANNOTATION,
  signOutCount,
  stillSignedIn,
  withSignOut,
} from "../../domain/dashboard_sign_outs.ts";
import { dashboardProxyPath } from "../../domain/cluster_addresses.ts";
import type { Orchestrator } from "../../domain/ports.ts";
import type { RayCluster } from "../../domain/resources.ts";
import { credentialsOf } from "../auth/authenticate.ts";
import {
  type DashboardSession,
  type DashboardSessions,
  setCookie,
} from "../auth/dashboard_sessions.ts";
import { checkOwner } from "../auth/owners.ts";
import type { HttpRequest } from "./http_request.ts";
import type { Params } from "./router.ts";
import type { UnitContext } from "./units.ts";

export interface SessionCallsOptions {
  orchestrator: Orchestrator;
  sessions: DashboardSessions;
  /** Corral serves TLS: cookies are Secure. */
  secure: boolean;
}

/**
 * What `owners: only` says of a cluster's dashboard: the dashboard runs
 * code in the cluster, as changing it does, so using it is the owner's.
 */
export const PROXY_OWNER = {
  resource: "clusters",
  doing: "proxy to a cluster",
} as const;

/** Writes of one sign-out, when other writers keep winning. */
const SIGN_OUT_ATTEMPTS = 5;

/**
 * POST .../dashboard:session: for a caller with its own credentials who
 * may proxy the cluster, a cookie for that cluster's proxy path. The
 * cluster need not be ready yet.
 */
export async function openSession(
  options: SessionCallsOptions,
  request: HttpRequest,
  params: Params,
  call: UnitContext,
): Promise<Response> {
  await request.body?.cancel();
  const user = call.caller.identity.user;
  const cluster = await clusterToUse(options.orchestrator, params, call);
  const signOuts = signOutCount(cluster.metadata.annotations, user);
  if (signOuts === undefined) throw unreadableRecord(call.action);
  const path = dashboardProxyPath(params.namespace, params.name);
  const { value, expiresAt } = await options.sessions.open({
    namespace: params.namespace,
    name: params.name,
    user,
    clusterUid: cluster.metadata.uid ?? "",
    signOuts,
    // The credentials the chain authenticated: the session's calls are
    // authenticated with them again.
    credentials: credentialsOf(
      request.headers.get("authorization"),
      request.peer?.certificate,
      request.peer?.address,
    ),
  });
  const response = Response.json({
    url: path,
    expiresAt: new Date(expiresAt).toISOString(),
  });
  response.headers.set(
    "set-cookie",
    setCookie(value, {
      path,
      maxAgeSeconds: Math.floor(options.sessions.ttlMs / 1000),
      secure: options.secure,
    }),
  );
  response.headers.set("cache-control", "no-store");
  return response;
}

/**
 * DELETE .../dashboard:session: signs the caller out of the cluster's
 * dashboard, every cookie of theirs for it, and clears the cookie. Answers
 * how many of those sessions were opened on this replica.
 */
export async function endSession(
  options: SessionCallsOptions,
  request: HttpRequest,
  params: Params,
  call: UnitContext,
): Promise<Response> {
  await request.body?.cancel();
  const user = call.caller.identity.user;
  await recordSignOut(options.orchestrator, params, call);
  call.log.info("Signed out of a cluster's dashboard", {
    namespace: params.namespace,
    name: params.name,
  });
  const ended = options.sessions.end(params.namespace, params.name, user);
  const response = Response.json({ ended });
  response.headers.set(
    "set-cookie",
    setCookie("", {
      path: dashboardProxyPath(params.namespace, params.name),
      maxAgeSeconds: 0,
      secure: options.secure,
    }),
  );
  return response;
}

/**
 * The session the cookie `value` carries for the cluster of `params`, if
 * it is one and still signed in to that cluster as this replica reads it
 * (a cluster gone is no session either); `address` is the requester's.
 */
export async function signedInSession(
  options: SessionCallsOptions,
  value: string,
  params: Params,
  address: string | undefined,
  signal: AbortSignal,
): Promise<DashboardSession | undefined> {
  const session = await options.sessions.find(
    value,
    params.namespace,
    params.name,
    address,
  );
  if (!session) return undefined;
  let cluster: RayCluster;
  try {
    cluster = await options.orchestrator.clusters.get(
      params.namespace,
      params.name,
      { signal },
    );
  } catch (error) {
    if (error instanceof ServiceError && error.code === Code.NOT_FOUND) {
      return undefined;
    }
    throw error;
  }
  return stillSignedIn(cluster.metadata, session) ? session : undefined;
}

/** The caller's count on the cluster one more, the write redone on conflict. */
async function recordSignOut(
  orchestrator: Orchestrator,
  params: Params,
  call: UnitContext,
): Promise<void> {
  for (let attempt = 1;; attempt++) {
    const cluster = await clusterToUse(orchestrator, params, call);
    const annotations = withSignOut(
      cluster.metadata.annotations,
      call.caller.identity.user,
    );
    if (!annotations) throw unreadableRecord(call.action);
    try {
      await orchestrator.clusters.update(
        { ...cluster, metadata: { ...cluster.metadata, annotations } },
        call.kube,
      );
      return;
    } catch (error) {
      if (
        !(error instanceof ServiceError) || error.code !== Code.ABORTED ||
        attempt >= SIGN_OUT_ATTEMPTS
      ) throw error;
    }
  }
}

/**
 * The cluster as Kubernetes holds it now, when the caller may use its
 * dashboard: NOT_FOUND when there is none, PERMISSION_DENIED when
 * `owners: only` binds the caller and it is another's.
 */
async function clusterToUse(
  orchestrator: Orchestrator,
  params: Params,
  call: UnitContext,
): Promise<RayCluster> {
  const cluster = await orchestrator.clusters.get(
    params.namespace,
    params.name,
    { ...call.kube, fresh: true },
  );
  checkOwner(call, cluster, PROXY_OWNER);
  return cluster;
}

function unreadableRecord(action: string): ServiceError {
  return new ServiceError(
    Code.FAILED_PRECONDITION,
    `${action}: the cluster's annotation "${DASHBOARD_SIGN_OUTS_ANNOTATION}" is not Corral's record of dashboard sign-outs (a JSON object of counts by user): an administrator must repair or remove it`,
  );
}
