/**
 * A call as a transport hands it to the dispatcher: where it came from and
 * how, before its request is decoded.
 */
import type { Credentials } from "../auth/authenticate.ts";
import type { Transport } from "../transport.ts";

export type { Transport };

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
  /**
   * The credentials to authenticate, from the caller's own (Authorization,
   * client certificate): a unit that knows its callers another way (the
   * dashboard proxy's cookie) says so here. The chain asks before it
   * authenticates; what it throws is the call's refusal.
   */
  credentials?: (own: Credentials) => Promise<KnownBy>;
  /**
   * The call opens a stream whatever its declaration says (a WebSocket
   * through the dashboard proxy): it counts against its caller's cap of
   * open streams, and lives under the streams' rules (stream_lifetime.ts).
   */
  opensStream?: boolean;
  /** An HTTP unit's request line, for its audit record. */
  http?: { method: string; path: string };
}

/**
 * What an HTTP unit answers (units.ts): the response itself, and when the
 * response opens something that lasts (a WebSocket tunnel), its lifetime:
 * a stream of no messages that ends when the thing closes, and closes it
 * when returned. The chain guards the lifetime as it guards a watch
 * (revocation, expiring credentials, --watch-max-duration) and logs the
 * call once it has ended.
 */
export class HttpAnswer {
  constructor(
    readonly response: Response,
    readonly lifetime?: AsyncIterableIterator<never>,
    /**
     * The status the caller is answered, where the response's is not it:
     * 101 for an upgrade, which the listener answers (api/http/upgrade.ts).
     */
    readonly status: number = response.status,
  ) {}
}

/** The credentials a call is authenticated with, and where they came from. */
export interface KnownBy {
  credentials: Credentials;
  /** For the audit: "credentials" (the caller's own) or "cookie". */
  via: string;
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
