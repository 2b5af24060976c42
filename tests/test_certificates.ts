/**
 * Certificates for tests, made with WebCrypto and @peculiar/x509, so no
 * openssl binary is needed: a certificate authority, and server and client
 * certificates it signs. ECDSA P-256 keys: quick to make.
 */
// tsyringe, which @peculiar/x509 uses, needs the Reflect metadata API first.
import "reflect-metadata";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(crypto);

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };

/** A certificate and its private key, both PEM, and what tests compare. */
export interface Issued {
  cert: string;
  key: string;
  /** Lower-case hex, as node:tls's `PeerCertificate.serialNumber` (upper). */
  serial: string;
  certificate: x509.X509Certificate;
  keys: CryptoKeyPair;
}

let serials = 0;

/** A new serial number, unique in this process, as hex. */
function nextSerial(): string {
  serials++;
  const random = crypto.getRandomValues(new Uint8Array(6));
  // The first byte below 0x80: a positive number, as RFC 5280 wants.
  return `01${
    [...random].map((b) => b.toString(16).padStart(2, "0")).join("")
  }${serials.toString(16).padStart(4, "0")}`;
}

function generateKeys(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]);
}

async function issued(
  certificate: x509.X509Certificate,
  keys: CryptoKeyPair,
): Promise<Issued> {
  const pkcs8 = await crypto.subtle.exportKey("pkcs8", keys.privateKey);
  return {
    cert: certificate.toString("pem") + "\n",
    key: x509.PemConverter.encode(pkcs8, "PRIVATE KEY") + "\n",
    serial: certificate.serialNumber.toLowerCase(),
    certificate,
    keys,
  };
}

const DAY = 24 * 60 * 60 * 1000;

/** A self-signed certificate authority named `name`. */
export async function createCa(name = "Corral test CA"): Promise<Issued> {
  const keys = await generateKeys();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: nextSerial(),
    name: `CN=${name}`,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + DAY),
    keys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return issued(certificate, keys);
}

export interface LeafOptions {
  /** The subject's common name. */
  commonName: string;
  /** The subject's organizations (O=), for client certificates. */
  organizations?: string[];
  /** Subject alternative names: DNS names and IP addresses. */
  dns?: string[];
  ips?: string[];
  usage: "server" | "client";
}

/** A certificate signed by `ca`. */
export async function issue(ca: Issued, options: LeafOptions): Promise<Issued> {
  const keys = await generateKeys();
  const subject = [
    `CN=${options.commonName}`,
    ...(options.organizations ?? []).map((o) => `O=${o}`),
  ].join(", ");
  const names = [
    ...(options.dns ?? []).map((value) => ({ type: "dns" as const, value })),
    ...(options.ips ?? []).map((value) => ({ type: "ip" as const, value })),
  ];
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: nextSerial(),
    subject,
    issuer: ca.certificate.subject,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + DAY),
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([
        options.usage === "server"
          ? x509.ExtendedKeyUsage.serverAuth
          : x509.ExtendedKeyUsage.clientAuth,
      ]),
      ...(names.length > 0
        ? [new x509.SubjectAlternativeNameExtension(names)]
        : []),
      await x509.AuthorityKeyIdentifierExtension.create(ca.certificate),
    ],
  });
  return issued(certificate, keys);
}

/** A server certificate for localhost and 127.0.0.1. */
export function issueServer(ca: Issued): Promise<Issued> {
  return issue(ca, {
    commonName: "corral",
    dns: ["localhost"],
    ips: ["127.0.0.1"],
    usage: "server",
  });
}

/**
 * A directory laid out as the kubelet lays out a Secret volume: the files
 * are symlinks through `..data`, itself a symlink to a timestamped
 * directory, swapped atomically on an update.
 */
export class SecretVolume {
  private generation = 0;
  private constructor(readonly dir: string) {}

  static async create(files: Record<string, string>): Promise<SecretVolume> {
    const volume = new SecretVolume(await Deno.makeTempDir());
    await volume.update(files);
    for (const name of Object.keys(files)) {
      await Deno.symlink(`..data/${name}`, `${volume.dir}/${name}`);
    }
    return volume;
  }

  path(name: string): string {
    return `${this.dir}/${name}`;
  }

  async update(files: Record<string, string>): Promise<void> {
    const version = `..2026_11_23_${this.generation++}`;
    await Deno.mkdir(`${this.dir}/${version}`);
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(`${this.dir}/${version}/${name}`, text);
    }
    await Deno.symlink(version, `${this.dir}/..data_tmp`);
    await Deno.rename(`${this.dir}/..data_tmp`, `${this.dir}/..data`);
  }

  remove(): Promise<void> {
    return Deno.remove(this.dir, { recursive: true });
  }
}
