/**
 * /metrics as an HTTP unit of the chain, for --metrics-require-auth
 * (without it, /metrics is an open page: api/mod.ts).
 */
import type { HttpUnit } from "./http/units.ts";
import { exactPath } from "./http/router.ts";
import { type Metrics, metricsPage } from "./metrics.ts";

/**
 * GET /metrics for authenticated callers only (--metrics-require-auth): a
 * unit of the chain (api/http/units.ts), which any caller it knows may
 * read, rate limited, counted and logged as every call is.
 */
export function metricsUnit(metrics: Metrics): HttpUnit {
  return {
    key: "corral.Metrics/Scrape",
    methods: ["GET"],
    path: "/metrics",
    ...exactPath("/metrics"),
    check: "authentication",
    handle: () => metricsPage(metrics),
  };
}
