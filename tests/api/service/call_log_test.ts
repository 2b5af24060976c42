/** logCall (api/service/call_log.ts): the one line each call logs. */
import assert from "node:assert/strict";
import { createLogger, type Level } from "../../../api/log.ts";
import { logCall } from "../../../api/service/call_log.ts";
import { Code, ServiceError } from "../../../domain/errors.ts";

const CALL = {
  transport: "http" as const,
  requestId: "r-1",
  key: "proto.ClusterService/GetCluster",
};

function linesAt(
  level: Level,
  error?: ServiceError,
): Record<string, unknown>[] {
  const lines: string[] = [];
  const log = createLogger({ level, write: (line) => lines.push(line) });
  logCall(
    log,
    CALL,
    { namespace: "team-a", name: "blue" },
    error,
    1.23,
    0,
    undefined,
  );
  return lines.map((line) => JSON.parse(line));
}

Deno.test("an answered call is one info line with its namespace, name and code", () => {
  const [line, ...rest] = linesAt("info");
  assert.equal(rest.length, 0);
  assert.equal(line.msg, "Handled request");
  assert.equal(line.level, "info");
  assert.equal(line.namespace, "team-a");
  assert.equal(line.name, "blue");
  assert.equal(line.code, Code.OK);
});

Deno.test("above info an answered call writes nothing, an internal error still does", () => {
  assert.deepEqual(linesAt("warn"), []);
  const [line] = linesAt("warn", new ServiceError(Code.INTERNAL, "boom"));
  assert.equal(line.msg, "Failed request");
  assert.equal(line.error, "boom");
});
