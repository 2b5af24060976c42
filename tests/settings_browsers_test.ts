/**
 * The browser flags: --allowed-hosts (loopback names in embedded mode, any
 * in kubernetes mode) and --cors-allowed-origins (origins only, never *).
 */
import assert from "node:assert/strict";
import { type Invocation, parseSettings, type Settings } from "../settings.ts";

function browsersOf(args: string[], env: Record<string, string> = {}) {
  const invocation = parseSettings(["--allow-anonymous", ...args], env);
  assert.equal(invocation.kind, "run", JSON.stringify(invocation));
  return (invocation as { settings: Settings }).settings.browsers;
}

function problemsOf(args: string[]): string[] {
  const invocation: Invocation = parseSettings(
    ["--allow-anonymous", ...args],
    {},
  );
  assert.equal(invocation.kind, "invalid", JSON.stringify(invocation));
  return (invocation as { problems: string[] }).problems;
}

Deno.test("parseSettings() serves loopback Host names in embedded mode and any in kubernetes mode, unless told", () => {
  assert.deepEqual(browsersOf(["--orchestrator", "embedded"]), {
    allowedHosts: ["localhost", "127.0.0.1", "[::1]"],
    corsAllowedOrigins: [],
  });
  assert.deepEqual(browsersOf([]).allowedHosts, ["*"]);
  assert.deepEqual(
    browsersOf(["--allowed-hosts", "corral.example.com, *.corral.svc"])
      .allowedHosts,
    ["corral.example.com", "*.corral.svc"],
  );
  assert.deepEqual(
    browsersOf([], {
      CORRAL_ALLOWED_HOSTS: "localhost",
      CORRAL_CORS_ALLOWED_ORIGINS: "https://console.example.com",
    }),
    {
      allowedHosts: ["localhost"],
      corsAllowedOrigins: ["https://console.example.com"],
    },
  );
});

Deno.test("parseSettings() names the flag and the entry of a bad host or origin", () => {
  assert.deepEqual(
    problemsOf(["--allowed-hosts", "localhost,http://x"]),
    [
      '--allowed-hosts has "http://x", which is not a host name or address with an optional :port, "*.domain" or "*"',
    ],
  );
  assert.deepEqual(problemsOf(["--allowed-hosts", ""]), [
    '--allowed-hosts needs at least one entry ("*" for any)',
  ]);
  assert.deepEqual(problemsOf(["--cors-allowed-origins", "*"]), [
    '--cors-allowed-origins has "*", which is not an origin: scheme://host[:port] with http or https and no path (any origin, *, is not allowed)',
  ]);
  assert.match(
    problemsOf(["--cors-allowed-origins", "https://ok.example,https://x/app"])
      .join(),
    /^--cors-allowed-origins has "https:\/\/x\/app", which is not an origin/,
  );
});
