/**
 * Fair use (issue 27, item 4): a caller over its rate gets 429 code 8 with
 * Retry-After (gRPC RESOURCE_EXHAUSTED with RetryInfo) while another is
 * served at the same moment; a group's `rateLimits:` entry raises its
 * members' rate; a caller's open watches are capped; the metrics count by
 * group, never by user name; on both transports, against Corral with the
 * stand-in. The buckets run on a clock the test holds, so no answer
 * depends on how fast the machine is.
 */
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import type { FairUseSettings } from "../../../api/auth/rate_limit.ts";
import { Metrics } from "../../../api/metrics.ts";
import { Code } from "../../../domain/errors.ts";
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
  ROOT,
  RULES,
  type TestAccess,
} from "./access_fixtures.ts";
import { policyText } from "./policy_fixtures.ts";

const LIST = "proto.ClusterService/ListCluster";

const TEAM_A = { namespace: "team-a" };

const RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo";

/** The fixtures' policy, with admins allowed ten in a row. */
const POLICY_WITH_LIMITS = policyText(RULES, {
  rateLimits: [{ groups: ["admins"], qps: 1, burst: 10 }],
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
