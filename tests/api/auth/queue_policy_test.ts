/**
 * The policy file's `queues:` section: the default queue and the queues
 * allowed per namespace, user or group, the first matching entry applying,
 * a queue outside `allowed` refused with code 7 naming it, and every
 * problem named with its path and its line.
 */
import assert from "node:assert/strict";
import {
  queueLimitFor,
  queueOnCreate,
} from "../../../api/auth/queue_policy.ts";
import {
  parsePolicyDocument,
  PolicyError,
} from "../../../api/auth/policy_document.ts";
import { Code, ServiceError } from "../../../domain/errors.ts";
import type { Identity } from "../../../api/auth/identity.ts";
import { allowAll, policyText, users } from "./policy_fixtures.ts";

const RULES = policyText([allowAll(users("alice"), ["*"])]);

function who(user: string, groups: string[] = []): Identity {
  return { user, groups, authenticator: "token-file" } as Identity;
}

Deno.test("queues: entries read as limits, the first naming the namespace and the caller applying", () => {
  const { queues } = parsePolicyDocument(`${RULES}queues:
  - namespaces: [team-a]
    groups: [interns]
    default: small
    allowed: [small]
  - namespaces: [team-a]
    default: default
  - namespaces: ["*"]
    allowed: []
`);
  assert.deepEqual(queueLimitFor(queues, who("ann", ["interns"]), "team-a"), {
    default: "small",
    allowed: ["small"],
  });
  assert.deepEqual(queueLimitFor(queues, who("bob"), "team-a"), {
    default: "default",
  });
  assert.deepEqual(queueLimitFor(queues, who("bob"), "team-b"), {
    allowed: [],
  });
  assert.deepEqual(queueLimitFor([], who("bob"), "team-a"), {});
});

Deno.test("queueOnCreate() takes the named queue or the default, and refuses one not allowed with code 7 naming it", () => {
  const action = 'Cannot create cluster "team-a/blue"';
  assert.equal(
    queueOnCreate("", { default: "d" }, action, "cluster.queue"),
    "d",
  );
  assert.equal(queueOnCreate("", {}, action, "cluster.queue"), "");
  assert.equal(
    queueOnCreate("big", { default: "d" }, action, "cluster.queue"),
    "big",
  );
  for (
    const [allowed, why] of [
      [["small"], 'allowed: "small"'],
      [[], "no queue is allowed here"],
    ] as const
  ) {
    assert.throws(
      () => queueOnCreate("big", { allowed }, action, "cluster.queue"),
      (error: unknown) =>
        error instanceof ServiceError &&
        error.code === Code.PERMISSION_DENIED &&
        error.message ===
          `${action}: cluster.queue: queue "big" is not allowed (${why})`,
    );
  }
});

Deno.test("queues: every problem named with its path and line", () => {
  const text = `${RULES}queues:
  - namespaces: [team-a]
    default: Bad_Name
  - namespaces: []
    default: a
  - namespaces: [team-c]
    default: other
    allowed: [one]
    queue: x
  - namespaces: [team-d]
`;
  let error: unknown;
  try {
    parsePolicyDocument(text);
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof PolicyError, String(error));
  assert.deepEqual(
    error.violations.map((v) => `${v.field}: ${v.description}`),
    [
      "queues[0].default: must be a Kubernetes object name: lower case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters (line 8)",
      'queues[1].namespaces: must be a non-empty list of namespaces or "*" (line 9)',
      "queues[2].queue: unknown key (line 14)",
      "queues[2].default: must be one of allowed (line 12)",
      "queues[3]: must give default or allowed (line 15)",
    ],
  );
});
