/**
 * The listener's options: what it serves, its limits and time-outs, and
 * their defaults.
 */
import type { Logger } from "../../domain/log.ts";
import type { CertificateSource } from "../tls.ts";
import type { Handler } from "./http_request.ts";
import type { Router } from "./router.ts";
import { DEFAULT_MAX_HEADER_BYTES } from "../transport_limits.ts";

/**
 * What the listener serves. With `allowed` (the router's), the requests the
 * listener refuses itself for their method get 405 with Allow, or 404.
 */
export type HttpHandler =
  & Handler
  & Partial<Pick<Router, "allowed">>;

export interface HttpServerOptions {
  hostname: string;
  port: number;
  handler: HttpHandler;
  log: Logger;
  /** A connection must deliver a request's headers within this; 10 s. */
  headerTimeoutMs?: number;
  /** A connection with no traffic for this long is closed; 60 s. */
  idleTimeoutMs?: number;
  /**
   * A request's body must arrive in full within this of its headers; 30 s.
   * Past it: 408 code 4, and the connection closes.
   */
  bodyTimeoutMs?: number;
  /**
   * Longest a request may take, headers to the end of its answer; 60 s, as
   * the Kubernetes API server's --request-timeout. Past it: 504 code 4.
   */
  requestTimeoutMs?: number;
  /**
   * Request bodies being received at once, in bytes: 64 MiB. A body counts
   * by its Content-Length from its headers on, or chunk by chunk as it
   * arrives, until its request is answered. Past it, a new body gets 429
   * code 8 with Retry-After before any of it is read.
   */
  maxInflightBodyBytes?: number;
  /**
   * Stopping: how long no connection nor request must have arrived before
   * the listening socket closes (quiet.ts), and how long a connection
   * must have been without a request to be closed; 250 ms.
   */
  quietMs?: number;
  /** Told when a request arrives (+1) and when it is done (-1). */
  onInFlight?: (delta: 1 | -1) => void;
  /** Longest request line URL; 8 KiB. Longer: 414. */
  maxUrlBytes?: number;
  /** Largest request head; 16 KiB. Larger: 431. */
  maxHeaderBytes?: number;
  /**
   * Serve HTTPS with this source's certificate, and each new one it gives
   * from then on. A plaintext request is then refused in the handshake: the
   * client gets a TLS alert and the connection closes (Deno's node:tls
   * consumes the first bytes before the server could tell them apart, so
   * there is no Go-style "400 Client sent an HTTP request to an HTTPS
   * server").
   */
  tls?: CertificateSource;
}

/** The options' limits and time-outs, their defaults filled in. */
export interface Limits {
  headerTimeoutMs: number;
  idleTimeoutMs: number;
  bodyTimeoutMs: number;
  requestTimeoutMs: number;
  maxInflightBodyBytes: number;
  maxUrlBytes: number;
  maxHeaderBytes: number;
  quietMs: number;
}

export function limitsOf(options: HttpServerOptions): Limits {
  return {
    headerTimeoutMs: options.headerTimeoutMs ?? 10_000,
    idleTimeoutMs: options.idleTimeoutMs ?? 60_000,
    bodyTimeoutMs: options.bodyTimeoutMs ?? 30_000,
    requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
    maxInflightBodyBytes: options.maxInflightBodyBytes ?? 64 * 1024 ** 2,
    maxUrlBytes: options.maxUrlBytes ?? 8 * 1024,
    maxHeaderBytes: options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES,
    quietMs: options.quietMs ?? 250,
  };
}

/**
 * How late a deadline may fire: fine enough for the shortest time-out
 * (tests use tens of ms), between 5 and 250 ms.
 */
export function deadlineResolutionMs(limits: Limits): number {
  const shortest = Math.min(
    limits.headerTimeoutMs,
    limits.idleTimeoutMs,
    limits.bodyTimeoutMs,
    limits.requestTimeoutMs,
  );
  return Math.min(250, Math.max(5, shortest / 20));
}
