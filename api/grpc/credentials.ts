/**
 * The gRPC listener's credentials: plaintext, or TLS from a certificate
 * source whose rotations reach new connections without a restart.
 *
 * grpc-js (1.10 on) has what rotation needs: server credentials fed by a
 * certificate provider, which it sets as its HTTP/2 server's secure context
 * on every update. Its own provider, FileWatcherCertificateProvider, is not
 * used: on a read that fails, or a certificate and key read halfway through
 * a rotation, it withdraws the credentials and grpc-js drops new
 * connections until a later read works. The source here keeps the last
 * version that checked instead, and serves the HTTPS listener the same.
 */
import * as grpc from "@grpc/grpc-js";
import { Buffer } from "node:buffer";
import {
  certificateIdentity,
  type CertificateSource,
  type TlsMaterial,
} from "../tls.ts";
import type { Peer } from "../service/call.ts";

/** Plaintext without a source; TLS from it with one. */
export function grpcServerCredentials(
  source?: CertificateSource,
): grpc.ServerCredentials {
  if (!source) return grpc.ServerCredentials.createInsecure();
  const identity = identityProvider(source);
  const ca = source.current.clientCa !== undefined ? caProvider(source) : null;
  // grpc-js 1.14's declaration names the parameters (ca, identity), but its
  // implementation takes them as (identity, ca), and the declared types fit
  // that order (the first is never null, the second may be): identity first.
  // Without a CA provider no client certificate is requested; with one it is
  // requested, not required (false): a client without one still connects.
  return grpc.experimental.createCertificateProviderServerCredentials(
    identity,
    ca,
    false,
  );
}

type IdentityListener = grpc.experimental.IdentityCertificateUpdateListener;
type CaListener = grpc.experimental.CaCertificateUpdateListener;

/**
 * One side of the source as grpc-js' CertificateProvider: it subscribes
 * while a listener is bound and gets the version in force at once.
 */
function provider<L extends (update: never) => void>(
  source: CertificateSource,
  update: (material: TlsMaterial) => Parameters<L>[0],
) {
  const subscriptions = new Map<L, () => void>();
  return {
    add(listener: L) {
      // Asynchronously, as grpc-js' own provider does: grpc-js adds its
      // listener while it sets up a server it has not yet bound.
      queueMicrotask(() => listener(update(source.current) as never));
      subscriptions.set(
        listener,
        source.subscribe((material) => listener(update(material) as never)),
      );
    },
    remove(listener: L) {
      subscriptions.get(listener)?.();
      subscriptions.delete(listener);
    },
  };
}

function identityProvider(
  source: CertificateSource,
): grpc.experimental.CertificateProvider {
  const { add, remove } = provider<IdentityListener>(source, (material) => ({
    certificate: Buffer.from(material.cert),
    privateKey: Buffer.from(material.key),
  }));
  return {
    addIdentityCertificateListener: add,
    removeIdentityCertificateListener: remove,
    addCaCertificateListener() {},
    removeCaCertificateListener() {},
  };
}

function caProvider(
  source: CertificateSource,
): grpc.experimental.CertificateProvider {
  const { add, remove } = provider<CaListener>(source, (material) => ({
    caCertificate: Buffer.from(material.clientCa ?? ""),
  }));
  return {
    addCaCertificateListener: add,
    removeCaCertificateListener: remove,
    addIdentityCertificateListener() {},
    removeIdentityCertificateListener() {},
  };
}

/**
 * The caller's address, and its client certificate's subject when one
 * verified against the client CA: grpc-js' auth context carries the peer
 * certificate only for an authorized TLS connection.
 */
export function grpcPeer(
  call: Pick<
    grpc.ServerUnaryCall<unknown, unknown>,
    "getAuthContext" | "getPeer"
  >,
): Peer {
  const context = call.getAuthContext();
  const certificate = certificateIdentity(
    context.sslPeerCertificate !== undefined,
    context.sslPeerCertificate,
  );
  const address = call.getPeer();
  return {
    ...(address && address !== "unknown" ? { address } : {}),
    ...(certificate ? { certificate } : {}),
  };
}
