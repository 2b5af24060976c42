/**
 * The dashboard proxy's routes: the paths its units are declared under
 * (dashboard_proxy.ts), the matchers that read a cluster's namespace and
 * name out of them, the policy row they all take, and how their errors
 * start. Pure: which cluster a path names, and how a service proxy path
 * names a head service and its port, stand apart from what is done with
 * a request once it is known to be for one.
 *
 *   /apis/v1alpha2/namespaces/{namespace}/clusters/{name}/dashboard/...
 *   /apis/v1alpha2/namespaces/{namespace}/clusters/{name}/dashboard:session
 *   /apis/v1alpha2/namespaces/{namespace}/clusters/{name}/client
 *   /api/v1/namespaces/{namespace}/services/{name}-head-svc[:port]/proxy/...
 */
import type { RpcRule } from "../service/rpcs.ts";
import type { Params } from "./router.ts";

/** The methods proxied; HEAD is GET's (router.ts). */
export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** The proxy's and the sessions' row: `proxy` on the cluster named. */
export const PROXY_RULE: RpcRule & { namespace: "request" } = {
  verb: "proxy",
  resource: "clusters",
  namespace: "request",
  name: "name",
};

export const CLUSTER_PATH =
  "/apis/v1alpha2/namespaces/{namespace}/clusters/{name}";

/** KubeRay's service proxy's path, for a head service ("blue-head-svc"). */
export const SERVICE_PATH = "/api/v1/namespaces/{namespace}/services/{service}";

/** The suffix KubeRay gives a cluster's head service. */
const HEAD_SERVICE_SUFFIX = "-head-svc";

/**
 * `{namespace, name}` when `parts` is
 * apis/v1alpha2/namespaces/{namespace}/clusters/{name}/{last}[/...].
 */
export function clusterParams(
  parts: string[],
  last: string,
): Params | undefined {
  return parts.length >= 7 && parts[0] === "apis" &&
      parts[1] === "v1alpha2" && parts[2] === "namespaces" &&
      parts[4] === "clusters" && parts[6] === last
    ? { namespace: parts[3], name: parts[5] }
    : undefined;
}

/**
 * `{namespace, name, service, port}` when `parts` is
 * api/v1/namespaces/{namespace}/services/{service}/proxy[/...] and the
 * service, `[scheme:]name[:port]` as Kubernetes spells it, is a head
 * service by KubeRay's name for it: `name` is the cluster's.
 */
export function serviceProxyParams(parts: string[]): Params | undefined {
  if (
    parts.length < 7 || parts[0] !== "api" || parts[1] !== "v1" ||
    parts[2] !== "namespaces" || parts[4] !== "services" ||
    parts[6] !== "proxy"
  ) return undefined;
  const pieces = parts[5].split(":");
  if (pieces.length > 3) return undefined;
  const [service, port = ""] = pieces.length === 3 ? pieces.slice(1) : pieces;
  if (pieces.length === 3 && !["http", "https", ""].includes(pieces[0])) {
    return undefined;
  }
  if (!service.endsWith(HEAD_SERVICE_SUFFIX)) return undefined;
  const name = service.slice(0, -HEAD_SERVICE_SUFFIX.length);
  return name === "" ? undefined : { namespace: parts[3], name, service, port };
}

/** The session routes' variables: `.../clusters/{name}/dashboard:session`. */
export function sessionParams(parts: string[]): Params | undefined {
  return parts.length === 7
    ? clusterParams(parts, "dashboard:session")
    : undefined;
}

/** `Cannot connect to cluster "team-a/blue"`. */
export function connectActionOf(
  request: { namespace?: unknown; name?: unknown },
): string {
  return `Cannot connect to cluster "${request.namespace}/${request.name}"`;
}

/** `Cannot proxy to cluster "team-a/blue"`. */
export function actionOf(
  request: { namespace?: unknown; name?: unknown },
): string {
  return `Cannot proxy to cluster "${request.namespace}/${request.name}"`;
}
