/**
 * The browser guard's flags, read: the --allowed-hosts patterns and the
 * --cors-allowed-origins it takes and refuses. What it refuses, tried as
 * the attack would send it: browser_guard_attacks_test.ts.
 */
import assert from "node:assert/strict";
import {
  allowedHostPattern,
  corsOrigin,
  guardBrowsers,
} from "../../../api/http/browser_guard.ts";
import { createHttpApp } from "../../../api/http/router.ts";

function request(
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
): Request {
  return new Request(`http://corral.test${path}`, init);
}

Deno.test("allowedHostPattern() takes names, addresses, ports, *.domain and *; refuses the rest", async () => {
  const taken: [string, string, boolean][] = [
    ["corral.example.com:443", "corral.example.com:443", true],
    ["corral.example.com:443", "corral.example.com:8443", false],
    ["corral.example.com", "corral.example.com:8443", true],
    ["*.example.com", "corral.example.com", true],
    ["*.example.com", "example.com", false],
    ["*.example.com", "corral.example.com.evil", false],
    ["*", "anything.example", true],
  ];
  for (const [pattern, host, served] of taken) {
    const app = guardBrowsers(
      createHttpApp({ gateway: () => Promise.resolve(new Response("ok")) }),
      { allowedHosts: [pattern], corsAllowedOrigins: [] },
    );
    const response = await app(request("/x", { headers: { host } }));
    await response.body?.cancel();
    assert.equal(response.status === 200, served, `${pattern} ${host}`);
  }
  for (const bad of ["", "http://x", "a b", "x:99999", "*.x:80", "x/y"]) {
    assert.throws(() => allowedHostPattern(bad), /which is not a host name/);
  }
});

Deno.test("corsOrigin() takes origins only, never *", () => {
  assert.equal(
    corsOrigin("https://Console.Example.com"),
    "https://console.example.com",
  );
  assert.equal(corsOrigin("http://localhost:3000/"), "http://localhost:3000");
  for (
    const bad of [
      "*",
      "console.example.com",
      "https://console.example.com/app",
      "https://console.example.com?",
      "https://user@console.example.com",
      "file:///tmp/x.html",
    ]
  ) {
    assert.throws(() => corsOrigin(bad), /which is not an origin/, bad);
  }
  assert.throws(() => corsOrigin("*"), /any origin, \*, is not allowed/);
});
