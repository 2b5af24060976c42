import type { RawSettings } from "./settings_raw.ts";

/** The certificate files of both listeners, as the flags name them. */
export interface TlsFiles {
  /** PEM certificate chain, the server's certificate first. */
  certFile: string;
  /** PEM private key of that certificate. */
  keyFile: string;
  /** PEM certificates that client certificates are verified against. */
  clientCaFile?: string;
}

/**
 * Both TLS files or neither, and a client CA only with them. Only the names
 * are checked here: main.ts reads the files, once, before binding.
 */
export function tlsFiles(
  raw: RawSettings,
  problems: string[],
): { tls?: TlsFiles } {
  const certFile = raw.values["tls-cert-file"].trim();
  const keyFile = raw.values["tls-private-key-file"].trim();
  const clientCaFile = raw.values["client-ca-file"].trim();
  if (certFile && !keyFile) {
    problems.push("--tls-cert-file needs --tls-private-key-file");
  } else if (keyFile && !certFile) {
    problems.push("--tls-private-key-file needs --tls-cert-file");
  } else if (clientCaFile && !certFile) {
    problems.push(
      "--client-ca-file needs --tls-cert-file and --tls-private-key-file: client certificates are only sent over TLS",
    );
  }
  if (!certFile || !keyFile) return {};
  return {
    tls: { certFile, keyFile, ...(clientCaFile ? { clientCaFile } : {}) },
  };
}
