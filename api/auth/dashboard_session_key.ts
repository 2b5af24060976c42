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
 * This module reads bytes, not text (watched_file.ts's watchFileBytes):
 * decoding UTF-8 would fold random bytes that are not valid UTF-8 into one
 * replacement character and so throw entropy away.
 */
import { hkdfSync, randomBytes } from "node:crypto";
import {
  type Reloadable,
  type WatchedFileSettings,
  watchFileBytes,
} from "./watched_file.ts";

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

/** --dashboard-session-key-file, and who is told when it changes. */
export type SessionKeyFileOptions = WatchedFileSettings;

/** The keys of a key file, which reloads and closes. */
export interface SessionKeyFile extends SessionKeys, Reloadable {}

/**
 * Loads the key file (throwing an Error naming the flag and the file when
 * it cannot be read or is too short) and polls it.
 */
export async function loadSessionKeyFile(
  options: SessionKeyFileOptions,
): Promise<SessionKeyFile> {
  /** Newest first: the key in force and the one before it. */
  let keys: Uint8Array[] = [];
  const file = await watchFileBytes({
    ...options,
    kind: "dashboard session key",
    parse: keyOfFile,
    loadError: (detail, cause) =>
      new Error(
        `cannot load --dashboard-session-key-file "${options.path}": ${detail}`,
        { cause },
      ),
    onLoad: (key) => {
      keys = [key, ...keys].slice(0, 2);
    },
  });
  return {
    shared: true,
    keys: () => keys,
    reload: () => file.reload(),
    close: () => file.close(),
  };
}
