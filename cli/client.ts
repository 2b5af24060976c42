/**
 * Corral's HTTP API as the command line calls it: JSON requests with the
 * bearer token, the server's certificate checked against the given CA, and
 * the watch stream read line by line (NDJSON). Every failure becomes a
 * CliError: ApiError for Corral's `{code, message, details}` answers,
 * UnreachableError (naming the URL) when nothing answered.
 */
import type { Connection } from "./config.ts";
import {
  ApiError,
  type ApiErrorBody,
  CliError,
  EXIT_USAGE,
  UnreachableError,
  UsageError,
} from "./errors.ts";
import type { Cluster } from "./types.ts";
import { Code } from "../domain/errors.ts";
import { lines } from "../domain/lines.ts";

/** One line of a watch: a change, or a BOOKMARK saying how far it is. */
export interface WatchResult {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK";
  cluster: Cluster | null;
  resourceVersion: string;
}

export interface CorralClient {
  /** Sends a request; resolves with the parsed JSON answer. */
  call<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** The watch stream at `path`, one result per line, until it ends. */
  watch(path: string, signal?: AbortSignal): AsyncGenerator<WatchResult>;
  /**
   * Sends `init` to `path` as it is, with the token added: the raw answer
   * whatever its status (a proxied page, say). Only when nothing answered
   * does it throw, an UnreachableError.
   */
  forward(path: string, init: ForwardInit): Promise<Response>;
  /**
   * A WebSocket to `path` (ws:// or wss:// on the server), with the token,
   * the CA and the client certificate, as fetch is sent.
   */
  webSocket(path: string): WebSocket;
  /** An error answer (status and body text) as the CLI reports it. */
  errorOf(status: number, text: string): ApiError;
  close(): void;
}

/** What `forward` sends: a method, headers, a body. */
export interface ForwardInit {
  method: string;
  headers: Headers;
  body?: ReadableStream<Uint8Array> | null;
  signal?: AbortSignal;
}

/** A client for `connection`; reads its CA file, if any, at once. */
export async function connect(connection: Connection): Promise<CorralClient> {
  const server = connection.server.replace(/\/+$/, "");
  if (!URL.canParse(server) || !/^https?:$/.test(new URL(server).protocol)) {
    throw new UsageError(
      `server ${
        JSON.stringify(connection.server)
      } is not an http:// or https:// URL`,
    );
  }
  const httpClient = await tlsClient(connection);
  const headers: Record<string, string> = { accept: "application/json" };
  if (connection.token) headers.authorization = `Bearer ${connection.token}`;

  async function send(
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<Response> {
    const url = `${server}${path}`;
    try {
      return await fetch(url, {
        method,
        headers: body === undefined
          ? headers
          : { ...headers, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        client: httpClient,
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      const why = reason(error as Error);
      throw new UnreachableError(server, why, unreachableHint(why, connection));
    }
  }

  /** An error answer; a refused token names the server that refused it. */
  function refused(status: number, text: string): ApiError {
    const error = apiError(status, text);
    return error.code === Code.UNAUTHENTICATED && connection.token
      ? new ApiError(
        status,
        { code: error.code },
        `token not accepted by ${server}: check --token, ` +
          "CORRAL_TOKEN or the context's token (corral config set-context)",
      )
      : error;
  }

  return {
    async call<T>(method: string, path: string, body?: unknown): Promise<T> {
      const response = await send(method, path, body);
      const text = await response.text();
      if (!response.ok) throw refused(response.status, text);
      return (text ? JSON.parse(text) : {}) as T;
    },
    async *watch(path: string, signal?: AbortSignal) {
      const response = await send("GET", path, undefined, signal);
      if (!response.ok || !response.body) {
        throw refused(response.status, await response.text());
      }
      for await (const line of lines(response.body)) {
        const parsed = JSON.parse(line) as {
          result?: WatchResult;
          error?: ApiErrorBody;
        };
        if (parsed.error) throw new ApiError(200, parsed.error);
        if (parsed.result) yield parsed.result;
      }
    },
    async forward(path: string, init: ForwardInit): Promise<Response> {
      const forwarded = new Headers(init.headers);
      if (connection.token) {
        forwarded.set("authorization", `Bearer ${connection.token}`);
      }
      try {
        return await fetch(`${server}${path}`, {
          method: init.method,
          headers: forwarded,
          body: init.body,
          client: httpClient,
          signal: init.signal,
          redirect: "manual",
        });
      } catch (error) {
        if (init.signal?.aborted) throw error;
        const why = reason(error as Error);
        throw new UnreachableError(
          server,
          why,
          unreachableHint(why, connection),
        );
      }
    },
    webSocket(path: string): WebSocket {
      const url = `${server.replace(/^http/, "ws")}${path}`;
      return new WebSocket(url, {
        headers: connection.token
          ? { authorization: `Bearer ${connection.token}` }
          : {},
        ...(httpClient ? { client: httpClient } : {}),
      });
    },
    errorOf: refused,
    close() {
      httpClient?.close();
    },
  };
}

/** A PEM file the connection names, or a usage error saying which. */
async function readPem(what: string, path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    throw new CliError(
      `cannot read ${what} ${path}: ${(error as Error).message}`,
      EXIT_USAGE,
    );
  }
}

/**
 * The HTTP client for the connection's CA and client certificate, or none
 * (the system's roots, no client certificate). A certificate without its
 * key, or a key without its certificate, is a usage error.
 */
async function tlsClient(
  connection: Connection,
): Promise<Deno.HttpClient | undefined> {
  const { certificateAuthority, clientCertificate, clientKey } = connection;
  if ((clientCertificate === undefined) !== (clientKey === undefined)) {
    throw new UsageError(
      clientCertificate === undefined
        ? "--client-key needs --client-certificate (or CORRAL_CLIENT_CERT)"
        : "--client-certificate needs --client-key (or CORRAL_CLIENT_KEY)",
    );
  }
  if (!certificateAuthority && !clientCertificate) return undefined;
  const options:
    & Deno.CreateHttpClientOptions
    & Partial<Deno.TlsCertifiedKeyPem> = {};
  if (certificateAuthority) {
    options.caCerts = [
      await readPem("certificate authority", certificateAuthority),
    ];
  }
  if (clientCertificate && clientKey) {
    options.cert = await readPem("client certificate", clientCertificate);
    options.key = await readPem("client key", clientKey);
  }
  return Deno.createHttpClient(options);
}

/**
 * What to do about a TLS failure: an untrusted server certificate needs
 * its CA; a refused handshake may want a client certificate.
 */
function tlsHint(why: string, connection: Connection): string[] {
  if (/UnknownIssuer|invalid peer certificate|certificate/i.test(why)) {
    return connection.certificateAuthority
      ? [
        `  the server's certificate is not signed by ${connection.certificateAuthority}: pass the CA that signed it`,
      ]
      : [
        "  the server's certificate is not signed by a CA this machine trusts:",
        "  pass --certificate-authority FILE (or set CORRAL_CA) with the CA's PEM certificate",
      ];
  }
  if (/handshake|alert|CertificateRequired/i.test(why)) {
    return [
      "  the server may require a client certificate: pass --client-certificate FILE --client-key FILE",
    ];
  }
  return [];
}

/**
 * What to try when the server does not answer: the TLS hint when the
 * handshake failed, else where the URL came from and how to name another
 * (--server, CORRAL_SERVER, a context's server).
 */
function unreachableHint(why: string, connection: Connection): string[] {
  const tls = tlsHint(why, connection);
  if (tls.length > 0) return tls;
  const from = connection.serverFrom ? ` (from ${connection.serverFrom})` : "";
  return [
    `  is Corral running there${from}? Name another with --server URL or CORRAL_SERVER,`,
    "  or save it in a context: corral config set-context NAME --server URL",
  ];
}

/** An error answer as an ApiError, whatever its body. */
function apiError(status: number, text: string): ApiError {
  try {
    const body = JSON.parse(text) as ApiErrorBody;
    if (typeof body === "object" && body !== null) {
      return new ApiError(status, body);
    }
  } catch {
    // not Corral's error shape: a proxy's page, say
  }
  return new ApiError(status, {
    message: `HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ""}`,
  });
}

/**
 * Why fetch failed, without the URL it repeats: "tcp connect error:
 * Connection refused (os error 111)", "invalid peer certificate: ...".
 */
function reason(error: Error): string {
  // fetch says "fetch failed"; why is in its cause.
  let deepest = error;
  while (deepest.cause instanceof Error) deepest = deepest.cause;
  return deepest.message
    .replace(/^error sending request for url \([^)]*\): /, "")
    .replace(/^client error \(Connect\): /, "");
}
