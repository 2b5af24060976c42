/** tests/promql_names.ts: the metric names an expression reads. */
import assert from "node:assert/strict";
import { metricNames } from "./promql_names.ts";

Deno.test("metricNames() takes the metrics, not functions, labels, keywords, numbers or durations", () => {
  assert.deepEqual(
    metricNames(
      'histogram_quantile(0.99, sum by (le) (rate(corral_request_duration_seconds_bucket{rpc!~".*([Ww]atch).*"}[5m]))) > 2',
    ),
    ["corral_request_duration_seconds_bucket"],
  );
  assert.deepEqual(
    metricNames(
      "max by (namespace, dimension) (corral_quota_used) / max by (namespace, dimension) (corral_quota_limit > 0) > 0.9",
    ),
    ["corral_quota_used", "corral_quota_limit"],
  );
  assert.deepEqual(
    metricNames(
      'absent(up{job="corral"} == 1) and on (pod) x offset 5m unless bool y',
    ),
    ["up", "x", "y"],
  );
  assert.deepEqual(
    metricNames("sum(rate(a_total[$__rate_interval])) / sum(b)"),
    ["a_total", "b"],
  );
  assert.deepEqual(
    metricNames("label_values(corral_managed_clusters, namespace)"),
    ["corral_managed_clusters"],
  );
});
