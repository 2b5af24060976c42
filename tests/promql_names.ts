/**
 * The metric names a PromQL expression reads (or a Grafana query variable's
 * label_values(metric, label)), for tests/monitoring_test.ts: what is left
 * of the expression once strings, label matchers, ranges and grouping
 * clauses are taken out, less functions, keywords and numbers. Enough for
 * the expressions deploy/ holds; not a parser.
 */

// deno-lint-ignore no-explicit-any
export type Obj = Record<string, any>;

const KEYWORDS = new Set([
  "and",
  "or",
  "unless",
  "bool",
  "offset",
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "inf",
  "nan",
]);

export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/label_values\(\s*([^,()]+?)\s*,[^)]*\)/g, " $1 ")
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, " ")
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(
      /\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g,
      " ",
    );
  const names = new Set<string>();
  for (const match of bare.matchAll(/[A-Za-z0-9_:.$]+/g)) {
    const token = match[0];
    if (!/^[A-Za-z_:][A-Za-z0-9_:]*$/.test(token)) continue;
    if (KEYWORDS.has(token.toLowerCase())) continue;
    const after = bare.slice(match.index! + token.length).trimStart();
    if (after.startsWith("(")) continue; // a function
    names.add(token);
  }
  return [...names];
}
