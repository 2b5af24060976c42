/**
 * The imports of a module read from its source text, with no subprocess
 * (`deno info`, tests/module_graph.ts, starts one): what the layering
 * tests (tests/layers_test.ts, tests/standin/production_imports_test.ts)
 * check. It reads every `import`, `export ... from` and `import()`,
 * type-only ones and those of JSDoc types (`import("./x.ts").T`)
 * included, as the type-checker follows them too.
 */

/** Specifiers of every import, export-from and import() in `source`. */
export function importSpecifiers(source: string): string[] {
  const pattern =
    /\b(?:import|export)\s*(?:type\s+)?(?:[\w*{}\s,$]+\s+from\s*)?\(?\s*["']([^"']+)["']/g;
  return [...source.matchAll(pattern)].map((m) => m[1]);
}
