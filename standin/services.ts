/**
 * core/v1 Services and the API server's service proxy,
 * `/api/v1/namespaces/{ns}/services/{[scheme:]name[:port]}/proxy/{path}`.
 *
 * A Service is stored like any kind. On create the stand-in gives one that
 * is not headless `spec.clusterIP` 127.0.0.1 (a real server allocates an
 * address of its service CIDR; in dev mode everything runs on this host).
 *
 * The proxy forwards to what the Service's endpoints are in dev mode: the
 * simulated operator runs no pods, so a head Service it writes carries the
 * 127.0.0.1 port of the cluster's simulated dashboard in the annotation
 * SIMULATED_PORT_ANNOTATION, serving its `dashboard` port. Any other port,
 * or a Service without the annotation, has no endpoint: 503, as the API
 * server answers `no endpoints available for service`. The caller's
 * Authorization header does not travel on (the API server consumes the
 * bearer token it authenticated), nor do hop-by-hop headers. Websocket
 * upgrades are not proxied.
 */

import { isRecord } from "./json.ts";
import type { State } from "./state.ts";
import { StatusError } from "./status.ts";
import type { KubeObject, ResourceType } from "./types.ts";
import { getOrNotFound } from "./verbs.ts";

/**
 * Dev mode only: on a Service, the 127.0.0.1 port where its `dashboard`
 * port is served (by the simulated Ray dashboard of its cluster).
 */
export const SIMULATED_PORT_ANNOTATION = "corral.dev/simulated-port";

/** The port name the annotation serves. */
const SIMULATED_PORT_NAME = "dashboard";

/** Gives a Service that is not headless the dev-mode cluster IP. */
function prepareService(object: KubeObject): void {
  const spec = isRecord(object.spec) ? object.spec : {};
  spec.type ??= "ClusterIP";
  if (spec.clusterIP === undefined || spec.clusterIP === "") {
    spec.clusterIP = "127.0.0.1";
  }
  spec.clusterIPs ??= [spec.clusterIP];
  object.spec = spec;
  object.status ??= { loadBalancer: {} };
}

export const SERVICE: ResourceType = {
  group: "",
  version: "v1",
  kind: "Service",
  plural: "services",
  singular: "service",
  namespaced: true,
  shortNames: ["svc"],
  categories: ["all"],
  prepareForCreate: prepareService,
};

/** Headers that end at a proxy (RFC 9110 7.6.1) and what a proxy drops. */
const DROPPED_HEADERS = [
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "authorization",
  "host",
];

/** Whether `segments` (after `/api`) is a service proxy path. */
export function isServiceProxyPath(segments: string[]): boolean {
  return segments[1] === "v1" && segments[2] === "namespaces" &&
    segments[4] === "services" && segments[6] === "proxy" &&
    segments.length >= 7;
}

function unavailable(message: string): StatusError {
  return new StatusError(503, "ServiceUnavailable", message);
}

/** `[scheme:]name[:port]` of a proxy path, as the API server splits it. */
function splitServiceId(
  id: string,
): { scheme: string; name: string; port: string } {
  const parts = id.split(":");
  if (parts.length === 3) {
    return { scheme: parts[0], name: parts[1], port: parts[2] };
  }
  if (parts.length === 2) return { scheme: "", name: parts[0], port: parts[1] };
  return { scheme: "", name: id, port: "" };
}

interface ServicePort {
  name?: string;
  port?: number;
}

/**
 * The 127.0.0.1 port serving `port` (a name, a number or "" for the
 * first) of `service`; a 503 StatusError when it has none.
 */
function backendPort(service: KubeObject, id: string, port: string): number {
  const spec = isRecord(service.spec) ? service.spec : {};
  const ports = (Array.isArray(spec.ports) ? spec.ports : []) as ServicePort[];
  const found = port === ""
    ? ports[0]
    : ports.find((p) => p.name === port || String(p.port) === port);
  if (!found) {
    throw unavailable(
      `no service port "${port}" found for service "${service.metadata.name}"`,
    );
  }
  const local = Number(
    service.metadata.annotations?.[SIMULATED_PORT_ANNOTATION],
  );
  if (
    found.name !== SIMULATED_PORT_NAME || !Number.isInteger(local) ||
    local <= 0 || local > 65535
  ) {
    throw unavailable(`no endpoints available for service "${id}"`);
  }
  return local;
}

/**
 * Forwards a service proxy request to the Service's simulated endpoint and
 * answers with what it answered; 404 for no such Service, 503 for no
 * endpoint or none reachable.
 */
export async function proxyToService(
  state: State,
  request: Request,
  url: URL,
  segments: string[],
): Promise<Response> {
  const resource = state.resources.find((r) =>
    r.group === "" && r.version === "v1" && r.plural === "services"
  );
  if (!resource) throw unavailable("services are not served");
  const namespace = segments[3];
  const id = segments[5];
  const { scheme, name, port } = splitServiceId(id);
  const service = getOrNotFound(state, resource, namespace, name);
  const local = backendPort(service, id, port);
  if (scheme !== "" && scheme !== "http") {
    throw unavailable(
      `no endpoints available for service "${id}": the simulated endpoints speak http only`,
    );
  }
  // The raw path after `/proxy`, so escapes reach the endpoint as sent.
  const prefix = url.pathname.split("/").slice(0, 8).join("/");
  const rest = url.pathname.slice(prefix.length) || "/";
  const headers = new Headers(request.headers);
  for (const header of DROPPED_HEADERS) headers.delete(header);
  const target = `http://127.0.0.1:${local}${rest}${url.search}`;
  let answer: Response;
  try {
    answer = await fetch(target, {
      method: request.method,
      headers,
      body: request.method === "GET" || request.method === "HEAD"
        ? undefined
        : await request.arrayBuffer(),
      redirect: "manual",
    });
  } catch (error) {
    throw unavailable(
      `error trying to reach service: dial tcp 127.0.0.1:${local}: ${
        (error as Error).message
      }`,
    );
  }
  const out = new Headers(answer.headers);
  for (const header of DROPPED_HEADERS) out.delete(header);
  return new Response(answer.body, { status: answer.status, headers: out });
}
