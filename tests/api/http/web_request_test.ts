import assert from "node:assert/strict";
import type http from "node:http";
import { listenedRequest } from "../../../api/http/web_request.ts";

const req = (url: string, rawHeaders: string[] = []) =>
  ({ url, rawHeaders, socket: {} }) as unknown as http.IncomingMessage;
const NEVER = new AbortController().signal;

Deno.test("listenedRequest() has the URL new Request() makes of a target: kept as sent, dot segments resolved, characters escaped, an absolute form resolved", () => {
  const targets = [
    "/apis/v1alpha2/namespaces/team-3/clusters/cluster-00003",
    "/apis/v1alpha2/clusters?pageSize=10&pageToken=abc%3D%3D",
    "/openapi.json",
    "/a/../b?x=1",
    "/a/./b",
    "/a/%2e%2E/b",
    "/a/.hidden",
    "/caf\u00e9/\"q\"?y='z' w",
    "/a\\b",
    "/a#frag",
    "/%zz/%41",
    "/",
  ];
  for (const target of targets) {
    assert.equal(
      listenedRequest(req(target), "GET", undefined, NEVER).url,
      new Request("http://corral.invalid" + target).url,
      target,
    );
  }
  const absolute = listenedRequest(
    req("http://other:9/c"),
    "DELETE",
    undefined,
    NEVER,
  );
  assert.equal(absolute.url, "http://other:9/c");
  assert.equal(absolute.method, "DELETE");
  assert.equal(absolute.body, null);
});

Deno.test("listenedRequest()'s headers read as Headers reads them: any case, repeated ones joined, every one iterated", () => {
  const raw = [
    "Accept",
    "a",
    "X-Two",
    "1",
    "x-two",
    "2",
    "Authorization",
    "Bearer a",
  ];
  const { headers } = listenedRequest(req("/", raw), "GET", undefined, NEVER);
  const fetchHeaders = new Headers();
  for (let i = 0; i < raw.length; i += 2) {
    fetchHeaders.append(raw[i], raw[i + 1]);
  }
  for (const name of ["accept", "X-TWO", "authorization", "absent"]) {
    assert.equal(headers.get(name), fetchHeaders.get(name), name);
    assert.equal(headers.has(name), fetchHeaders.has(name), name);
  }
  assert.deepEqual(
    [...headers].sort(),
    [...fetchHeaders].sort(),
  );
});
