/**
 * The Ray client port of a ready cluster through Corral, for
 * `ray.init("ray://...")` from outside the Kubernetes cluster:
 *
 *   GET /apis/v1alpha2/namespaces/{namespace}/clusters/{name}/client
 *
 * with a WebSocket upgrade, whose binary messages carry the bytes of one
 * TCP connection to the head service's port 10001 both ways (`corral
 * clusters connect` turns each local connection into one). The unit is
 * the dashboard proxy's (dashboard_proxy.ts): the same row (`proxy` on
 * clusters), the same checks (ready, owners), audited, and counted and
 * ended as a stream, through the same TunnelLifetime. A GET without the
 * upgrade answers 204 once the checks pass: a probe, so that a client
 * says why it is refused before it listens.
 *
 * The WebSocket ends here (websocket_bytes.ts): the port gets the
 * caller's bytes, as a Ray client server needs them, over a connection
 * made the way --cluster-access says (ClusterAccess.connect):
 *
 *   direct           a TCP connection to the head service's port;
 *   apiserver-proxy  the API server's port forwarding to the running head
 *                    pod (pods/portforward): its service proxy carries
 *                    HTTP only, which a Ray client server (gRPC) does not
 *                    answer.
 */
import type { Duplex } from "node:stream";
import { Code } from "../../domain/errors.ts";
import type { Logger } from "../../domain/log.ts";
import type { RayCluster } from "../../domain/resources.ts";
import { CLIENT_PORT, headServiceOf } from "../../domain/cluster_addresses.ts";
import type { ClusterAccess } from "../../domain/dashboard_ports.ts";
import { HttpError } from "../errors.ts";
import { HttpAnswer } from "../service/dispatcher.ts";
import { dashboardFailure } from "./dashboard_failures.ts";
import { TunnelLifetime } from "./dashboard_tunnel.ts";
import type { HttpRequest } from "./http_request.ts";
import { isWebSocketUpgrade, upgradeAnswer } from "./upgrade.ts";
import { acceptKey } from "../../domain/websocket_frames.ts";
import { spliceWebSocket } from "./websocket_bytes.ts";

/** Who errors name as the other end. */
const PEER = "the Ray client server";

export interface ClientTunnelOptions {
  clusterAccess: ClusterAccess;
  /** The bound on reaching the port (through the API server too). */
  timeoutMs: number;
  log: Logger;
}

/**
 * The tunnel to `cluster`'s client port for a request the chain has let
 * through and whose cluster is ready and the caller's to use; 204 for a
 * request without an upgrade. Throws HttpError 400, 502 or 504.
 */
export async function clientTunnel(
  options: ClientTunnelOptions,
  request: HttpRequest,
  cluster: RayCluster,
  action: string,
): Promise<Response | HttpAnswer> {
  if (!isWebSocketUpgrade(request.headers)) {
    return new Response(null, { status: 204 });
  }
  const key = request.headers.get("sec-websocket-key");
  if (!key || request.headers.get("sec-websocket-version") !== "13") {
    throw new HttpError(
      400,
      Code.INVALID_ARGUMENT,
      `${action}: the WebSocket upgrade needs Sec-WebSocket-Key and Sec-WebSocket-Version 13`,
    );
  }
  const lifetime = new TunnelLifetime();
  const upstream = await connectPort(options, cluster, request.signal, action);
  return new HttpAnswer(
    joinedBytes(upstream, acceptKey(key), request.signal, lifetime),
    lifetime,
    101,
  );
}

/**
 * A TCP connection to the cluster's client port; 502 or 504 when there is
 * none, 503 when the cluster has no head pod to forward to.
 */
async function connectPort(
  options: ClientTunnelOptions,
  cluster: RayCluster,
  caller: AbortSignal,
  action: string,
): Promise<Duplex> {
  const { timeoutMs } = options;
  const timeout = AbortSignal.timeout(timeoutMs);
  const target = {
    namespace: cluster.metadata?.namespace ?? "",
    cluster: cluster.metadata?.name ?? "",
    service: headServiceOf(cluster),
    port: CLIENT_PORT,
  };
  const url = `${target.service}.${target.namespace}:${target.port}`;
  try {
    return await options.clusterAccess.connect(
      target,
      AbortSignal.any([timeout, caller]),
    );
  } catch (error) {
    throw dashboardFailure(
      {
        action,
        upstream: url,
        timeoutMs,
        awaited: "accept the connection",
        peer: PEER,
      },
      error,
      timeout.aborted,
      options.log,
    );
  }
}

/**
 * The answer that, given the caller's connection, accepts its WebSocket
 * and splices it to `upstream`; the caller going away before that closes
 * the upstream.
 */
function joinedBytes(
  upstream: Duplex,
  accept: string,
  signal: AbortSignal,
  lifetime: TunnelLifetime,
): Response {
  let started = false;
  const abandon = () => {
    if (started) return;
    upstream.destroy();
    lifetime.closed();
  };
  signal.addEventListener("abort", abandon, { once: true });
  // Nothing is read from the port until the join; an error before it
  // (a reset) leaves the socket destroyed, which the join ends at once.
  upstream.pause();
  const early = () => upstream.destroy();
  upstream.on("error", early);
  return upgradeAnswer((client, head) => {
    started = true;
    signal.removeEventListener("abort", abandon);
    upstream.off("error", early);
    client.write(
      [
        "HTTP/1.1 101 Switching Protocols",
        "connection: Upgrade",
        "upgrade: websocket",
        `sec-websocket-accept: ${accept}`,
      ].join("\r\n") + "\r\n\r\n",
    );
    const end = spliceWebSocket(
      client,
      head,
      upstream,
      () => lifetime.closed(),
    );
    lifetime.opened(end);
  });
}
