import assert from "node:assert/strict";
import type http from "node:http";
import {
  busy,
  methodRefusal,
  type ParseError,
  parseRefusal,
  refusalBeforeHandler,
} from "../../../api/http/listener_refusals.ts";
import { errorStatus } from "../../../api/errors.ts";

const allowed = (pathname: string) =>
  pathname === "/apis/v1alpha2/clusters" ? ["GET", "HEAD"] : [];

function parseError(code: string, rawPacket = "", bytesParsed?: number) {
  return Object.assign(new Error(code), {
    code,
    rawPacket,
    bytesParsed,
  }) as ParseError;
}

Deno.test("parseRefusal() answers what node:http's parser refuses", async (t) => {
  const cases = [
    {
      name: "a head over the limit: 431 code 8",
      error: parseError("HPE_HEADER_OVERFLOW"),
      status: 431,
      code: 8,
      message: "Request headers too large: the limit is 16384 bytes",
    },
    {
      name: "a method the parser does not know, on a path served: 405",
      error: parseError(
        "HPE_INVALID_METHOD",
        "FOO /apis/v1alpha2/clusters HTTP/1.1\r\n",
      ),
      status: 405,
      code: 12,
      message: "Method Not Allowed",
      allow: "GET, HEAD",
    },
    {
      name: "a method the parser does not know, on no path: 404",
      error: parseError("HPE_INVALID_METHOD", "FOO /nope HTTP/1.1\r\n"),
      status: 404,
      code: 5,
      message: "Not Found",
    },
    {
      name: "anything else: 400 code 3 naming the parser's code",
      error: parseError("HPE_ERROR", "hello there\r\n"),
      status: 400,
      code: 3,
      message: "Invalid request: not HTTP/1.1 (HPE_ERROR)",
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const refusal = parseRefusal(c.error, 16 * 1024, allowed);
      assert.equal(errorStatus(refusal.error), c.status, "status");
      assert.equal(refusal.error.code, c.code, "code");
      assert.equal(refusal.error.message, c.message, "message");
      assert.equal(refusal.allow, c.allow, "allow");
    });
  }
});

Deno.test("methodRefusal() gives CONNECT 405 with an empty Allow, and an unknown method on no path 501", () => {
  const connect = methodRefusal("CONNECT", "example.com:443", allowed);
  assert.equal(errorStatus(connect.error), 405);
  assert.equal(connect.allow, "");
  const unknown = methodRefusal("FOO", "*");
  assert.equal(errorStatus(unknown.error), 501);
  assert.equal(unknown.error.message, 'Method "FOO" is not implemented');
});

Deno.test("refusalBeforeHandler() refuses a long URL, a missing Host and TRACE; lets others through", async (t) => {
  const req = (fields: Partial<http.IncomingMessage>) =>
    ({
      url: "/apis/v1alpha2/clusters",
      method: "GET",
      httpVersion: "1.1",
      headers: { host: "x" },
      ...fields,
    }) as http.IncomingMessage;
  const cases = [
    {
      name: "a URL over the limit",
      req: req({ url: "/" + "a".repeat(30) }),
      status: 414,
    },
    { name: "HTTP/1.1 without Host", req: req({ headers: {} }), status: 400 },
    {
      name: "HTTP/1.0 without Host",
      req: req({ headers: {}, httpVersion: "1.0" }),
      status: undefined,
    },
    {
      name: "TRACE on a path served",
      req: req({ method: "TRACE" }),
      status: 405,
    },
    { name: "GET", req: req({}), status: undefined },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const refusal = refusalBeforeHandler(c.req, 24, allowed);
      assert.equal(refusal && errorStatus(refusal.error), c.status);
    });
  }
});

Deno.test("busy() is 429 code 8 with Retry-After: 1", () => {
  const refusal = busy();
  assert.equal(errorStatus(refusal.error), 429);
  assert.equal(refusal.error.code, 8);
  assert.equal(refusal.retryAfter, "1");
});
