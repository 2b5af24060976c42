/**
 * Dashboard sessions: what lets a browser, which cannot add a bearer token
 * to a link it follows, into one cluster's dashboard through Corral.
 *
 * Contract:
 * - A session is opened by a caller who authenticated with its own
 *   credentials and may `proxy` that cluster; it is for that one cluster
 *   and lasts `ttlMs` at most.
 * - The cookie carries no credential: a random id, the expiry and an
 *   HMAC-SHA256 over both and the cluster, with a key made when Corral
 *   starts (so a restart, or another replica, ends every session). A value
 *   that does not verify, has expired, or names another cluster finds
 *   nothing.
 * - The session keeps, in memory only, the credentials it was opened with:
 *   the proxy authenticates and authorizes them again on every request, so
 *   a token taken out of the token file, or a policy that no longer grants
 *   `proxy`, ends it at once (as soon as Corral has re-read the file).
 * - Sign-out ends a caller's sessions of a cluster. At most `maxSessions`
 *   live at once; the oldest goes first.
 */
import { Buffer } from "node:buffer";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Credentials } from "./authenticate.ts";

/** The cookie's name. */
export const DASHBOARD_COOKIE = "corral-dashboard";

export interface DashboardSession {
  namespace: string;
  name: string;
  /** Who opened it: the user its credentials were for. */
  user: string;
  /** What it was opened with, authenticated again on each request. */
  credentials: Credentials;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

export interface DashboardSessionsOptions {
  ttlMs: number;
  /** 10,000 by default. */
  maxSessions?: number;
  now?: () => number;
}

export class DashboardSessions {
  readonly ttlMs: number;
  readonly #key = randomBytes(32);
  readonly #sessions = new Map<string, DashboardSession>();
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: DashboardSessionsOptions) {
    this.ttlMs = options.ttlMs;
    this.#max = options.maxSessions ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** Opens a session; the cookie's value, which names it. */
  open(session: Omit<DashboardSession, "expiresAt">): {
    value: string;
    expiresAt: number;
  } {
    this.#sweep();
    while (this.#sessions.size >= this.#max) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest === undefined) break;
      this.#sessions.delete(oldest);
    }
    const id = randomBytes(24).toString("base64url");
    const expiresAt = this.#now() + this.ttlMs;
    this.#sessions.set(id, { ...session, expiresAt });
    const signed = `${id}.${expiresAt}`;
    return {
      value: `${signed}.${this.#mac(signed, session.namespace, session.name)}`,
      expiresAt,
    };
  }

  /** The live session a cookie value names for this cluster, if any. */
  find(
    value: string,
    namespace: string,
    name: string,
  ): DashboardSession | undefined {
    const [id, expires, mac, extra] = value.split(".");
    if (!id || !expires || !mac || extra !== undefined) return undefined;
    const want = Buffer.from(this.#mac(`${id}.${expires}`, namespace, name));
    const got = Buffer.from(mac);
    if (got.length !== want.length || !timingSafeEqual(got, want)) {
      return undefined;
    }
    const session = this.#sessions.get(id);
    if (!session || session.expiresAt <= this.#now()) {
      this.#sessions.delete(id);
      return undefined;
    }
    // The MAC covers the cluster already; this is belt and braces.
    return session.namespace === namespace && session.name === name
      ? session
      : undefined;
  }

  /** Ends `user`'s sessions of the cluster; how many there were. */
  end(namespace: string, name: string, user: string): number {
    let ended = 0;
    for (const [id, session] of this.#sessions) {
      if (
        session.namespace === namespace && session.name === name &&
        session.user === user
      ) {
        this.#sessions.delete(id);
        ended++;
      }
    }
    return ended;
  }

  /** Sessions open now. */
  get size(): number {
    return this.#sessions.size;
  }

  #mac(signed: string, namespace: string, name: string): string {
    return createHmac("sha256", this.#key)
      .update(`${signed}\n${namespace}/${name}`)
      .digest("base64url");
  }

  /** Drops expired sessions; Map order is opening order. */
  #sweep(): void {
    const now = this.#now();
    for (const [id, session] of this.#sessions) {
      if (session.expiresAt > now) continue;
      this.#sessions.delete(id);
    }
  }
}

/** The value of cookie `name` in a Cookie header, if it has one. */
export function cookieValue(
  header: string | null,
  name: string,
): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(";")) {
    const at = pair.indexOf("=");
    if (at < 0) continue;
    if (pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

export interface CookieOptions {
  /** The one cluster's proxy path the cookie is sent to. */
  path: string;
  /** Seconds; 0 clears the cookie. */
  maxAgeSeconds: number;
  /** Served over TLS: the cookie is Secure. */
  secure: boolean;
}

/** A Set-Cookie value: HttpOnly, SameSite=Strict, for `path` alone. */
export function setCookie(value: string, options: CookieOptions): string {
  return [
    `${DASHBOARD_COOKIE}=${value}`,
    `Path=${options.path}`,
    `Max-Age=${options.maxAgeSeconds}`,
    "HttpOnly",
    "SameSite=Strict",
    ...(options.secure ? ["Secure"] : []),
  ].join("; ");
}
