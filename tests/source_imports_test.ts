import assert from "node:assert/strict";
import { importSpecifiers } from "./source_imports.ts";

Deno.test("importSpecifiers() finds static, type-only, re-exported and dynamic imports", () => {
  const source = [
    'import { a } from "../standin/a.ts";',
    'import type { B } from "../standin/b.ts";',
    'import * as c from "../standin/c.ts";',
    'import "../standin/d.ts";',
    'export { e } from "../standin/e.ts";',
    'const f = await import("../standin/f.ts");',
    'import {\n  g,\n  h,\n} from "../standin/g.ts";',
    '/** @typedef {import("../standin/h.ts").H} H */',
  ].join("\n");
  assert.deepEqual(importSpecifiers(source), [
    "../standin/a.ts",
    "../standin/b.ts",
    "../standin/c.ts",
    "../standin/d.ts",
    "../standin/e.ts",
    "../standin/f.ts",
    "../standin/g.ts",
    "../standin/h.ts",
  ]);
});
