/**
 * What Corral says when its start fails: one log line, "Cannot start: ...",
 * with what to do about it where the error alone would mislead. One of the
 * start-up steps main.ts wires together (startup/kubernetes.ts says why
 * they have a folder of their own); main.ts exits once it is logged.
 */
import { TlsFileError } from "../api/tls.ts";
import type { Logger } from "../domain/log.ts";

/** Logs why the start failed, naming the flag and file of a TLS file. */
export function logStartFailure(log: Logger, error: unknown): void {
  log.error(
    `Cannot start: ${startMessage(error)}`,
    error instanceof TlsFileError
      ? { flag: error.flag, file: error.file }
      : undefined,
  );
}

/**
 * Why the start failed; for a refused permission, without Deno's advice to
 * run again with the flag (a task user cannot) and with what to do instead.
 */
export function startMessage(error: unknown): string {
  const message = (error as Error).message;
  const hint = permissionHint(error);
  if (!hint) return message;
  return message.replace(/, run again with the --allow-\w+ flag/, "") + hint;
}

/**
 * What to do about a permission Deno refused (a file outside what `deno
 * task start` may read, say): its own advice, "run again with the
 * --allow-read flag", cannot be followed through a task.
 */
export function permissionHint(error: unknown): string {
  let cause = error;
  while (cause instanceof Error && !(cause instanceof Deno.errors.NotCapable)) {
    cause = cause.cause;
  }
  if (!(cause instanceof Deno.errors.NotCapable)) return "";
  const path = /access to "([^"]+)"/.exec(cause.message)?.[1];
  return ". deno task start may read only this directory (./), " +
    "/etc/corral and the service-account token: put the file there " +
    "(e.g. cp ~/.kube/config ./dev.kubeconfig, which git ignores, and --kubeconfig ./dev.kubeconfig), " +
    "or run deno run with the task's flags and " +
    `--allow-read=.,${path ?? "PATH"} instead (docs/configuration.md)`;
}
