import assert from "node:assert/strict";
import { Code, ServiceError } from "../../../domain/errors.ts";
import { HttpError } from "../../../api/errors.ts";
import {
  errorAnswer,
  errorResponse,
  rawErrorAnswer,
} from "../../../api/http/error_answers.ts";
import { clientRequestIdOf, newRequestId } from "../../../api/request_id.ts";

const retryInfo = (retryDelay: string) => ({
  "@type": "type.googleapis.com/google.rpc.RetryInfo" as const,
  retryDelay,
});

Deno.test("errorAnswer() gives each error its status, headers and body", async (t) => {
  const cases = [
    {
      name: "404, with the request id",
      error: new ServiceError(Code.NOT_FOUND, "Not Found"),
      options: { requestId: "r-1" },
      status: 404,
      headers: { "x-request-id": "r-1" },
      body: '{"code":5,"message":"Not Found"}',
    },
    {
      name: "405 with Allow",
      error: new HttpError(405, Code.UNIMPLEMENTED, "Method Not Allowed"),
      options: { allow: "GET, HEAD" },
      status: 405,
      headers: { allow: "GET, HEAD" },
      body: '{"code":12,"message":"Method Not Allowed"}',
    },
    {
      name: "401 names the Bearer scheme",
      error: new ServiceError(Code.UNAUTHENTICATED, "Unauthorized"),
      options: {},
      status: 401,
      headers: { "www-authenticate": 'Bearer realm="corral"' },
      body: '{"code":16,"message":"Unauthorized"}',
    },
    {
      name: "503 with the seconds of its RetryInfo, rounded up",
      error: new ServiceError(Code.UNAVAILABLE, "Down", {
        details: [retryInfo("2.5s")],
      }),
      options: { requestId: "r-2" },
      status: 503,
      headers: { "retry-after": "3", "x-request-id": "r-2" },
      body:
        '{"code":14,"message":"Down","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2.5s"}]}',
    },
    {
      name: "429 with the Retry-After its caller gives",
      error: new HttpError(429, Code.RESOURCE_EXHAUSTED, "Busy"),
      options: { retryAfter: "1" },
      status: 429,
      headers: { "retry-after": "1" },
      body: '{"code":8,"message":"Busy"}',
    },
    {
      name: "503 without RetryInfo has no Retry-After",
      error: new ServiceError(Code.UNAVAILABLE, "Down"),
      options: {},
      status: 503,
      headers: {},
      body: '{"code":14,"message":"Down"}',
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const got = errorAnswer(c.error, c.options);
      assert.equal(got.status, c.status, "status");
      assert.deepEqual(got.headers, c.headers, "headers");
      assert.equal(got.body, c.body, "body");
    });
  }
});

Deno.test("errorResponse() is the error answer as a Response, JSON", async () => {
  const response = errorResponse(
    new HttpError(405, Code.UNIMPLEMENTED, "Method Not Allowed"),
    { allow: "POST", requestId: "r-3" },
  );
  assert.equal(response.status, 405);
  assert.deepEqual([...response.headers], [
    ["allow", "POST"],
    ["content-type", "application/json"],
    ["x-request-id", "r-3"],
  ]);
  assert.deepEqual(await response.json(), {
    code: 12,
    message: "Method Not Allowed",
  });
});

Deno.test("rawErrorAnswer() is a whole HTTP/1.1 message that closes the connection", () => {
  assert.equal(
    rawErrorAnswer(new ServiceError(Code.NOT_FOUND, "Not Found"), {
      allow: "",
    }),
    [
      "HTTP/1.1 404 Not Found",
      "content-type: application/json",
      "content-length: 32",
      "allow: ",
      "connection: close",
      "",
      '{"code":5,"message":"Not Found"}',
    ].join("\r\n"),
  );
});

Deno.test("newRequestId() makes Corral's own id whatever the caller sends; clientRequestIdOf() keeps the caller's, cut to 128 visible characters", () => {
  // Issue 23: the caller's id is no longer Corral's (and the audit's).
  const given = new Request("http://x/", {
    headers: { "x-request-id": "a".repeat(200) },
  });
  assert.match(newRequestId(), /^[0-9a-f-]{36}$/);
  assert.equal(clientRequestIdOf(given), "a".repeat(128));
  const forged = new Request("http://x/", {
    headers: { "x-request-id": "r-1\u001b[31m fake\tline" },
  });
  assert.equal(clientRequestIdOf(forged), "r-1[31mfakeline");
  assert.equal(clientRequestIdOf(new Request("http://x/")), undefined);
});
