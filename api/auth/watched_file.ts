/**
 * A configuration file that is parsed at start-up and re-read when it
 * changes, without a restart: the token file, the authorization policy and
 * the dashboard session key.
 *
 * The file is polled (read and hashed every few seconds) rather than watched
 * with Deno.watchFs: a mounted Kubernetes Secret or ConfigMap changes by an
 * atomic swap of the `..data` symlink in its directory, which inotify
 * reports on the directory and not on the file, and whose new target can
 * keep the old mtime. Comparing the content catches every change, and the
 * files are a few kilobytes.
 *
 * A file that fails to parse after a change keeps the previous value and is
 * logged once per distinct content: a half-written file never replaces a good
 * one. At start-up a file that fails to parse is an error.
 */

import { createHash } from "node:crypto";
import { Code, ServiceError } from "../../domain/errors.ts";
import type { Logger } from "../../domain/log.ts";

export const DEFAULT_POLL_INTERVAL_MS = 5_000;

/**
 * What the owner of a watched file is told by its own caller: the token
 * file, the policy file and the dashboard session key file each take these.
 */
export interface WatchedFileSettings {
  path: string;
  log: Logger;
  /** How often the file is read for changes; 5 s by default. */
  intervalMs?: number;
  /** Told after a new value was taken. */
  onReload?: () => void;
}

/** A watched file's handle, as its owner passes it on. */
export interface Reloadable {
  /** Reads the file now; resolves true when a new value was taken. */
  reload(): Promise<boolean>;
  /** Stops polling; resolves when a read under way has ended. */
  close(): Promise<void>;
}

export interface WatchedFileOptions<T, Content = string> {
  path: string;
  /** What the file is, for messages: "token file". */
  kind: string;
  /** Parses the content; throws an Error whose message names the problem. */
  parse(content: Content): T;
  log: Logger;
  intervalMs?: number;
  /** Called with the first value, then with each new one. */
  onLoad?(value: T): void;
  /** Called with each new value after a successful reload, after onLoad. */
  onReload?(value: T): void;
  /**
   * The error thrown when the file cannot be loaded at start-up, `detail`
   * saying why; by default INVALID_ARGUMENT `Cannot load ${kind} "${path}":
   * ${detail}`.
   */
  loadError?(detail: string, cause: unknown): Error;
}

export interface WatchedFile<T> extends Reloadable {
  /** The last value that parsed. */
  current(): T;
}

/** Loads the file (throwing INVALID_ARGUMENT if it cannot) and starts polling. */
export function watchFile<T>(
  options: WatchedFileOptions<T>,
): Promise<WatchedFile<T>> {
  const { parse } = options;
  return watchFileBytes({
    ...options,
    parse: (bytes) => parse(new TextDecoder().decode(bytes)),
  });
}

/**
 * watchFile() for a file read as bytes, not as UTF-8 text (which would fold
 * bytes that are not valid UTF-8 into one replacement character).
 */
export async function watchFileBytes<T>(
  options: WatchedFileOptions<T, Uint8Array>,
): Promise<WatchedFile<T>> {
  const { path, kind, parse, log } = options;
  const intervalMs = options.intervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const loadError = options.loadError ??
    ((detail: string, cause: unknown) =>
      new ServiceError(
        Code.INVALID_ARGUMENT,
        `Cannot load ${kind} "${path}": ${detail}`,
        { cause },
      ));

  let bytes: Uint8Array;
  let value: T;
  try {
    bytes = await Deno.readFile(path);
    value = parse(bytes);
  } catch (error) {
    throw loadError(describe(error), error);
  }
  options.onLoad?.(value);
  // The digest of the content last looked at, good or bad, so a bad file is
  // reported once and not at every poll.
  let seen = digest(bytes);
  let lastReadError = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  let checking: Promise<boolean> | undefined;

  async function readAndParse(): Promise<boolean> {
    let next: Uint8Array;
    try {
      next = await Deno.readFile(path);
    } catch (error) {
      // A symlink swap can leave the path missing for a moment.
      const message = describe(error);
      if (message !== lastReadError) {
        log.error(`Kept the previous ${kind}: the file cannot be read`, {
          path,
          error: message,
        });
        lastReadError = message;
      }
      return false;
    }
    lastReadError = "";
    const nextDigest = digest(next);
    if (nextDigest === seen) return false;
    seen = nextDigest;
    try {
      value = parse(next);
    } catch (error) {
      log.error(`Kept the previous ${kind}: the new one is not valid`, {
        path,
        error: describe(error),
      });
      return false;
    }
    log.info(`Reloaded ${kind}`, { path });
    options.onLoad?.(value);
    options.onReload?.(value);
    return true;
  }

  function reload(): Promise<boolean> {
    // One read at a time: a poll and a test's reload() share it.
    checking ??= readAndParse().finally(() => checking = undefined);
    return checking;
  }

  function schedule() {
    if (closed) return;
    timer = setTimeout(async () => {
      await reload();
      schedule();
    }, intervalMs);
  }
  schedule();

  return {
    current: () => value,
    reload,
    async close() {
      closed = true;
      clearTimeout(timer);
      await checking;
    },
  };
}

function digest(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function describe(error: unknown): string {
  if (error instanceof Deno.errors.NotFound) return "no such file";
  if (error instanceof Deno.errors.PermissionDenied) return "permission denied";
  return error instanceof Error ? error.message : String(error);
}
