/**
 * Fair use (issue 27, item 4): a caller over its rate gets 429 code 8 with
 * Retry-After (gRPC RESOURCE_EXHAUSTED with RetryInfo) while another is
 * served at the same moment; a group's `rateLimits:` entry raises its
 * members' rate; a caller's open watches are capped; the metrics count by
 * group, never by user name. The buckets run on a clock the test holds, so
 * no answer depends on how fast the machine is.
 */
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import type { Identity } from "../../../api/auth/identity.ts";
import {
  FairUse,
  type FairUseSettings,
  rateLimitsOf,
} from "../../../api/auth/rate_limit.ts";
import {
  parsePolicy,
  parsePolicyDocument,
  PolicyError,
  policyFile,
} from "../../../api/auth/policy.ts";
import { silentLogger } from "../../../api/log.ts";
import { Metrics } from "../../../api/metrics.ts";
import { Code } from "../../../domain/errors.ts";
import { parseSettings } from "../../../settings.ts";
import { until } from "../../eventually.ts";
import { type Corral, startCorral, TRANSPORTS } from "../../harness.ts";
import { RAY_CRD } from "../../orchestrator/cluster_shapes.ts";
import { type OpenWatch, WATCH_TRANSPORTS } from "../stream_watchers.ts";
import {
  ALICE,
  bearer,
  BOB,
  CAROL,
  fileAccess,
  POLICY,
  ROOT,
  type TestAccess,
} from "./access_fixtures.ts";

const LIST = "proto.ClusterService/ListCluster";
const TEAM_A = { namespace: "team-a" };
const RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo";

/** The fixtures' policy, with admins allowed ten in a row. */
const POLICY_WITH_LIMITS = `${POLICY}
rateLimits:
  - groups: ["admins"]
    qps: 1
    burst: 10
`;

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

/** A Corral with the fixtures' people, fair use on the clock `now`. */
async function fairCorral(
  settings: FairUseSettings,
  options: { policy?: string; watch?: boolean } = {},
) {
  const access: TestAccess = await fileAccess({ policy: options.policy });
  const metrics = new Metrics();
  const clock = { now: 0 };
  let corral: Corral;
  try {
    corral = await startCorral({
      access: access.access,
      metrics,
      fairUse: settings,
      fairUseNow: () => clock.now,
      ...(options.watch ? { crds: [RAY_CRD], cache: {} } : {}),
    });
  } catch (error) {
    await access.close();
    throw error;
  }
  return {
    corral,
    metrics,
    clock,
    async [Symbol.asyncDispose]() {
      await corral.close();
      await access.close();
    },
  };
}

Deno.test("a caller over its rate gets 429 code 8 with Retry-After, on both transports, while another is served", async (t) => {
  await using c = await fairCorral({
    rate: { perSecond: 1, burst: 2 },
    maxStreams: 0,
  });
  for (const [transport, via] of TRANSPORTS) {
    await t.step(transport, async () => {
      c.clock.now += 60_000; // every bucket full again
      const alice = { authorization: bearer(ALICE) };
      const carol = { authorization: bearer(CAROL) };
      for (let i = 0; i < 2; i++) {
        const got = await via(c.corral, LIST, TEAM_A, alice);
        assert.equal(got.code, Code.OK, got.message);
      }
      const over = await via(c.corral, LIST, TEAM_A, alice);
      assert.equal(over.code, Code.RESOURCE_EXHAUSTED, over.message);
      assert.equal(
        over.message,
        "Cannot call ListCluster: over the rate limit of 1 requests per second (bursts of 2); try again in 1s",
      );
      assert.equal(
        (over.details[0] as { "@type": string })["@type"],
        RETRY_INFO,
      );
      const other = await via(c.corral, LIST, TEAM_A, carol);
      assert.equal(other.code, Code.OK, "carol, at the same moment");
      c.clock.now += 1_000;
      const later = await via(c.corral, LIST, TEAM_A, alice);
      assert.equal(later.code, Code.OK, "alice, a second later");
    });
  }
  await t.step(
    "HTTP: the 429 carries Retry-After in whole seconds",
    async () => {
      c.clock.now += 60_000;
      const request = () =>
        c.corral.gateway(
          new Request(
            "http://corral.test/apis/v1alpha2/namespaces/team-a/clusters",
            {
              headers: { authorization: bearer(ALICE) },
            },
          ),
        );
      for (let i = 0; i < 2; i++) await (await request()).body?.cancel();
      const over = await request();
      assert.equal(over.status, 429);
      assert.equal(over.headers.get("retry-after"), "1");
      const body = await over.json();
      assert.equal(body.code, Code.RESOURCE_EXHAUSTED);
      assert.deepEqual(body.details, [{
        "@type": RETRY_INFO,
        retryDelay: "1s",
      }]);
    },
  );
  await t.step("gRPC: RESOURCE_EXHAUSTED with RetryInfo of 1 s", async () => {
    c.clock.now += 60_000;
    for (let i = 0; i < 2; i++) await grpcList(c.corral, bearer(ALICE));
    const error = await grpcList(c.corral, bearer(ALICE));
    assert.equal(error?.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.deepEqual(retryDelayOf(c.corral, error!), { seconds: 1 });
  });
  await t.step("one bucket across both transports", async () => {
    c.clock.now += 60_000;
    const alice = { authorization: bearer(ALICE) };
    const [[, http], [, viaGrpc]] = TRANSPORTS;
    assert.equal((await http(c.corral, LIST, TEAM_A, alice)).code, Code.OK);
    assert.equal((await viaGrpc(c.corral, LIST, TEAM_A, alice)).code, Code.OK);
    const third = await http(c.corral, LIST, TEAM_A, alice);
    assert.equal(third.code, Code.RESOURCE_EXHAUSTED);
  });
});

Deno.test("a group's rateLimits: entry raises its members' rate, on both transports", async (t) => {
  await using c = await fairCorral({
    rate: { perSecond: 1, burst: 2 },
    maxStreams: 0,
  }, { policy: POLICY_WITH_LIMITS });
  for (const [transport, via] of TRANSPORTS) {
    await t.step(transport, async () => {
      c.clock.now += 60_000;
      const root = { authorization: bearer(ROOT) };
      const alice = { authorization: bearer(ALICE) };
      for (let i = 0; i < 10; i++) {
        const got = await via(c.corral, LIST, TEAM_A, root);
        assert.equal(got.code, Code.OK, `root's call ${i + 1}: ${got.message}`);
      }
      const eleventh = await via(c.corral, LIST, TEAM_A, root);
      assert.equal(eleventh.code, Code.RESOURCE_EXHAUSTED);
      assert.match(
        eleventh.message,
        /limit of 1 requests per second \(bursts of 10\)/,
      );
      const codes = [];
      for (let i = 0; i < 3; i++) {
        codes.push((await via(c.corral, LIST, TEAM_A, alice)).code);
      }
      assert.deepEqual(codes, [0, 0, 8], "alice keeps the default");
    });
  }
});

Deno.test("a caller's open watches are capped on every transport; others may watch, and an ended watch frees its place", async () => {
  await using c = await fairCorral({
    rate: { perSecond: 0, burst: 1 },
    maxStreams: 2,
  }, { watch: true });
  const watches: OpenWatch[] = [];
  try {
    const [[, grpcOpen], [, ndjsonOpen], [, sseOpen]] = WATCH_TRANSPORTS;
    const alice = bearer(ALICE);
    watches.push(await grpcOpen(c.corral, TEAM_A, alice));
    watches.push(await ndjsonOpen(c.corral, TEAM_A, alice));
    await until("alice's two watches to be open", () => opened(c, 2));
    for (const [transport, open] of WATCH_TRANSPORTS) {
      const third = await open(c.corral, TEAM_A, alice);
      watches.push(third);
      const ended = await third.ended;
      assert.equal(ended.code, Code.RESOURCE_EXHAUSTED, transport);
      assert.equal(
        ended.message,
        "Cannot open WatchClusters: 2 streams are open already, the most one caller may have (--max-watches-per-user 2); end one first",
        transport,
      );
    }
    const bob = await sseOpen(c.corral, { namespace: "team-b" }, bearer(BOB));
    watches.push(bob);
    await until("bob's watch to be open", () => opened(c, 3));
    watches[0].close();
    await until("alice's gRPC watch to be released", () => opened(c, 2));
    const again = await ndjsonOpen(c.corral, TEAM_A, alice);
    watches.push(again);
    await until("alice's new watch to be open", () => opened(c, 3));
    const text = await c.metrics.render();
    assert.match(text, /corral_open_streams\{group="team-b"\} 1/);
    assert.match(text, /corral_open_streams\{group="system:authenticated"\} 2/);
    assert.match(
      text,
      /corral_stream_limited_total\{group="system:authenticated",transport="grpc"\} 1/,
    );
  } finally {
    for (const watch of watches) watch.close();
    await Promise.all(watches.map((watch) => watch.ended));
  }
});

Deno.test("corral_rate_limited_total counts by the caller's first group and transport, never by user name", async () => {
  await using c = await fairCorral({
    rate: { perSecond: 1, burst: 1 },
    maxStreams: 0,
  }, { policy: POLICY_WITH_LIMITS });
  const [[, http], [, viaGrpc]] = TRANSPORTS;
  const bob = { authorization: bearer(BOB) };
  await http(c.corral, LIST, TEAM_A, bob);
  await http(c.corral, LIST, TEAM_A, bob);
  await viaGrpc(c.corral, LIST, TEAM_A, bob);
  await http(c.corral, LIST, TEAM_A, { authorization: bearer(ALICE) });
  await http(c.corral, LIST, TEAM_A, { authorization: bearer(ALICE) });
  const lines = (await c.metrics.render()).split("\n")
    .filter((line) => line.startsWith("corral_rate_limited_total{"));
  assert.deepEqual(lines.sort(), [
    'corral_rate_limited_total{group="system:authenticated",transport="http"} 1',
    'corral_rate_limited_total{group="team-b",transport="grpc"} 1',
    'corral_rate_limited_total{group="team-b",transport="http"} 1',
  ]);
  assert.ok(!lines.some((line) => /alice|bob/.test(line)), `${lines}`);
});

/** Alice's and bob's open streams, as the gauge counts them. */
async function opened(
  c: { metrics: Metrics },
  want: number,
): Promise<boolean> {
  const metric = await c.metrics.openStreams.get();
  return metric.values.reduce((sum, v) => sum + v.value, 0) === want;
}

/** ListCluster in team-a over gRPC; the error, if any. */
function grpcList(
  corral: Corral,
  authorization: string,
): Promise<grpc.ServiceError | undefined> {
  const root = corral.schema.root;
  const Request = root.lookupType("proto.ListClustersRequest");
  const client = new grpc.Client(
    corral.grpcAddress!,
    grpc.credentials.createInsecure(),
  );
  const metadata = new grpc.Metadata();
  metadata.set("authorization", authorization);
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      `/${LIST}`,
      (message: object) =>
        Buffer.from(Request.encode(Request.fromObject(message)).finish()),
      (bytes: Buffer) => bytes,
      TEAM_A,
      metadata,
      (error: grpc.ServiceError | null) => {
        client.close();
        resolve(error ?? undefined);
      },
    );
  });
}

/** The RetryInfo delay of a gRPC error's google.rpc.Status details. */
function retryDelayOf(
  corral: Corral,
  error: grpc.ServiceError,
): { seconds: number } | undefined {
  const root = corral.schema.root;
  const Status = root.lookupType("google.rpc.Status");
  const RetryInfo = root.lookupType("google.rpc.RetryInfo");
  const bin = error.metadata.get("grpc-status-details-bin")[0] as Buffer;
  const status = Status.decode(bin) as unknown as {
    details: { type_url: string; value: Uint8Array }[];
  };
  const any = status.details.find((d) => d.type_url === RETRY_INFO);
  if (!any) return undefined;
  const info = RetryInfo.toObject(RetryInfo.decode(any.value), {
    longs: Number,
  }) as { retryDelay: { seconds: number } };
  return { seconds: info.retryDelay.seconds };
}
