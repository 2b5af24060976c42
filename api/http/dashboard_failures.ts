/**
 * How a dashboard that does not answer is the caller's error: 504 when it
 * did not answer in time, 502 when it cannot be reached, the cause in the
 * log only (it names addresses inside the cluster); the error of the way
 * there (dashboard_api_server.ts: the API server away) as it is, after the
 * call's action. For a proxied request and a WebSocket's handshake alike.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import type { Logger } from "../../domain/log.ts";
import { HttpError } from "../errors.ts";

/** What failed: `action` first, and what did not answer in time. */
export interface DashboardExchange {
  /** `Cannot proxy to cluster "team-a/blue"`. */
  action: string;
  /** The URL asked for inside the cluster, for the log. */
  upstream: string;
  /** The bound it had, and what it was for: "answer", "answer the WebSocket upgrade". */
  timeoutMs: number;
  awaited: string;
  /** Who the errors name: "the dashboard" unless said. */
  peer?: string;
}

/** The error of a failed exchange; `timedOut` when its bound had passed. */
export function dashboardFailure(
  exchange: DashboardExchange,
  error: unknown,
  timedOut: boolean,
  log: Logger,
): ServiceError {
  const { action, timeoutMs, awaited, peer = "the dashboard" } = exchange;
  if (error instanceof ServiceError) {
    return new ServiceError(error.code, `${action}: ${error.message}`, {
      cause: error,
    });
  }
  if (timedOut) {
    return new HttpError(
      504,
      Code.DEADLINE_EXCEEDED,
      `${action}: ${peer} did not ${awaited} within ${timeoutMs} ms`,
    );
  }
  log.warn("Failed to reach a dashboard", {
    upstream: exchange.upstream,
    error: error instanceof Error ? error.message : String(error),
  });
  return new HttpError(
    502,
    Code.UNAVAILABLE,
    `${action}: ${peer} cannot be reached`,
  );
}
