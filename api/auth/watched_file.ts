/**
 * A configuration file that is parsed at start-up and re-read when it
 * changes, without a restart: the token file and the authorization policy.
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

export interface WatchedFileOptions<T> {
  path: string;
  /** What the file is, for messages: "token file". */
  kind: string;
  /** Parses the text; throws an Error whose message names the problem. */
  parse(text: string): T;
  log: Logger;
  intervalMs?: number;
  /** Called with each new value after a successful reload. */
  onReload?(value: T): void;
}

export interface WatchedFile<T> {
  /** The last value that parsed. */
  current(): T;
  /** Reads the file now; resolves true when a new value was taken. */
  check(): Promise<boolean>;
  /** Stops polling; resolves when a read under way has ended. */
  close(): Promise<void>;
}

/** Loads the file (throwing INVALID_ARGUMENT if it cannot) and starts polling. */
export async function watchFile<T>(
  options: WatchedFileOptions<T>,
): Promise<WatchedFile<T>> {
  const { path, kind, parse, log } = options;
  const intervalMs = options.intervalMs ?? DEFAULT_POLL_INTERVAL_MS;

  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (error) {
    throw new ServiceError(
      Code.INVALID_ARGUMENT,
      `Cannot load ${kind} "${path}": ${describe(error)}`,
      { cause: error },
    );
  }
  let value: T;
  try {
    value = parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new ServiceError(
      Code.INVALID_ARGUMENT,
      `Cannot load ${kind} "${path}": ${describe(error)}`,
      { cause: error },
    );
  }
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
      value = parse(new TextDecoder().decode(next));
    } catch (error) {
      log.error(`Kept the previous ${kind}: the new one is not valid`, {
        path,
        error: describe(error),
      });
      return false;
    }
    log.info(`Reloaded ${kind}`, { path });
    options.onReload?.(value);
    return true;
  }

  function check(): Promise<boolean> {
    // One read at a time: a poll and a test's check() share it.
    checking ??= readAndParse().finally(() => checking = undefined);
    return checking;
  }

  function schedule() {
    if (closed) return;
    timer = setTimeout(async () => {
      await check();
      schedule();
    }, intervalMs);
  }
  schedule();

  return {
    current: () => value,
    check,
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
