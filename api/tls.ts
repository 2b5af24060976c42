/**
 * The certificate files both listeners serve TLS with: read and checked once
 * before a port is bound, then re-read while serving, so that a certificate
 * rotated in a mounted Secret (cert-manager renews it; the kubelet swaps the
 * volume's `..data` symlink atomically) reaches new connections without a
 * restart. Connections already open keep the certificate they began with.
 *
 * One source for both listeners: the HTTPS listener sets each new version as
 * its secure context, the gRPC listener gets it through grpc-js's
 * certificate provider interface (api/grpc/credentials.ts).
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import tls from "node:tls";
import type { Logger } from "../domain/log.ts";

/** The files, as settings.ts names them. */
export interface TlsFiles {
  certFile: string;
  keyFile: string;
  clientCaFile?: string;
}

/** The files' contents, PEM, checked to work together. */
export interface TlsMaterial {
  cert: string;
  key: string;
  clientCa?: string;
}

/** A file that cannot be read or used, and the flag that named it. */
export class TlsFileError extends Error {
  constructor(
    readonly flag: string,
    readonly file: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(`Cannot use ${flag} "${file}": ${reason}`, options);
    this.name = "TlsFileError";
  }
}

const FLAGS = {
  certFile: "--tls-cert-file",
  keyFile: "--tls-private-key-file",
  clientCaFile: "--client-ca-file",
} as const;

/**
 * Reads the files and checks that they parse and that the key is the
 * certificate's; throws a TlsFileError naming the flag and file otherwise.
 */
export async function readTlsFiles(files: TlsFiles): Promise<TlsMaterial> {
  return checkTlsMaterial(files, await readRaw(files));
}

async function readRaw(files: TlsFiles): Promise<TlsMaterial> {
  const read = async (field: keyof typeof FLAGS, file: string) => {
    try {
      return await Deno.readTextFile(file);
    } catch (error) {
      throw new TlsFileError(FLAGS[field], file, (error as Error).message, {
        cause: error,
      });
    }
  };
  const [cert, key, clientCa] = await Promise.all([
    read("certFile", files.certFile),
    read("keyFile", files.keyFile),
    files.clientCaFile ? read("clientCaFile", files.clientCaFile) : undefined,
  ]);
  return { cert, key, ...(clientCa !== undefined ? { clientCa } : {}) };
}

function checkTlsMaterial(files: TlsFiles, material: TlsMaterial): TlsMaterial {
  const fail = (field: keyof typeof FLAGS, reason: string, cause?: unknown) =>
    new TlsFileError(FLAGS[field], files[field]!, reason, { cause });
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(material.cert);
  } catch (error) {
    throw fail("certFile", "not a PEM certificate", error);
  }
  let key;
  try {
    key = createPrivateKey(material.key);
  } catch (error) {
    throw fail("keyFile", "not a PEM private key", error);
  }
  if (!certificate.checkPrivateKey(key)) {
    throw fail(
      "keyFile",
      `not the private key of the certificate in "${files.certFile}"`,
    );
  }
  if (material.clientCa !== undefined) {
    try {
      new X509Certificate(material.clientCa);
    } catch (error) {
      throw fail("clientCaFile", "not a PEM certificate", error);
    }
  }
  try {
    tls.createSecureContext(secureContextOptions(material));
  } catch (error) {
    throw fail("certFile", (error as Error).message, error);
  }
  return material;
}

/** The options of `tls.createSecureContext` and `server.setSecureContext`. */
export function secureContextOptions(
  material: TlsMaterial,
): tls.SecureContextOptions {
  return {
    cert: material.cert,
    key: material.key,
    ...(material.clientCa !== undefined ? { ca: material.clientCa } : {}),
  };
}

/**
 * The server options of both listeners' TLS: with a client CA, a client
 * certificate is requested, not required (Go's `tls.RequestClientCert`, as
 * the Kubernetes API server does), and the handshake accepts any: whether
 * it verified against the CA is decided per connection (`authorized`), and
 * one that did not is no identity. So a client without a certificate, or
 * with one from another CA, still connects and may authenticate otherwise
 * (a bearer token).
 */
export function clientCertificateOptions(
  material: TlsMaterial,
): Pick<tls.TlsOptions, "requestCert" | "rejectUnauthorized"> {
  return {
    requestCert: material.clientCa !== undefined,
    rejectUnauthorized: false,
  };
}

/** Who the verified client certificate names. */
export interface CertificateIdentity {
  commonName?: string;
  organizations: string[];
}

/**
 * The subject of a client certificate that verified against the client CA;
 * undefined for none, or one that did not verify (`authorized` false).
 */
export function certificateIdentity(
  authorized: boolean,
  certificate: tls.PeerCertificate | undefined,
): CertificateIdentity | undefined {
  if (!authorized || !certificate?.subject) return undefined;
  // node:tls gives a field named once as a string, more than once as an
  // array.
  const all = (value: string | string[] | undefined) =>
    value === undefined ? [] : Array.isArray(value) ? value : [value];
  const subject = certificate.subject as unknown as Record<
    string,
    string | string[] | undefined
  >;
  // Several CNs: the last, as Go's pkix.Name (and so the Kubernetes API
  // server) reads a subject; taking another would make the same
  // certificate a different user here than there.
  const commonName = all(subject.CN).at(-1);
  return {
    ...(commonName !== undefined ? { commonName } : {}),
    organizations: all(subject.O),
  };
}

export interface CertificateSource {
  /** The material in force: new connections get it. */
  readonly current: TlsMaterial;
  /** Calls `listener` with every new version; returns the unsubscribe. */
  subscribe(listener: (material: TlsMaterial) => void): () => void;
  /** Stops re-reading the files. */
  close(): Promise<void>;
}

export interface WatchOptions {
  log: Logger;
  /**
   * How often the files are read again; 10 s. Polling, not file events: a
   * Secret volume changes by a symlink swap in the directory above the
   * files, which events on the files themselves do not show, and the
   * kubelet takes a minute or so to update a volume anyway.
   */
  intervalMs?: number;
}

/**
 * Re-reads the files every `intervalMs`. A version that reads and checks
 * (parses, key matching certificate) replaces the one in force; one that
 * does not, a file missing or the certificate and key read halfway through
 * a rotation, is logged once and the one in force kept: a later read takes
 * the rotation once it is complete.
 */
export function watchTlsFiles(
  files: TlsFiles,
  initial: TlsMaterial,
  options: WatchOptions,
): CertificateSource {
  const { log } = options;
  const listeners = new Set<(material: TlsMaterial) => void>();
  let current = initial;
  let lastProblem = "";
  let reading: Promise<void> | undefined;

  async function reload(): Promise<void> {
    let raw: TlsMaterial;
    let material: TlsMaterial;
    try {
      raw = await readRaw(files);
      if (
        raw.cert === current.cert && raw.key === current.key &&
        raw.clientCa === current.clientCa
      ) {
        lastProblem = "";
        return;
      }
      material = checkTlsMaterial(files, raw);
    } catch (error) {
      const problem = (error as Error).message;
      if (problem !== lastProblem) {
        log.warn("Kept the TLS certificate in force", { cause: problem });
      }
      lastProblem = problem;
      return;
    }
    lastProblem = "";
    current = material;
    const certificate = new X509Certificate(material.cert);
    log.info("Reloaded TLS certificate", {
      certFile: files.certFile,
      serialNumber: certificate.serialNumber,
      validTo: certificate.validTo,
    });
    for (const listener of listeners) listener(material);
  }

  const timer = setInterval(() => {
    reading ??= reload().finally(() => reading = undefined);
  }, options.intervalMs ?? 10_000);

  return {
    get current() {
      return current;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      clearInterval(timer);
      listeners.clear();
      await reading;
    },
  };
}

/** "127.0.0.1:8443", "[::1]:8443": a socket's remote end. */
export function formatAddress(
  host: string | undefined,
  port: number | undefined,
): string | undefined {
  if (!host) return undefined;
  const shown = host.includes(":") ? `[${host}]` : host;
  return port === undefined ? shown : `${shown}:${port}`;
}

/**
 * Reads the TLS files once (throwing a TlsFileError naming the flag and
 * file if one cannot be used), then re-reads them while serving: a rotated
 * certificate reaches new connections of both listeners.
 */
export async function loadCertificates(
  files: TlsFiles,
  log: Logger,
): Promise<CertificateSource> {
  const material = await readTlsFiles(files);
  log.info("Loaded TLS certificate", {
    certFile: files.certFile,
    ...(files.clientCaFile ? { clientCaFile: files.clientCaFile } : {}),
  });
  return watchTlsFiles(files, material, { log });
}
