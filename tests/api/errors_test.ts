import assert from "node:assert/strict";
import {
  asServiceError,
  describeCause,
  errorBody,
  httpStatus,
} from "../../api/errors.ts";
import { Code, ServiceError } from "../../domain/errors.ts";

Deno.test("httpStatus() maps every code as grpc-gateway does", async (t) => {
  const table: [Code, number][] = [
    [Code.OK, 200],
    [Code.CANCELLED, 499],
    [Code.UNKNOWN, 500],
    [Code.INVALID_ARGUMENT, 400],
    [Code.DEADLINE_EXCEEDED, 504],
    [Code.NOT_FOUND, 404],
    [Code.ALREADY_EXISTS, 409],
    [Code.PERMISSION_DENIED, 403],
    [Code.RESOURCE_EXHAUSTED, 429],
    [Code.FAILED_PRECONDITION, 400],
    [Code.ABORTED, 409],
    [Code.OUT_OF_RANGE, 400],
    [Code.UNIMPLEMENTED, 501],
    [Code.INTERNAL, 500],
    [Code.UNAVAILABLE, 503],
    [Code.DATA_LOSS, 500],
    [Code.UNAUTHENTICATED, 401],
  ];
  for (const [code, want] of table) {
    await t.step(`code ${code} -> ${want}`, () => {
      assert.equal(
        httpStatus(code),
        want,
        `got ${httpStatus(code)}, want ${want}`,
      );
    });
  }
});

Deno.test("asServiceError() hides an unexpected error behind a generic INTERNAL", () => {
  const error = asServiceError(new TypeError("x is undefined at secret.ts:12"));
  assert.equal(error.code, Code.INTERNAL);
  assert.equal(error.message, "Internal error");
  assert.deepEqual(errorBody(error), { code: 13, message: "Internal error" });
  assert.match(describeCause(error)!, /TypeError: x is undefined/);
});

Deno.test("describeCause() cuts a Kubernetes client error to its code and Status message", () => {
  const apiException = Object.assign(
    new Error(
      'HTTP-Code: 404\nMessage: Unknown API Status Code!\nBody: {...}\nHeaders: {"authorization":"Bearer secret"}',
    ),
    {
      code: 404,
      body: JSON.stringify({
        kind: "Status",
        message: 'rayclusters.ray.io "x" not found',
      }),
      headers: { authorization: "Bearer secret" },
    },
  );
  const error = new ServiceError(Code.NOT_FOUND, "Cannot get cluster", {
    cause: apiException,
  });
  const text = describeCause(error)!;
  assert.equal(
    text,
    'Kubernetes API answered 404: rayclusters.ray.io "x" not found',
  );
  assert.doesNotMatch(text, /secret|Headers/);
});
