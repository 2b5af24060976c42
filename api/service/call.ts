/**
 * A call as a transport hands it to the dispatcher: where it came from and
 * how, before its request is decoded.
 */
export type Transport = "http" | "grpc";

export interface Call {
  transport: Transport;
  /** Corral's own id of the call (request_id.ts). */
  requestId: string;
  /** The caller's x-request-id, sanitised (request_id.ts); logged, never trusted. */
  clientRequestId?: string;
  /** "proto.ClusterService/CreateCluster" */
  key: string;
  /** The HTTP route, "GET /apis/v1alpha2/clusters", for HTTP calls. */
  route?: string;
  /** Who is at the other end of the connection, as far as TLS tells. */
  peer?: Peer;
  /** The Authorization header (HTTP) or metadata (gRPC), if any. */
  authorization?: string;
  /**
   * The namespace and name the path names (HTTP), known before the request
   * is decoded: the audit trail says what a refused caller aimed at.
   */
  target?: { namespace?: string; name?: string };
}

/** The connection a call came on. */
export interface Peer {
  /** The client's IP and port, "10.0.0.7:51234" or "[fd00::7]:51234". */
  address?: string;
  /**
   * The client certificate's subject (CN and O), present only when the
   * certificate verified against --client-ca-file.
   */
  certificate?: { commonName?: string; organizations: string[] };
}
