/**
 * Kubernetes errors translated once, at the orchestrator boundary: each
 * failure client-node can throw, to a service code and a message that
 * never forwards its headers.
 */
import assert from "node:assert/strict";
import { ApiException } from "@kubernetes/client-node";
import { Code, ServiceError } from "../../domain/errors.ts";
import {
  type KubernetesCall,
  KubernetesTimeoutError,
  translateKubernetesError,
} from "../../orchestrator/errors.ts";

Deno.test("translateKubernetesError() maps each Kubernetes failure to a service code and message", async (t) => {
  const status = (
    code: number,
    reason: string,
    message: string,
    details = {},
  ) =>
    JSON.stringify({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message,
      reason,
      details,
      code,
    });
  const api = (
    code: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) =>
    new ApiException(code, "Unknown API Status Code!", body, {
      "content-type": "application/json",
      "x-secret-header": "do-not-leak",
      ...headers,
    });
  const get: KubernetesCall = {
    action: 'Cannot get cluster "team-a/blue"',
    verb: "get",
    noun: "cluster",
  };
  const create: KubernetesCall = {
    action: 'Cannot create cluster "team-a/blue"',
    verb: "create",
    noun: "cluster",
  };
  const remove: KubernetesCall = {
    action: 'Cannot delete compute template "team-a/big"',
    verb: "delete",
    noun: "compute template",
  };
  const list: KubernetesCall = {
    action: "Cannot list clusters",
    verb: "list",
    noun: "cluster",
  };
  const refused = new TypeError("fetch failed", {
    cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), {
      code: "ECONNREFUSED",
    }),
  });
  const passthrough = new ServiceError(
    Code.FAILED_PRECONDITION,
    "Already translated",
  );

  const cases: {
    name: string;
    error: unknown;
    call: KubernetesCall;
    code: Code;
    message: string;
    fields?: string[];
    retryDelay?: string;
  }[] = [
    {
      name: "404 on get",
      error: api(
        404,
        status(404, "NotFound", 'rayclusters.ray.io "blue" not found'),
      ),
      call: get,
      code: Code.NOT_FOUND,
      message: 'Cannot get cluster "team-a/blue": not found',
    },
    {
      name: "404 on delete",
      error: api(404, status(404, "NotFound", 'configmaps "big" not found')),
      call: remove,
      code: Code.NOT_FOUND,
      message: 'Cannot delete compute template "team-a/big": not found',
    },
    {
      name: "404 namespace on create",
      error: api(
        404,
        status(404, "NotFound", 'namespaces "team-a" not found', {
          name: "team-a",
          kind: "namespaces",
        }),
      ),
      call: create,
      code: Code.NOT_FOUND,
      message:
        'Cannot create cluster "team-a/blue": namespace "team-a" not found',
    },
    {
      name: "404 on list (resource not served)",
      error: api(
        404,
        status(
          404,
          "NotFound",
          "the server could not find the requested resource",
        ),
      ),
      call: list,
      code: Code.NOT_FOUND,
      message:
        "Cannot list clusters: the server could not find the requested resource",
    },
    {
      name: "409 on create",
      error: api(
        409,
        status(
          409,
          "AlreadyExists",
          'rayclusters.ray.io "blue" already exists',
        ),
      ),
      call: create,
      code: Code.ALREADY_EXISTS,
      message:
        'Cannot create cluster "team-a/blue": a cluster with that name already exists',
    },
    {
      name: "409 on delete",
      error: api(409, status(409, "Conflict", "Operation cannot be fulfilled")),
      call: remove,
      code: Code.ABORTED,
      message:
        'Cannot delete compute template "team-a/big": the compute template was changed concurrently; try again',
    },
    {
      name: "422 with causes",
      error: api(
        422,
        status(422, "Invalid", 'RayCluster.ray.io "blue" is invalid: ...', {
          causes: [
            {
              reason: "FieldValueInvalid",
              message: 'Invalid value: "x": bad',
              field: "spec.a",
            },
            {
              reason: "FieldValueRequired",
              message: "Required value",
              field: "spec.b",
            },
          ],
        }),
      ),
      call: create,
      code: Code.INVALID_ARGUMENT,
      message:
        'Cannot create cluster "team-a/blue": spec.a: Invalid value: "x": bad; spec.b: Required value',
      fields: ["spec.a", "spec.b"],
    },
    {
      name: "422 with a cause the server gives no field",
      error: api(
        422,
        status(422, "Invalid", 'RayCluster.ray.io "blue" is invalid: ...', {
          causes: [{
            reason: "FieldValueInvalid",
            message: "must validate one and only one schema (oneOf)",
            field: "<nil>",
          }],
        }),
      ),
      call: create,
      code: Code.INVALID_ARGUMENT,
      message:
        'Cannot create cluster "team-a/blue": must validate one and only one schema (oneOf)',
      fields: [""],
    },
    {
      name: "422 without causes",
      error: api(422, status(422, "Invalid", "the patch test failed")),
      call: create,
      code: Code.INVALID_ARGUMENT,
      message: 'Cannot create cluster "team-a/blue": the patch test failed',
      fields: [],
    },
    {
      name: "400",
      error: api(
        400,
        status(
          400,
          "BadRequest",
          "the namespace of the provided object does not match",
        ),
      ),
      call: create,
      code: Code.INVALID_ARGUMENT,
      message:
        'Cannot create cluster "team-a/blue": the namespace of the provided object does not match',
    },
    {
      name: "401 (client-node gives no body)",
      error: api(401, undefined),
      call: list,
      code: Code.UNAUTHENTICATED,
      message:
        "Cannot list clusters: Kubernetes API rejected the service's credentials",
    },
    {
      name: "403",
      error: api(
        403,
        status(
          403,
          "Forbidden",
          'rayclusters.ray.io is forbidden: User "system:serviceaccount:corral:corral" cannot list',
        ),
      ),
      call: list,
      code: Code.PERMISSION_DENIED,
      message: "Cannot list clusters: Kubernetes API denied access",
    },
    {
      name: "429 with Retry-After",
      error: api(429, status(429, "TooManyRequests", "slow down"), {
        "retry-after": "3",
      }),
      call: list,
      code: Code.UNAVAILABLE,
      message:
        "Cannot list clusters: Kubernetes API unavailable: too many requests",
      retryDelay: "3s",
    },
    {
      name: "500",
      error: api(
        500,
        status(500, "InternalError", "etcdserver: leader changed"),
      ),
      call: get,
      code: Code.UNAVAILABLE,
      message:
        'Cannot get cluster "team-a/blue": Kubernetes API unavailable: HTTP 500',
    },
    {
      name: "503 with a non-JSON body",
      error: api(503, "<html>upstream down</html>"),
      call: get,
      code: Code.UNAVAILABLE,
      message:
        'Cannot get cluster "team-a/blue": Kubernetes API unavailable: HTTP 503',
    },
    {
      name: "504",
      error: api(504, status(504, "Timeout", "request did not complete")),
      call: list,
      code: Code.DEADLINE_EXCEEDED,
      message: "Cannot list clusters: Kubernetes API timed out",
    },
    {
      name: "415 (a bug of ours, not the caller's)",
      error: api(415, status(415, "UnsupportedMediaType", "nope")),
      call: get,
      code: Code.INTERNAL,
      message:
        'Cannot get cluster "team-a/blue": unexpected answer from the Kubernetes API: HTTP 415',
    },
    {
      name: "connection refused",
      error: refused,
      call: list,
      code: Code.UNAVAILABLE,
      message:
        "Cannot list clusters: Kubernetes API unavailable: connection refused",
    },
    {
      name: "a bare fetch failure",
      error: new TypeError("fetch failed"),
      call: list,
      code: Code.UNAVAILABLE,
      message:
        "Cannot list clusters: Kubernetes API unavailable: network error",
    },
    {
      name: "a client-side time-out",
      error: new KubernetesTimeoutError(100),
      call: get,
      code: Code.DEADLINE_EXCEEDED,
      message:
        'Cannot get cluster "team-a/blue": Kubernetes API did not answer in time',
    },
    {
      name: "an unexpected error",
      error: new Error("undefined is not a function"),
      call: get,
      code: Code.INTERNAL,
      message: 'Cannot get cluster "team-a/blue": internal error',
    },
    {
      name: "a ServiceError passes through",
      error: passthrough,
      call: get,
      code: Code.FAILED_PRECONDITION,
      message: "Already translated",
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const got = translateKubernetesError(c.error, c.call);
      assert.ok(got instanceof ServiceError);
      assert.equal(got.code, c.code, `code: got ${got.code}, want ${c.code}`);
      assert.equal(
        got.message,
        c.message,
        `message: got "${got.message}", want "${c.message}"`,
      );
      assert.doesNotMatch(got.message, /do-not-leak|HTTP-Code|Headers/);
      if (c.error !== passthrough) {
        assert.equal(got.cause, c.error, "the original error is the cause");
      }
      if (c.fields) {
        assert.deepEqual(got.fieldViolations.map((v) => v.field), c.fields);
      }
      if (c.retryDelay) {
        assert.deepEqual(got.details, [{
          "@type": "type.googleapis.com/google.rpc.RetryInfo",
          retryDelay: c.retryDelay,
        }]);
      }
    });
  }
});
