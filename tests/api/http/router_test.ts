/**
 * The router: HEAD, 404 and 405 decided once for the pages and the gateway's
 * routes alike, called as a function. HEAD on the API's answers, in front of
 * Corral's handlers and the stand-in: router_round_trip_test.ts.
 */
import assert from "node:assert/strict";
import {
  createHttpApp,
  createRouter,
  type Endpoint,
} from "../../../api/http/router.ts";
import { probeGateway } from "../service/probe_handlers.ts";
import { NS } from "../cases.ts";

const BASE = "http://corral.test";

Deno.test("405 lists HEAD wherever GET is allowed, for the API and the pages", async () => {
  const app = createHttpApp({
    gateway: await probeGateway(),
    pages: { "/healthz": () => Response.json({ status: "ok" }) },
  });
  for (
    const [method, path, allow] of [
      ["DELETE", "/apis/v1alpha2/clusters", "GET, HEAD"],
      ["PUT", `/apis/v1alpha2/namespaces/${NS}/clusters`, "POST, GET, HEAD"],
      ["POST", "/healthz", "GET, HEAD"],
      ["PROPFIND", "/healthz", "GET, HEAD"],
    ]
  ) {
    const response = await app(new Request(BASE + path, { method }));
    assert.equal(response.status, 405, `${method} ${path}`);
    assert.equal(response.headers.get("allow"), allow, `${method} ${path}`);
    assert.deepEqual(await response.json(), {
      code: 12,
      message: "Method Not Allowed",
    });
    assert.deepEqual(app.allowed(path), allow.split(", "));
  }
});

Deno.test("HEAD on a page answers as GET does, without a body; an unknown path is 404 for every method", async () => {
  const app = createHttpApp({
    gateway: () => Promise.resolve(Response.json({ from: "gateway" })),
    pages: {
      "/healthz": () =>
        new Response("ok", { headers: { "x-page": "healthz" } }),
    },
  });
  const answer = await app(
    new Request(`${BASE}/healthz`, { method: "HEAD" }),
  );
  assert.equal(answer.status, 200);
  assert.equal(answer.headers.get("x-page"), "healthz");
  assert.equal(answer.body, null);
  // Not a page: the gateway's, whatever the method.
  const other = await app(new Request(`${BASE}/other`, { method: "POST" }));
  assert.deepEqual(await other.json(), { from: "gateway" });
});

Deno.test("endpoints indexed by their shape are tried in their list's order with those without one: the first of the method wins, and 405 names every method of the path", async () => {
  const endpoint = (
    name: string,
    method: string,
    shape: (string | undefined)[] | undefined,
    match: (parts: string[]) => Record<string, string> | undefined,
  ): Endpoint => ({
    method,
    match,
    handle: () => new Response(name),
    ...(shape ? { shape } : {}),
  });
  const exact = (want: (string | undefined)[]) => (parts: string[]) =>
    parts.length === want.length &&
      parts.every((part, i) => want[i] === undefined || part === want[i])
      ? {}
      : undefined;
  const router = createRouter({
    endpoints: [
      endpoint("any-x", "PUT", ["a", undefined], exact(["a", undefined])),
      endpoint("b-literal", "GET", ["a", "b"], exact(["a", "b"])),
      endpoint(
        "prefix",
        "GET",
        undefined,
        (parts) => parts[0] === "p" ? {} : undefined,
      ),
      endpoint("any-get", "GET", ["a", undefined], exact(["a", undefined])),
      endpoint(
        "deep",
        "DELETE",
        ["a", undefined, "c"],
        exact(["a", undefined, "c"]),
      ),
    ],
  });
  const call = async (method: string, path: string) => {
    const response = await router(new Request(BASE + path, { method }));
    return [
      response.status,
      await response.text(),
      response.headers.get("allow"),
    ];
  };
  assert.deepEqual(await call("GET", "/a/b"), [200, "b-literal", null]);
  assert.deepEqual(await call("GET", "/a/z"), [200, "any-get", null]);
  assert.deepEqual(await call("PUT", "/a/b"), [200, "any-x", null]);
  assert.deepEqual(await call("GET", "/p/q/r"), [200, "prefix", null]);
  assert.deepEqual(await call("DELETE", "/a/z/c"), [200, "deep", null]);
  const [status, , allow] = await call("POST", "/a/b");
  assert.deepEqual([status, allow], [405, "PUT, GET, HEAD"]);
  assert.equal((await call("GET", "/a/z/d"))[0], 404);
  assert.equal((await call("GET", "/a"))[0], 404);
});
