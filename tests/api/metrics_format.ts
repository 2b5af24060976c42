/** The Prometheus text format, as the metrics tests check what /metrics renders. */
import assert from "node:assert/strict";

/** A sample line of the text format: name, optional labels, a number. */
const SAMPLE =
  /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\[\\"n])*",?)*\})? -?(\d+(\.\d+)?(e[+-]?\d+)?|\+Inf|[Nn]a[Nn])$/;

export function assertTextFormat(text: string): void {
  assert.ok(text.endsWith("\n"), "ends with a newline");
  for (const line of text.trimEnd().split("\n")) {
    if (line === "") continue; // between families: ignored by the format
    if (line.startsWith("# HELP ") || line.startsWith("# TYPE ")) continue;
    assert.match(line, SAMPLE);
  }
}
