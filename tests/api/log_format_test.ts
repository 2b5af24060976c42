/**
 * --log-format: auto is text on a terminal and JSON elsewhere (logs read by
 * machines); text is one readable line per record.
 */
import assert from "node:assert/strict";
import { createLogger, logFormat, textLine } from "../../api/log.ts";

Deno.test("logFormat: auto follows the terminal, json and text are kept", () => {
  assert.equal(logFormat("auto", true), "text");
  assert.equal(logFormat("auto", false), "json");
  assert.equal(logFormat("json", true), "json");
  assert.equal(logFormat("text", false), "text");
});

Deno.test("text lines: time, level, message, then key=value, quoted when needed", () => {
  assert.equal(
    textLine({
      time: "2026-11-26T20:31:02.123Z",
      level: "warn",
      msg: "Cache stale",
      seconds: 3,
      reason: "watch ended",
      path: "/tmp/x",
    }),
    '20:31:02 WARN  Cache stale seconds=3 reason="watch ended" path=/tmp/x',
  );
  const lines: string[] = [];
  createLogger({ format: "text", write: (l) => lines.push(l) }).info("hi");
  assert.match(lines[0], /^\d\d:\d\d:\d\d INFO {2}hi$/);
  createLogger({ write: (l) => lines.push(l) }).info("hi");
  assert.equal(JSON.parse(lines[1]).msg, "hi");
});
