/**
 * The audit trail: one JSON line per mutating request and per request
 * refused for want of credentials or permission, saying who did what,
 * where, with what outcome, from where. Never a token, never a body.
 */
import type { Logger } from "../../domain/log.ts";
import type { AuthenticatorName } from "./identity.ts";
import type { WorkloadSummary } from "./workload_summary.ts";

export interface AuditEntry {
  /** Corral's own id of the request. */
  requestId: string;
  /** The caller's x-request-id, sanitised: the caller's word, never the key. */
  clientRequestId?: string;
  /** Absent when authentication failed. */
  user?: string;
  groups?: string[];
  authenticator?: AuthenticatorName;
  /** get, list, create, delete; absent for a path that is no API method. */
  verb?: string;
  resource?: string;
  namespace?: string;
  name?: string;
  /** The gRPC code the caller got. */
  code: number;
  /** Why access was refused, in one word, when it was. */
  reason?: string;
  transport: "http" | "grpc";
  /** The client's address, "10.0.0.7:51234". */
  sourceAddress?: string;
  /** What a create or update wrote: images, service accounts, volumes... */
  workload?: WorkloadSummary;
  /** A dashboard proxy request's method, path and HTTP status. */
  method?: string;
  path?: string;
  status?: number;
  /** How a dashboard proxy caller was known: "credentials" or "cookie". */
  via?: string;
  /**
   * The RPC of a call with the verb `proxy` (job submission's), which the
   * verb alone does not tell apart: "proto.RayJobSubmissionService/SubmitRayJob".
   */
  rpc?: string;
}

export interface AuditLog {
  record(entry: AuditEntry): void;
  close(): Promise<void>;
}

export interface AuditLogOptions {
  /** A file to append to; "" (or none) writes to `write` or standard error. */
  path?: string;
  log: Logger;
  /** Where lines go without a path; standard error by default. */
  write?: (line: string) => void;
  now?: () => Date;
}

export async function createAuditLog(
  options: AuditLogOptions,
): Promise<AuditLog> {
  const now = options.now ?? (() => new Date());
  const line = (entry: AuditEntry) =>
    JSON.stringify({
      time: now().toISOString(),
      level: "info",
      msg: "Audit",
      audit: true,
      ...entry,
    });
  if (!options.path) {
    const write = options.write ?? ((text: string) => console.error(text));
    return { record: (entry) => write(line(entry)), close: async () => {} };
  }
  const file = await Deno.open(options.path, {
    create: true,
    append: true,
    mode: 0o600,
  });
  const encoder = new TextEncoder();
  let failed = false;
  return {
    record(entry) {
      try {
        // Synchronous, so lines never interleave and none is lost on exit.
        const bytes = encoder.encode(line(entry) + "\n");
        for (let at = 0; at < bytes.length;) {
          at += file.writeSync(bytes.subarray(at));
        }
      } catch (error) {
        if (!failed) {
          options.log.error("Cannot write the audit log", {
            path: options.path,
            cause: String(error),
          });
        }
        failed = true;
      }
    },
    close() {
      file.close();
      return Promise.resolve();
    },
  };
}
