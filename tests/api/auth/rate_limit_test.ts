/**
 * Fair use (issue 27, item 4), in process: a caller's rate is the first
 * `rateLimits:` entry naming one of its groups, else the default; anonymous
 * callers count by source address only when told to; the policy file's
 * section and the flags are read and checked. The buckets run on a clock
 * the test holds. On both transports: rate_limit_transports_test.ts.
 */
import assert from "node:assert/strict";
import type { Identity } from "../../../api/auth/identity.ts";
import { FairUse, rateLimitsOf } from "../../../api/auth/rate_limit.ts";
import {
  parsePolicy,
  parsePolicyDocument,
  PolicyError,
} from "../../../api/auth/policy_document.ts";
import { policyFile } from "../../../api/auth/policy_file.ts";
import { silentLogger } from "../../../api/log.ts";
import { parseSettings } from "../../../settings.ts";
import { POLICY } from "./access_fixtures.ts";

function identity(user: string, groups: string[] = []): Identity {
  return { user, groups, authenticator: "token-file" };
}

Deno.test("FairUse holds a caller to the first rateLimits entry naming one of its groups, else the default", () => {
  const fairUse = new FairUse({
    rate: { perSecond: 5, burst: 10 },
    maxStreams: 0,
  }, {
    groupLimits: () => [
      { groups: ["batch"], perSecond: 100, burst: 200 },
      { groups: ["interns", "batch"], perSecond: 1, burst: 1 },
    ],
  });
  const rate = (groups: string[]) => {
    const { perSecond, burst } = fairUse.rateOf(identity("x", groups));
    return [perSecond, burst];
  };
  assert.deepEqual(rate([]), [5, 10]);
  assert.deepEqual(rate(["batch"]), [100, 200]);
  assert.deepEqual(rate(["interns", "batch"]), [100, 200], "file order");
  assert.deepEqual(rate(["interns"]), [1, 1]);
});

Deno.test("FairUse leaves anonymous callers alone unless told to count them by source address (an IPv6 host by its /64); named ones count by name", () => {
  const anonymous: Identity = {
    user: "system:anonymous",
    groups: ["system:unauthenticated"],
    authenticator: "anonymous",
  };
  const settings = { rate: { perSecond: 1, burst: 1 }, maxStreams: 1 };
  const by = (fairUse: FairUse) => (who: Identity, address: string) => () =>
    fairUse.admit({ identity: who, address, transport: "http", method: "M" });
  // By default: an anonymous caller has no identity to be fair between.
  const open = new FairUse(settings, { now: () => 0 });
  for (let i = 0; i < 5; i++) by(open)(anonymous, "10.0.0.1:1000")();
  const stream = { identity: anonymous, transport: "http", method: "W" };
  open.openStream(stream);
  open.openStream(stream);
  // A token-file user named like the anonymous one is still a named caller:
  // anonymity is the authenticator's word.
  const named = { ...anonymous, authenticator: "token-file" as const };
  by(open)(named, "10.0.0.1:1")();
  assert.throws(by(open)(named, "10.0.0.9:1"), /over the rate limit/);

  const fairUse = new FairUse({ ...settings, anonymous: true }, {
    now: () => 0,
  });
  const call = by(fairUse);
  call(anonymous, "10.0.0.1:1000")();
  assert.throws(call(anonymous, "10.0.0.1:2000"), /over the rate limit/);
  call(anonymous, "10.0.0.2:1000")();
  call(anonymous, "[fd00:1:2:3::1]:1")();
  assert.throws(call(anonymous, "[fd00:1:2:3::99]:1"), /over the rate limit/);
  // A named caller is one caller from any address.
  call(identity("alice"), "10.0.0.3:1")();
  assert.throws(call(identity("alice"), "10.0.0.4:1"), /over the rate limit/);
});

Deno.test("the policy's rateLimits: is read with its groups, qps and burst (twice qps by default)", () => {
  const { rules, rateLimits } = parsePolicyDocument(`${POLICY}
rateLimits:
  - groups: ["batch", "ci"]
    qps: 20
    burst: 50
  - groups: ["interns"]
    qps: 0.5
`);
  assert.equal(rules.length, 4);
  assert.deepEqual(rateLimits, [
    { groups: ["batch", "ci"], perSecond: 20, burst: 50 },
    { groups: ["interns"], perSecond: 0.5, burst: 1 },
  ]);
  assert.equal(parsePolicy(POLICY).length, 4, "a policy without the section");
});

Deno.test("a policy file's rateLimits: are re-read with it; a bad change keeps the ones in force", async () => {
  const dir = await Deno.makeTempDir({ prefix: "corral-rate-limits-" });
  const path = `${dir}/policy.yaml`;
  const limits = (qps: string) =>
    `${POLICY}rateLimits:\n  - {groups: [admins], qps: ${qps}}\n`;
  await Deno.writeTextFile(path, limits("10"));
  const policy = await policyFile({ path, log: silentLogger() });
  try {
    assert.deepEqual(policy.rateLimits(), [
      { groups: ["admins"], perSecond: 10, burst: 20 },
    ]);
    await Deno.writeTextFile(path, limits("30"));
    assert.equal(await policy.reload(), true);
    assert.equal(policy.rateLimits()[0].perSecond, 30);
    await Deno.writeTextFile(path, limits("-1"));
    assert.equal(await policy.reload(), false);
    assert.equal(policy.rateLimits()[0].perSecond, 30);
  } finally {
    await policy.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a bad rateLimits: entry is refused naming it and its field", async (t) => {
  const cases: [string, string[]][] = [
    ["rateLimits: {groups: [a]}", ["rateLimits: must be a list"]],
    ["rateLimits: [{qps: 1}]", ["rateLimits[0].groups: must be a non-empty"]],
    [
      "rateLimits:\n  - {groups: [a], qps: 1}\n  - {groups: [b], qps: -1}",
      ["rateLimits[1].qps: must be a number of 0 or more"],
    ],
    [
      'rateLimits: [{groups: [a], qps: "fast", burst: 0.5}]',
      [
        "rateLimits[0].qps: must be a number",
        "rateLimits[0].burst: must be a whole number of 1 or more",
      ],
    ],
    [
      "rateLimits: [{groups: [a], qps: 1, users: [alice]}]",
      ["rateLimits[0].users: unknown key"],
    ],
    ["rateLimits: [7]", ["rateLimits[0]: must be a mapping"]],
  ];
  for (const [section, wants] of cases) {
    await t.step(section, () => {
      assert.throws(
        () => parsePolicy(`${POLICY}${section}\n`),
        (error: PolicyError) => {
          for (const want of wants) {
            assert.ok(error.message.includes(want), `${error.message}`);
          }
          return true;
        },
      );
    });
  }
  await t.step("each problem names the line of the file it is on", () => {
    const text = `${POLICY}rateLimits:
  - {groups: [a], qps: 1}
  - groups: [b]
    qps: -1
`;
    const qpsLine = text.split("\n").indexOf("    qps: -1") + 1;
    assert.throws(() => parsePolicy(text), (error: PolicyError) => {
      assert.deepEqual(error.violations, [{
        field: "rateLimits[1].qps",
        description:
          `must be a number of 0 or more (0: no limit) (line ${qpsLine})`,
      }]);
      return true;
    });
  });
  const problems: string[] = [];
  rateLimitsOf([{ groups: ["a"], qps: 1 }], (field) => problems.push(field));
  assert.deepEqual(problems, []);
});

Deno.test("--rate-limit, --rate-limit-burst and --max-watches-per-user are read, and bad values refused naming the flag", () => {
  const invocation = parseSettings([
    "--orchestrator=embedded",
    "--rate-limit=7",
    "--rate-limit-burst=9",
    "--max-watches-per-user=3",
    "--rate-limit-anonymous",
  ], {});
  assert.equal(invocation.kind, "run");
  if (invocation.kind !== "run") return;
  assert.deepEqual(invocation.settings.fairUse, {
    rate: { perSecond: 7, burst: 9 },
    maxStreams: 3,
    anonymous: true,
  });
  const bad = parseSettings([
    "--orchestrator=embedded",
    "--rate-limit=-1",
    "--rate-limit-burst=0",
  ], { CORRAL_MAX_WATCHES_PER_USER: "many" });
  assert.equal(bad.kind, "invalid");
  const text = JSON.stringify(bad);
  for (
    const want of [
      "--rate-limit must be a whole number",
      "--rate-limit-burst must be a whole number from 1",
      "--max-watches-per-user (from CORRAL_MAX_WATCHES_PER_USER) must be",
    ]
  ) assert.ok(text.includes(want), `${want} in ${text}`);
});
