/**
 * The way to the dashboards through the Kubernetes API server's service
 * proxy (--cluster-access apiserver-proxy), as fast to fail as the API's
 * other reads when the API server is away:
 *
 * - While it is known not to answer (readiness's last ping got no answer
 *   and no call has had one since: ApiServerAnswers), a request or a
 *   WebSocket upgrade fails at once, UNAVAILABLE "Kubernetes API
 *   unavailable: it does not answer (...)", as a read from a cache that has
 *   lost the API server does, rather than waiting out
 *   --dashboard-proxy-timeout on it. The proxy asks before it reads the
 *   cluster too (apiServerAway): that read could wait on the API server
 *   as well, and the request needs it anyway.
 * - One that cannot reach it is UNAVAILABLE "Kubernetes API unavailable"
 *   too: the dashboard was never asked, so it is not the dashboard's 502.
 * - Any failure on the way (unreachable, or no answer in time: the API
 *   server, or the dashboard behind it) has the API server asked again, in
 *   the background, so that the next call knows which.
 *
 * Errors carry no action: dashboard_failures.ts puts the call's first.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import type {
  ApiServerAnswers,
  ClusterAccess,
} from "../../domain/dashboard_ports.ts";

/** UNAVAILABLE, without an action, while `answers` says it does not answer. */
export function apiServerAway(
  answers: ApiServerAnswers,
): ServiceError | undefined {
  const reason = answers.unanswered();
  return reason === undefined ? undefined : new ServiceError(
    Code.UNAVAILABLE,
    `Kubernetes API unavailable: it does not answer (${reason})`,
  );
}

/** `access`, which goes through the API server, gated by `answers`. */
export function gatedByApiServer(
  access: ClusterAccess,
  answers: ApiServerAnswers,
): ClusterAccess {
  async function through<T>(
    signal: AbortSignal | null | undefined,
    send: () => Promise<T>,
  ): Promise<T> {
    const away = apiServerAway(answers);
    if (away) throw away;
    try {
      return await send();
    } catch (error) {
      answers.recheck();
      if (signal?.aborted) throw error;
      throw new ServiceError(
        Code.UNAVAILABLE,
        "Kubernetes API unavailable: the API server cannot be reached",
        { cause: error },
      );
    }
  }
  return {
    mode: access.mode,
    baseUrl: (service) => access.baseUrl(service),
    fetch: (url, init) => through(init.signal, () => access.fetch(url, init)),
    dial: (url, signal) => through(signal, () => access.dial(url, signal)),
    // Refused at once while the API server is away; its own failures (no
    // head pod, port forwarding refused) are the tunnel's to report.
    connect(target, signal) {
      const away = apiServerAway(answers);
      if (away) return Promise.reject(away);
      return access.connect(target, signal);
    },
    close: () => access.close(),
  };
}
