/**
 * Dashboard sessions: what lets a browser, which cannot add a bearer token
 * to a link it follows, into one cluster's dashboard through Corral, on
 * whichever replica its request reaches.
 *
 * Contract:
 * - A session is opened by a caller who authenticated with its own
 *   credentials and may `proxy` that cluster; it is for that one cluster
 *   and lasts `ttlMs` at most.
 * - The cookie is a compact JWE (dir, A256GCM) under the key of
 *   dashboard_session_key.ts: a random id, the cluster with its uid, the
 *   user with their sign-out count for that cluster when it was opened
 *   (domain/dashboard_sign_outs.ts), when it was opened and when it
 *   expires, and the caller's Authorization header value. Sealed, not
 *   signed: the browser (HttpOnly) and the dashboard (the proxy drops
 *   cookies) never get it, and one who copies the cookie still cannot read
 *   the token out of it. A value that does not open, has expired, or names
 *   another cluster finds nothing.
 * - The proxy authenticates and authorizes the sealed credential again on
 *   every request, so a token taken out of the token file, or a policy that
 *   no longer grants `proxy`, ends the session on every replica at once (as
 *   soon as each has re-read the file).
 * - A client certificate cannot be carried in a cookie (it is proven by the
 *   TLS handshake, not by bytes one could copy): such a session keeps its
 *   credentials in this replica's memory, and its cookie, carrying no
 *   credential, opens only on this replica and only until it restarts.
 * - Sign-out is not this module's to remember: it is recorded on the
 *   cluster (dashboard_session_calls.ts), where every replica reads it and
 *   no one but the user moves it, and the cookie's sealed count is checked
 *   against it (stillSignedIn). Here, it only forgets the sessions of that
 *   user and cluster opened on this replica.
 * - At most `maxSessions` sessions opened here are remembered at once (for
 *   a client certificate's credentials, and the count a sign-out answers);
 *   the oldest goes first. No sign-out depends on it.
 */
import { compactDecrypt, CompactEncrypt } from "jose";
import { Buffer } from "node:buffer";
import { randomBytes } from "node:crypto";
import { Code, ServiceError } from "../../domain/errors.ts";
import type { SignedIn } from "../../domain/dashboard_sign_outs.ts";
import type { Credentials } from "./authenticate.ts";
import {
  randomSessionKeys,
  type SessionKeys,
} from "./dashboard_session_key.ts";

/** The cookie's name. */
export const DASHBOARD_COOKIE = "corral-dashboard";

/**
 * The longest cookie value sealed: browsers keep at most 4096 bytes of a
 * cookie's name, value and attributes, and the attributes need room.
 */
export const MAX_COOKIE_VALUE = 3_800;

export interface DashboardSession extends SignedIn {
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
  /** The sealing keys; without them, a key made now (this replica only). */
  keys?: SessionKeys;
  /** Sessions opened here remembered at once; 10,000 by default. */
  maxSessions?: number;
  now?: () => number;
}

/** What a cookie holds, sealed. */
interface Sealed {
  /** The session's id. */
  sid: string;
  ns: string;
  name: string;
  /** The cluster's uid. */
  uid: string;
  user: string;
  /** The user's sign-out count for the cluster when it was opened. */
  outs: number;
  /** Opened and expires, milliseconds since the epoch. */
  iat: number;
  exp: number;
  /** How the caller authenticated: the credential comes from where. */
  via: "bearer" | "certificate" | "none";
  /** The Authorization header value, for "bearer". */
  authorization?: string;
}

/** A session opened on this replica. */
interface Opened {
  namespace: string;
  name: string;
  user: string;
  expiresAt: number;
  /** For a client-certificate session only: what it was opened with. */
  credentials?: Credentials;
}

const JWE_HEADER = { alg: "dir", enc: "A256GCM" } as const;

export class DashboardSessions {
  readonly ttlMs: number;
  readonly #keys: SessionKeys;
  /** Sessions opened here, in opening order. */
  readonly #opened = new Map<string, Opened>();
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: DashboardSessionsOptions) {
    this.ttlMs = options.ttlMs;
    this.#keys = options.keys ?? randomSessionKeys();
    this.#max = options.maxSessions ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** Whether a cookie opened here opens on another replica too. */
  get shared(): boolean {
    return this.#keys.shared;
  }

  /**
   * Opens a session; the cookie's value, which carries it. Throws
   * INVALID_ARGUMENT when the caller's token is too long for a cookie.
   */
  async open(session: Omit<DashboardSession, "expiresAt">): Promise<{
    value: string;
    expiresAt: number;
  }> {
    this.#sweep();
    const sid = randomBytes(18).toString("base64url");
    const now = this.#now();
    const expiresAt = now + this.ttlMs;
    const { credentials } = session;
    const via = credentials.certificate
      ? "certificate"
      : credentials.authorization
      ? "bearer"
      : "none";
    const sealed: Sealed = {
      sid,
      ns: session.namespace,
      name: session.name,
      uid: session.clusterUid,
      user: session.user,
      outs: session.signOuts,
      iat: now,
      exp: expiresAt,
      via,
      ...(via === "bearer"
        ? { authorization: credentials.authorization! }
        : {}),
    };
    const value = await new CompactEncrypt(
      new TextEncoder().encode(JSON.stringify(sealed)),
    ).setProtectedHeader(JWE_HEADER).encrypt(this.#keys.keys()[0]);
    if (value.length > MAX_COOKIE_VALUE) {
      throw new ServiceError(
        Code.INVALID_ARGUMENT,
        `Cannot open a dashboard session for cluster "${session.namespace}/${session.name}": the bearer token in the Authorization header is too long to carry in a cookie (${value.length} bytes sealed, at most ${MAX_COOKIE_VALUE}): send it with each request instead`,
      );
    }
    this.#remember(sid, {
      namespace: session.namespace,
      name: session.name,
      user: session.user,
      expiresAt,
      ...(via === "certificate" ? { credentials } : {}),
    });
    return { value, expiresAt };
  }

  /**
   * The live session a cookie value carries for this cluster, if any; its
   * credentials with `address`, the requester's, for failure limits.
   * Whether its user has signed out of the cluster since is the caller's
   * to check (stillSignedIn), on the cluster as it is now.
   */
  async find(
    value: string,
    namespace: string,
    name: string,
    address?: string,
  ): Promise<DashboardSession | undefined> {
    const sealed = await this.#unseal(value);
    if (
      !sealed || sealed.ns !== namespace || sealed.name !== name ||
      sealed.exp <= this.#now()
    ) {
      return undefined;
    }
    let credentials: Credentials;
    if (sealed.via === "certificate") {
      const opened = this.#opened.get(sealed.sid);
      if (!opened?.credentials || opened.expiresAt <= this.#now()) {
        return undefined;
      }
      credentials = opened.credentials;
    } else {
      credentials = {
        authorization: sealed.authorization ?? null,
        certificate: null,
        ...(address ? { address } : {}),
      };
    }
    return {
      namespace,
      name,
      user: sealed.user,
      clusterUid: sealed.uid,
      signOuts: sealed.outs,
      credentials,
      expiresAt: sealed.exp,
    };
  }

  /**
   * Forgets `user`'s sessions of the cluster opened here, a client
   * certificate's credentials with them; how many. The sign-out itself is
   * the cluster's record (the module's contract).
   */
  end(namespace: string, name: string, user: string): number {
    this.#sweep();
    let ended = 0;
    for (const [sid, opened] of this.#opened) {
      if (
        opened.namespace === namespace && opened.name === name &&
        opened.user === user
      ) {
        this.#opened.delete(sid);
        ended++;
      }
    }
    return ended;
  }

  /** Sessions opened here and not yet expired or ended. */
  get size(): number {
    this.#sweep();
    return this.#opened.size;
  }

  /** What the cookie holds, if one of the keys opens it and it is whole. */
  async #unseal(value: string): Promise<Sealed | undefined> {
    // A compact JWE with "dir" has five parts, the second empty. Each in
    // its one canonical base64url spelling: the decoder ignores the unused
    // bits of a last character, and a value changed there is still a value
    // changed, to be refused.
    const parts = value.split(".");
    if (
      value.length > MAX_COOKIE_VALUE || parts.length !== 5 ||
      parts.some((part) =>
        Buffer.from(part, "base64url").toString("base64url") !== part
      )
    ) {
      return undefined;
    }
    for (const key of this.#keys.keys()) {
      try {
        const { plaintext } = await compactDecrypt(value, key, {
          keyManagementAlgorithms: ["dir"],
          contentEncryptionAlgorithms: ["A256GCM"],
        });
        return sealedOf(JSON.parse(new TextDecoder().decode(plaintext)));
      } catch {
        // Another key's, tampered with, or not a JWE: try the next key.
      }
    }
    return undefined;
  }

  #remember(sid: string, opened: Opened): void {
    while (this.#opened.size >= this.#max) {
      this.#opened.delete(this.#opened.keys().next().value!);
    }
    this.#opened.set(sid, opened);
  }

  /** Drops expired sessions; Map order is insertion order. */
  #sweep(): void {
    const now = this.#now();
    for (const [sid, opened] of this.#opened) {
      if (opened.expiresAt > now) break;
      this.#opened.delete(sid);
    }
  }
}

/** The payload, if it has the shape this version seals. */
function sealedOf(payload: unknown): Sealed | undefined {
  const p = payload as Partial<Sealed> | null;
  const strings = [p?.sid, p?.ns, p?.name, p?.uid, p?.user];
  if (
    !p || strings.some((s) => typeof s !== "string") ||
    !Number.isSafeInteger(p.outs) ||
    typeof p.iat !== "number" || typeof p.exp !== "number" ||
    !["bearer", "certificate", "none"].includes(p.via as string) ||
    (p.via === "bearer") !== (typeof p.authorization === "string")
  ) {
    return undefined;
  }
  return p as Sealed;
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
