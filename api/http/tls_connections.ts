/**
 * What the HTTPS listener does below HTTP: each new certificate of its
 * source goes to the handshakes that follow, and each TCP connection must
 * complete its handshake within a time-out. Deno's node:tls does not
 * enforce `handshakeTimeout`; the connections are tracked here, by remote
 * address, from "connection" until "secureConnection", and shutdown closes
 * those that never got there.
 */
import type https from "node:https";
import type { Socket } from "node:net";
import type { Logger } from "../../domain/log.ts";
import { type CertificateSource, secureContextOptions } from "../tls.ts";

interface Pending {
  socket: Socket;
  timer: ReturnType<typeof setTimeout>;
}

export class TlsConnections {
  /** The TCP connections of the server, by remote address. */
  readonly #raw = new Map<string, Pending>();
  readonly #unsubscribe: () => void;

  constructor(
    server: https.Server,
    source: CertificateSource,
    handshakeTimeoutMs: number,
    log: Logger,
  ) {
    // setSecureContext replaces what new handshakes use; the connections
    // open keep theirs. (An SNICallback returning the context in force works
    // as well under Deno; this is the one call made for it.)
    this.#unsubscribe = source.subscribe((material) =>
      server.setSecureContext(secureContextOptions(material))
    );
    server.on("connection", (socket: Socket) => {
      this.#track(socket, handshakeTimeoutMs);
    });
    server.on("secureConnection", (socket: Socket) => {
      clearTimeout(this.#raw.get(remoteKey(socket))?.timer);
    });
    // A failed handshake (a plaintext request, a scanner) is the client's
    // problem; node:tls closes the connection.
    server.on("tlsClientError", (error: Error) => {
      log.debug("Refused TLS handshake", { cause: error.message });
    });
  }

  /** Closes every TCP connection and takes no more certificates. */
  close(): void {
    for (const { socket } of this.#raw.values()) socket.destroy();
    this.#unsubscribe();
  }

  #track(socket: Socket, timeoutMs: number): void {
    const key = remoteKey(socket);
    const entry = {
      socket,
      timer: setTimeout(() => socket.destroy(), timeoutMs),
    };
    this.#raw.set(key, entry);
    socket.on("close", () => {
      clearTimeout(entry.timer);
      if (this.#raw.get(key) === entry) this.#raw.delete(key);
    });
  }
}

/** The remote end of a connection: the same for its TCP and TLS sockets. */
function remoteKey(socket: Socket): string {
  return `${socket.remoteAddress}|${socket.remotePort}`;
}
