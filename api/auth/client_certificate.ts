/**
 * The identity of a TLS client certificate, as the Kubernetes API server
 * reads it (k8s.io/apiserver x509.CommonNameUserConversion): the user is the
 * subject's common name (CN), the groups are its organizations (O), in order.
 *
 * The certificate must already be verified against the client CA by the TLS
 * layer (node:tls `socket.authorized`, with the client-auth key usage): this
 * function only reads names.
 *
 * Outcomes: a subject with a non-empty CN gives an Identity; no certificate,
 * or no CN, is "not mine" (undefined), so the request falls through to its
 * bearer token. A subject with several CN attributes takes the last, as Go's
 * pkix.Name does for kube-apiserver.
 */

import type { Identity } from "./identity.ts";

/**
 * The part of node:tls PeerCertificate read here: node gives a subject
 * attribute that occurs several times as an array.
 */
export interface PeerCertificateLike {
  subject?: {
    CN?: string | string[];
    O?: string | string[];
  } | null;
}

export function identityFromCertificate(
  certificate: PeerCertificateLike | null | undefined,
): Identity | undefined {
  const subject = certificate?.subject;
  if (!subject) return undefined;
  const names = asList(subject.CN);
  const user = names[names.length - 1];
  if (!user) return undefined;
  return {
    user,
    groups: asList(subject.O).filter(Boolean),
    authenticator: "client-certificate",
  };
}

function asList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).filter((v) =>
    typeof v === "string"
  );
}
