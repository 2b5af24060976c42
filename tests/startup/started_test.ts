/**
 * The "Corral started" record, called directly: where Corral listens, what
 * it runs against and who may call it, in one line of the JSON log.
 */
import assert from "node:assert/strict";
import { createLogger } from "../../api/log.ts";
import { parseSettings, type Settings } from "../../settings.ts";
import { logStarted, type Started } from "../../startup/started.ts";

function settingsOf(args: string[]): Settings {
  const invocation = parseSettings(args, {});
  assert.equal(invocation.kind, "run", JSON.stringify(invocation));
  return (invocation as { settings: Settings }).settings;
}

const STARTED: Started = {
  version: "1.2.3",
  httpPort: 18888,
  grpcPort: 18887,
  tls: false,
  server: "http://127.0.0.1:6443",
  access: { authentication: ["anonymous"], authorization: "anyone" },
};

/** The records logStarted() logs, as JSON objects. */
function recordsOf(settings: Settings, started: Started) {
  const lines: string[] = [];
  logStarted(
    createLogger({ write: (line) => lines.push(line) }),
    settings,
    started,
    false,
  );
  return lines.map((line) => JSON.parse(line));
}

Deno.test('logStarted() logs one "Corral started" record with the version, mode, ports, URLs and access', () => {
  const settings = settingsOf([
    "--orchestrator",
    "embedded",
    "--host",
    "127.0.0.1",
  ]);
  const [record, ...more] = recordsOf(settings, STARTED);
  assert.deepEqual(more, []);
  assert.equal(record.msg, "Corral started");
  assert.equal(record.level, "info");
  assert.equal(record.version, "1.2.3");
  assert.equal(record.mode, "embedded");
  assert.equal(record.httpPort, 18888);
  assert.equal(record.grpcPort, 18887);
  assert.equal(record.tls, false);
  assert.equal(record.host, "127.0.0.1");
  assert.equal(record.server, "http://127.0.0.1:6443");
  assert.equal(record.namespaces, "all");
  assert.deepEqual(record.authentication, ["anonymous"]);
  assert.equal(record.authorization, "anyone");
  assert.match(record.api, /^http:\/\/127\.0\.0\.1:18888/);
});

Deno.test("logStarted() names the namespaces served when there is a list", () => {
  const settings = settingsOf([
    "--orchestrator",
    "embedded",
    "--namespaces",
    "team-a,team-b",
  ]);
  const [record] = recordsOf(settings, STARTED);
  assert.deepEqual(record.namespaces, ["team-a", "team-b"]);
});
