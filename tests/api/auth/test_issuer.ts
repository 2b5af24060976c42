/**
 * A real OpenID Connect issuer for tests: an HTTPS server on 127.0.0.1:0
 * serving discovery and keys, with a CA and a server certificate made here
 * with WebCrypto (no openssl binary), and signing keys of its own.
 */

// @peculiar/x509 resolves its parts through tsyringe, which needs the
// Reflect metadata API loaded first.
import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import type { CryptoKey, JWK, JWTPayload } from "jose";

const EC = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };

export interface TestCa {
  /** The CA certificate, PEM. */
  certPem: string;
  /** A server certificate for 127.0.0.1 signed by the CA, and its key. */
  serverCertPem: string;
  serverKeyPem: string;
}

/** A CA, and a certificate for 127.0.0.1 it signed. */
export async function makeTestCa(name = "Corral test CA"): Promise<TestCa> {
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 24 * 3600_000);
  const caKeys = await crypto.subtle.generateKey(EC, true, ["sign", "verify"]);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name: `CN=${name}`,
    notBefore,
    notAfter,
    signingAlgorithm: EC,
    keys: caKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const serverKeys = await crypto.subtle.generateKey(EC, true, [
    "sign",
    "verify",
  ]);
  const server = await x509.X509CertificateGenerator.create({
    serialNumber: "02",
    subject: "CN=127.0.0.1",
    issuer: ca.subject,
    notBefore,
    notAfter,
    signingAlgorithm: EC,
    publicKey: serverKeys.publicKey,
    signingKey: caKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        { type: "ip", value: "127.0.0.1" },
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const pkcs8 = await crypto.subtle.exportKey("pkcs8", serverKeys.privateKey);
  return {
    certPem: ca.toString("pem"),
    serverCertPem: server.toString("pem"),
    serverKeyPem: pem("PRIVATE KEY", new Uint8Array(pkcs8)),
  };
}

function pem(label: string, der: Uint8Array): string {
  const base64 = btoa(String.fromCharCode(...der));
  const lines = base64.match(/.{1,64}/g)!.join("\n");
  return `-----BEGIN ${label}-----\n${lines}\n-----END ${label}-----\n`;
}

export interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function makeSigningKey(
  alg: string,
  kid: string,
): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, {
    extractable: true,
  });
  return {
    kid,
    alg,
    privateKey,
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" },
  };
}

/** A signed JWT with the given claims (none added). */
export function sign(key: SigningKey, claims: JWTPayload): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "JWT" })
    .sign(key.privateKey);
}

export interface TestIssuer {
  /** https://127.0.0.1:PORT, the issuer URL. */
  url: string;
  ca: TestCa;
  /** The keys the issuer publishes; change it to rotate. */
  keys: SigningKey[];
  /** Requests served, by path. */
  fetches: Record<string, number>;
  /** Overrides the discovery document's `issuer`. */
  discoveryIssuer?: string;
  close(): Promise<void>;
}

export async function startTestIssuer(ca?: TestCa): Promise<TestIssuer> {
  const testCa = ca ?? await makeTestCa();
  const fetches: Record<string, number> = {};
  const state: Omit<TestIssuer, "close"> = {
    url: "",
    ca: testCa,
    keys: [],
    fetches,
  };
  const { promise: listening, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: testCa.serverCertPem,
    key: testCa.serverKeyPem,
    onListen: ({ port }) => resolve(port),
    onError: () => new Response("error", { status: 500 }),
  }, (request) => {
    const path = new URL(request.url).pathname;
    fetches[path] = (fetches[path] ?? 0) + 1;
    if (path === "/.well-known/openid-configuration") {
      return Response.json({
        issuer: state.discoveryIssuer ?? state.url,
        jwks_uri: `${state.url}/keys`,
        id_token_signing_alg_values_supported: ["RS256", "ES256", "EdDSA"],
      });
    }
    if (path === "/keys") {
      return Response.json({ keys: state.keys.map((k) => k.publicJwk) });
    }
    return new Response("not found", { status: 404 });
  });
  state.url = `https://127.0.0.1:${await listening}`;
  return Object.assign(state, {
    close: () => server.shutdown(),
  });
}
