import assert from "node:assert/strict";
import type http from "node:http";
import { copyHeaders, webRequestOf } from "../../../api/http/web_request.ts";

const req = (url: string, rawHeaders: string[] = []) =>
  ({ url, rawHeaders }) as unknown as http.IncomingMessage;

Deno.test("webRequestOf() keeps an origin-form target as sent and resolves an absolute-form one", () => {
  assert.equal(
    webRequestOf(req("/a/../b?x=1"), "GET", undefined).url,
    "http://corral.invalid/b?x=1",
  );
  const absolute = webRequestOf(req("http://other:9/c"), "DELETE", undefined);
  assert.equal(absolute.url, "http://other:9/c");
  assert.equal(absolute.method, "DELETE");
});

Deno.test("copyHeaders() appends every raw header, repeated ones kept; false for one Headers refuses", () => {
  const request = new Request("http://corral.invalid/");
  assert.equal(
    copyHeaders(req("/", ["Accept", "a", "X-Two", "1", "X-Two", "2"]), request),
    true,
  );
  assert.equal(request.headers.get("accept"), "a");
  assert.equal(request.headers.get("x-two"), "1, 2");
  assert.equal(
    copyHeaders(req("/", ["Bad Name", "x"]), new Request("http://x/")),
    false,
  );
});
