/**
 * The key dashboard cookies are sealed with (dashboard_sessions.ts).
 *
 * Contract:
 * - With --dashboard-session-key-file, every replica that reads the same
 *   file (a mounted Secret of at least 32 random bytes) derives the same
 *   AES-256-GCM key from it, so a cookie sealed by one replica opens on any
 *   other and after a restart. Without it, a key is made at start: sessions
 *   then stay with the replica that opened them and end when it stops.
 * - The file is polled as the token file is (watched_file.ts says why
 *   polling): a new content becomes the key new cookies are sealed with,
 *   and the key before it still opens the cookies sealed under it, so a
 *   rotation does not sign every browser out at once. A file that cannot
 *   be read or is too short after a change keeps the keys as they were.
 * - The file's bytes are not used as the key directly: HKDF-SHA256 derives
 *   it, so the same Secret could serve another purpose under another label
 *   without the two keys being related.
 *
 * This module reads bytes, not text: watched_file.ts decodes UTF-8, which
 * would fold random bytes that are not valid UTF-8 into one replacement
 * character and so throw entropy away.
 */
import { Buffer } from "node:buffer";
import { createHash, hkdfSync, randomBytes } from "node:crypto";
import type { Logger } from "../../domain/log.ts";
import { DEFAULT_POLL_INTERVAL_MS } from "./watched_file.ts";

/** The fewest bytes a key file may hold. */
export const MIN_KEY_FILE_BYTES = 32;

/** What the derived key is for; changing it ends every session. */
const LABEL = "corral dashboard session cookie v1";

/** The keys that seal (the first) and open (any) dashboard cookies. */
export interface SessionKeys {
  /** Newest first; never empty. */
  keys(): readonly Uint8Array[];
  /** Whether the keys are shared between replicas (a key file). */
  readonly shared: boolean;
}

/** A key made now: sessions stay with this replica. */
export function randomSessionKeys(): SessionKeys {
  const key = deriveSessionKey(randomBytes(32));
  return { keys: () => [key], shared: false };
}

/** The AES-256-GCM key of some secret bytes: HKDF-SHA256 over them. */
export function deriveSessionKey(secret: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync("sha256", secret, "corral", LABEL, 32));
}

/**
 * The key of a key file's content, with one trailing newline taken off (a
 * Secret written with `echo` has one). Throws when fewer than
 * MIN_KEY_FILE_BYTES remain.
 */
export function keyOfFile(content: Uint8Array): Uint8Array {
  let bytes = content;
  if (bytes.at(-1) === 0x0a) bytes = bytes.subarray(0, -1);
  if (bytes.at(-1) === 0x0d) bytes = bytes.subarray(0, -1);
  if (bytes.length < MIN_KEY_FILE_BYTES) {
    throw new Error(
      `it holds ${bytes.length} bytes, fewer than ${MIN_KEY_FILE_BYTES}: write at least ${MIN_KEY_FILE_BYTES} random bytes (e.g. head -c 48 /dev/urandom)`,
    );
  }
  return deriveSessionKey(bytes);
}

export interface SessionKeyFileOptions {
  path: string;
  log: Logger;
  /** How often the file is read for changes; 5 s. */
  intervalMs?: number;
}

export interface SessionKeyFile extends SessionKeys {
  /** Reads the file now; resolves true when a new key was taken. */
  check(): Promise<boolean>;
  /** Stops polling; resolves when a read under way has ended. */
  close(): Promise<void>;
}

/**
 * Loads the key file (throwing an Error naming the flag and the file when
 * it cannot be read or is too short) and polls it.
 */
export async function loadSessionKeyFile(
  options: SessionKeyFileOptions,
): Promise<SessionKeyFile> {
  const reader = new KeyFileReader(options);
  await reader.load();
  return reader;
}

/** The polling reader behind loadSessionKeyFile(). */
class KeyFileReader implements SessionKeyFile {
  readonly shared = true;
  readonly #options: SessionKeyFileOptions;
  /** Newest first: the key in force and the one before it. */
  #keys: Uint8Array[] = [];
  #seen = "";
  #lastError = "";
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  #checking: Promise<boolean> | undefined;

  constructor(options: SessionKeyFileOptions) {
    this.#options = options;
  }

  keys(): readonly Uint8Array[] {
    return this.#keys;
  }

  async load(): Promise<void> {
    const { path } = this.#options;
    let content: Uint8Array;
    try {
      content = await Deno.readFile(path);
      this.#keys = [keyOfFile(content)];
    } catch (error) {
      throw new Error(
        `cannot load --dashboard-session-key-file "${path}": ${
          describe(error)
        }`,
        { cause: error },
      );
    }
    this.#seen = digest(content);
    this.#schedule();
  }

  check(): Promise<boolean> {
    // One read at a time: a poll and a test's check() share it.
    this.#checking ??= this.#read().finally(() => this.#checking = undefined);
    return this.#checking;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#checking;
  }

  async #read(): Promise<boolean> {
    const { path, log } = this.#options;
    let key: Uint8Array;
    try {
      const content = await Deno.readFile(path);
      const seen = digest(content);
      if (seen === this.#seen) return false;
      this.#seen = seen;
      key = keyOfFile(content);
    } catch (error) {
      // Logged once per distinct problem, not at every poll.
      const message = describe(error);
      if (message !== this.#lastError) {
        log.error("Kept the previous dashboard session key", {
          path,
          error: message,
        });
        this.#lastError = message;
      }
      return false;
    }
    this.#lastError = "";
    this.#keys = [key, this.#keys[0]];
    log.info("Reloaded dashboard session key", { path });
    return true;
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(async () => {
      await this.check();
      this.#schedule();
    }, this.#options.intervalMs ?? DEFAULT_POLL_INTERVAL_MS);
  }
}

function digest(bytes: Uint8Array): string {
  return createHash("sha256").update(Buffer.from(bytes)).digest("hex");
}

function describe(error: unknown): string {
  if (error instanceof Deno.errors.NotFound) return "no such file";
  if (error instanceof Deno.errors.PermissionDenied) return "permission denied";
  return error instanceof Error ? error.message : String(error);
}
