/**
 * The Status bodies of the Kubernetes-shaped routes: each kind of refusal
 * with the status and reason the Kubernetes API server gives it, the
 * fields of an invalid request as its causes, and the object it was about.
 */
import assert from "node:assert/strict";
import { Code, invalidArgument, ServiceError } from "../../../domain/errors.ts";
import { HttpError } from "../../../api/errors.ts";
import { AuthorizationError } from "../../../api/auth/authorization_error.ts";
import { quotaError } from "../../../api/service/quota_guard.ts";
import { statusResponse } from "../../../api/http/kube_status.ts";

const TARGET = { group: "ray.io", kind: "rayclusters", name: "blue" };

Deno.test("statusResponse() answers each refusal with the API server's status and reason", async (t) => {
  const cases: [string, ServiceError, number, string][] = [
    [
      "no credentials",
      new ServiceError(Code.UNAUTHENTICATED, "no"),
      401,
      "Unauthorized",
    ],
    ["no rule", new AuthorizationError("no-rule", "no"), 403, "Forbidden"],
    ["a quota", quotaError("Cannot create", "cpu"), 403, "Forbidden"],
    ["missing", new ServiceError(Code.NOT_FOUND, "no"), 404, "NotFound"],
    [
      "taken",
      new ServiceError(Code.ALREADY_EXISTS, "no"),
      409,
      "AlreadyExists",
    ],
    ["moved on", new ServiceError(Code.ABORTED, "no"), 409, "Conflict"],
    ["too old", new HttpError(410, Code.ABORTED, "no"), 410, "Expired"],
    [
      "a bad body",
      new HttpError(400, Code.INVALID_ARGUMENT, "no"),
      400,
      "BadRequest",
    ],
    [
      "a missing cluster",
      new ServiceError(Code.FAILED_PRECONDITION, "no"),
      400,
      "BadRequest",
    ],
    [
      "a field",
      invalidArgument("Cannot", [{ field: "spec", description: "x" }]),
      422,
      "Invalid",
    ],
    [
      "too fast",
      new ServiceError(Code.RESOURCE_EXHAUSTED, "no"),
      429,
      "TooManyRequests",
    ],
    [
      "away",
      new ServiceError(Code.UNAVAILABLE, "no"),
      503,
      "ServiceUnavailable",
    ],
  ];
  for (const [what, error, status, reason] of cases) {
    await t.step(what, async () => {
      const response = statusResponse(error, { target: TARGET });
      const body = await response.json();
      assert.equal(
        response.status,
        status,
        `got ${response.status}, want ${status}`,
      );
      assert.equal(body.code, status);
      assert.equal(body.kind, "Status");
      assert.equal(body.status, "Failure");
      assert.equal(body.reason, reason, `got ${body.reason}, want ${reason}`);
      assert.equal(body.message, error.message);
      assert.equal(body.details.name, "blue");
    });
  }
});

Deno.test("statusResponse() gives an invalid request's fields as its causes, with the request id and the 401's challenge", async () => {
  const invalid = await statusResponse(
    invalidArgument("Cannot create cluster", [
      { field: "metadata.name", description: "is required" },
      { field: "spec", description: "is required" },
    ]),
    { target: TARGET, requestId: "r-1" },
  );
  assert.equal(invalid.headers.get("x-request-id"), "r-1");
  assert.deepEqual((await invalid.json()).details.causes, [
    {
      reason: "FieldValueInvalid",
      message: "is required",
      field: "metadata.name",
    },
    { reason: "FieldValueInvalid", message: "is required", field: "spec" },
  ]);
  const unauthenticated = statusResponse(
    new ServiceError(Code.UNAUTHENTICATED, "no"),
  );
  assert.match(unauthenticated.headers.get("www-authenticate") ?? "", /Bearer/);
  await unauthenticated.body?.cancel();
});
