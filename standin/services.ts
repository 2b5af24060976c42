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
 * bearer token it authenticated), nor do hop-by-hop headers. A WebSocket
 * upgrade is passed through as the API server passes it: the endpoint's
 * WebSocket is opened first (503 if it cannot be), then the caller's is
 * accepted with the subprotocol the endpoint chose, and messages are
 * relayed both ways until either side closes.
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
  if (request.headers.get("upgrade")?.toLowerCase() === "websocket") {
    return await relayWebSocket(
      request,
      `ws://127.0.0.1:${local}${rest}${url.search}`,
    );
  }
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

/**
 * The caller's WebSocket joined to the endpoint's at `target`, message by
 * message; a 503 StatusError when the endpoint's cannot be opened. (The
 * real API server splices the connections' bytes; relaying messages is
 * the same to both ends and all Deno.serve allows.)
 */
async function relayWebSocket(
  request: Request,
  target: string,
): Promise<Response> {
  const protocols = (request.headers.get("sec-websocket-protocol") ?? "")
    .split(",").map((p) => p.trim()).filter((p) => p !== "");
  const upstream = new WebSocket(target, protocols);
  upstream.binaryType = "arraybuffer";
  const opened = await new Promise<boolean>((resolve) => {
    upstream.onopen = () => resolve(true);
    upstream.onerror = () => resolve(false);
  });
  if (!opened) {
    throw unavailable(
      `error trying to reach service: the WebSocket at ${
        new URL(target).pathname
      } could not be opened`,
    );
  }
  const { socket, response } = Deno.upgradeWebSocket(
    request,
    upstream.protocol ? { protocol: upstream.protocol } : {},
  );
  socket.binaryType = "arraybuffer";
  const pending: (string | ArrayBuffer)[] = [];
  upstream.onmessage = (event) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(event.data);
    else if (socket.readyState === WebSocket.CONNECTING) {
      pending.push(event.data);
    }
  };
  socket.onopen = () => {
    // An endpoint that has closed already is closed after this, with its
    // code (closeWith()).
    for (const data of pending.splice(0)) socket.send(data);
  };
  socket.onmessage = (event) => {
    if (upstream.readyState === WebSocket.OPEN) upstream.send(event.data);
  };
  upstream.onclose = (event) => closeWith(socket, event);
  upstream.onerror = () => closeWith(socket, { code: 1011, reason: "" });
  socket.onclose = (event) => closeWith(upstream, event);
  socket.onerror = () => closeWith(upstream, { code: 1011, reason: "" });
  return response;
}

/** Closes `socket` with the other side's code, where one may send it. */
function closeWith(
  socket: WebSocket,
  event: { code: number; reason: string },
): void {
  if (
    socket.readyState === WebSocket.CLOSING ||
    socket.readyState === WebSocket.CLOSED
  ) return;
  // 1005 and 1006 say no code came; they may not be sent.
  const code = event.code === 1000 || (event.code >= 3000 && event.code < 5000)
    ? event.code
    : event.code === 1005 || event.code === 1006
    ? 1000
    : 1011;
  if (socket.readyState === WebSocket.CONNECTING) {
    // After onopen, which sends what came before the close.
    socket.addEventListener("open", () => socket.close(code, event.reason));
  } else socket.close(code, event.reason);
}
