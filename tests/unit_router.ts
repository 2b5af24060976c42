/**
 * HTTP units (api/http/units.ts) behind a router of their own, through the
 * chain as createApi wires it, with no socket: a test hands the router a
 * Request.
 */
import { type Access } from "../api/auth/access.ts";
import type { FairUseSettings } from "../api/auth/rate_limit.ts";
import { type HttpUnit, unitEndpoints } from "../api/http/units.ts";
import { createRouter, type Router } from "../api/http/router.ts";
import { silentLogger } from "../api/log.ts";
import type { Metrics } from "../api/metrics.ts";
import { createDispatcher } from "../api/service/dispatcher.ts";
import { createHandlers } from "../api/service/handlers.ts";
import { Code, ServiceError } from "../domain/errors.ts";
import type { Logger } from "../domain/log.ts";
import type { Orchestrator } from "../domain/ports.ts";
import { schema } from "./schema.ts";

/**
 * `units` through the chain: `access` decides who may call, `fairUse` (on
 * the clock `fairUseNow`) how often, `metrics` counts.
 */
export async function unitRouter(
  units: readonly HttpUnit[],
  options: {
    access: Access;
    /** Kubernetes as the units' handlers reach it; unreachable by default. */
    orchestrator?: Orchestrator;
    namespaces?: readonly string[];
    log?: Logger;
    metrics?: Metrics;
    streamMaxDurationMs?: number;
    fairUse?: FairUseSettings;
    fairUseNow?: () => number;
  },
): Promise<Router> {
  const dispatcher = createDispatcher({
    schema: await schema(),
    handlers: createHandlers({
      orchestrator: options.orchestrator ?? unreachableKubernetes(),
      clusterApiVersion: "ray.io/v1",
    }),
    ...options,
    log: options.log ?? silentLogger(),
  });
  return createRouter({ endpoints: unitEndpoints(dispatcher, units) });
}

/**
 * An orchestrator whose every call fails as one to a Kubernetes API that
 * does not answer: UNAVAILABLE. For units that never reach Kubernetes.
 */
function unreachableKubernetes(): Orchestrator {
  const unavailable = () =>
    Promise.reject(
      new ServiceError(Code.UNAVAILABLE, "Kubernetes API unavailable"),
    );
  const port: object = new Proxy(unavailable, {
    get: (_target, property) => property === "then" ? undefined : port,
  });
  return port as Orchestrator;
}
