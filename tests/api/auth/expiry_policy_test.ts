/**
 * The policy file's `expiry:` section: durations per namespace, the first
 * entry naming a namespace (or "*") applying, and every problem named with
 * its path and its line.
 */
import assert from "node:assert/strict";
import { expiryLimitFor } from "../../../api/auth/expiry_policy.ts";
import {
  parsePolicyDocument,
  PolicyError,
} from "../../../api/auth/policy_document.ts";
import { allowAll, policyText, users } from "./policy_fixtures.ts";

const RULES = policyText([allowAll(users("alice"), ["*"])]);

Deno.test("expiry: entries read as limits, the first naming the namespace applying", () => {
  const { expiry } = parsePolicyDocument(`${RULES}expiry:
  - namespaces: [team-a]
    default: 8h
    max: 72h
  - namespaces: ["*"]
    max: 1h30m
`);
  assert.deepEqual(expiryLimitFor(expiry, "team-a"), {
    defaultMs: 8 * 3_600_000,
    maxMs: 72 * 3_600_000,
  });
  assert.deepEqual(expiryLimitFor(expiry, "team-b"), {
    defaultMs: undefined,
    maxMs: 90 * 60_000,
  });
  assert.deepEqual(expiryLimitFor([], "team-a"), {});
});

Deno.test("expiry: `services: exempt` leaves the entry's services out of its limits", () => {
  const { expiry } = parsePolicyDocument(`${RULES}expiry:
  - namespaces: [team-a]
    max: 2h
    services: exempt
  - namespaces: ["*"]
    default: 1h
`);
  assert.deepEqual(expiryLimitFor(expiry, "team-a"), {
    defaultMs: undefined,
    maxMs: 2 * 3_600_000,
    exempt: ["services"],
  });
  assert.deepEqual(expiryLimitFor(expiry, "team-b"), {
    defaultMs: 3_600_000,
    maxMs: undefined,
  });
});

Deno.test("expiry: every problem named with its path and line", () => {
  const text = `${RULES}expiry:
  - namespaces: [team-a]
    default: 8 hours
  - namespaces: []
    max: 1h
  - namespaces: [team-c]
    default: 2h
    max: 1h
    ttl: 1h
  - namespaces: [team-d]
  - namespaces: [team-e]
    max: 1h
    services: true
  - namespaces: [team-f]
    max: 1h
    jobs: exempt
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
      'expiry[0].default: must be a duration of hours, minutes and seconds more than zero, such as "8h" or "1h30m" (line 8)',
      "expiry[0]: must give default or max (line 7)",
      'expiry[1].namespaces: must be a non-empty list of namespaces or "*" (line 9)',
      "expiry[2].ttl: unknown key (line 14)",
      "expiry[2].default: must not be longer than max (line 12)",
      "expiry[3]: must give default or max (line 15)",
      'expiry[4].services: must be "exempt" (or left out) (line 18)',
      "expiry[5].jobs: unknown key (line 21)",
    ],
  );
});
