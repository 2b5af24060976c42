import assert from "node:assert/strict";
import { ApiException } from "@kubernetes/client-node";
import {
  callerText,
  translateKubernetesError,
} from "../../orchestrator/errors.ts";

const create = {
  action: 'Cannot create cluster "team-a/blue"',
  verb: "create" as const,
  noun: "cluster",
};

const DENIAL =
  'admission webhook "images.policy.example.com" denied the request: image "evil/ray" is not from https://registry.internal.example.com:5000/v2/ (checked by 10.96.0.12:443, policy.policy-system.svc:8443, token=abc123)';

Deno.test("translateKubernetesError() gives an admission denial's reason without addresses or credentials", () => {
  const error = translateKubernetesError(
    new ApiException(403, "Forbidden", {
      kind: "Status",
      status: "Failure",
      reason: "Forbidden",
      code: 403,
      message: DENIAL,
    }, {}),
    create,
  );
  assert.equal(error.code, 7);
  assert.equal(
    error.message,
    'Cannot create cluster "team-a/blue": admission webhook "images.policy.example.com" denied the request: image "evil/ray" is not from <address> (checked by <address>, <address>, token=<redacted>)',
  );
  // The full text stays with the cause, for the log.
  assert.match(
    JSON.stringify((error.cause as ApiException<unknown>).body),
    /10\.96\.0\.12/,
  );
});

Deno.test("translateKubernetesError() cleans a 422's causes and cuts long text", () => {
  const error = translateKubernetesError(
    new ApiException(422, "Invalid", {
      kind: "Status",
      reason: "Invalid",
      code: 422,
      details: {
        causes: [{
          field: "spec.image",
          message: `pull from http://10.0.0.5:5000 failed: ${"x".repeat(600)}`,
        }],
      },
    }, {}),
    create,
  );
  assert.equal(error.code, 3);
  const [violation] = error.fieldViolations;
  assert.equal(violation.field, "spec.image");
  assert.ok(violation.description.startsWith("pull from <address> failed: "));
  assert.equal(violation.description.length, 512);
});

Deno.test("callerText() leaves plain text alone", () => {
  assert.equal(
    callerText("spec.replicas: Invalid value: 5: must be at most 3"),
    "spec.replicas: Invalid value: 5: must be at most 3",
  );
});
