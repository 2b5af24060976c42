/**
 * The TokenReview authenticator over a fake API server that answers in
 * process: its cache on a clock the test moves, its time limit on a timer
 * the test fires. Over client-node and HTTP: token_review_http_test.ts.
 */
import assert from "node:assert/strict";
import { ApiException } from "@kubernetes/client-node";
import type { V1TokenReview, V1UserInfo } from "@kubernetes/client-node";
import { Code } from "../../../domain/errors.ts";
import { AuthenticationError } from "../../../api/auth/identity.ts";
import { tokenReviewAuthenticator } from "../../../api/auth/token_review.ts";
import type {
  TokenReviewOptions,
  TokenReviewPort,
} from "../../../api/auth/token_review.ts";
import { ManualClock } from "../../manual_clock.ts";
import { recordingLogger } from "./helpers.ts";

const SA_TOKEN = "eyJhbGciOiJSUzI1NiJ9.service-account.signature";

/**
 * Answers TokenReviews as the API server does: known tokens are
 * authenticated (for the audiences they were issued for, when the review
 * names some), others are not; `fail` makes the next calls throw instead.
 */
class FakeApiServer implements TokenReviewPort {
  users = new Map<string, V1UserInfo & { audiences?: string[] }>();
  reviews: V1TokenReview[] = [];
  fail?: () => unknown;

  createTokenReview(
    param: { body: V1TokenReview },
  ): Promise<V1TokenReview> {
    this.reviews.push(structuredClone(param.body));
    if (this.fail) return Promise.reject(this.fail());
    const spec = param.body.spec;
    const user = this.users.get(spec.token ?? "");
    const tokenAudiences = user?.audiences ??
      ["https://kubernetes.default.svc"];
    const wanted = spec.audiences ?? tokenAudiences;
    const audiences = wanted.filter((a) => tokenAudiences.includes(a));
    const status = user && audiences.length > 0
      ? {
        authenticated: true,
        audiences,
        user: { username: user.username, uid: user.uid, groups: user.groups },
      }
      : { authenticated: false, error: "[invalid bearer token]" };
    return Promise.resolve({ ...param.body, status });
  }
}

function setUp(options: Partial<TokenReviewOptions> = {}) {
  const api = new FakeApiServer();
  api.users.set(SA_TOKEN, {
    username: "system:serviceaccount:team-a:dashboard",
    uid: "5f0c",
    groups: ["system:serviceaccounts", "system:serviceaccounts:team-a"],
  });
  const clock = new ManualClock(1_000_000);
  const log = recordingLogger();
  const auth = tokenReviewAuthenticator({
    api,
    log,
    now: clock.now,
    timer: clock.timeoutSignal,
    ...options,
  });
  return {
    api,
    auth,
    log,
    advance: (ms: number) => clock.advance(ms),
  };
}

Deno.test("tokenReviewAuthenticator() takes the user the API server names", async () => {
  const { api, auth } = setUp();
  assert.deepEqual(await auth.authenticate(SA_TOKEN), {
    user: "system:serviceaccount:team-a:dashboard",
    uid: "5f0c",
    groups: ["system:serviceaccounts", "system:serviceaccounts:team-a"],
    authenticator: "token-review",
  });
  assert.deepEqual(api.reviews, [{
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenReview",
    spec: { token: SA_TOKEN },
  }]);
});

Deno.test("tokenReviewAuthenticator() leaves a token the API server does not know to the chain", async () => {
  const { auth, log } = setUp();
  assert.equal(await auth.authenticate("not-a-known-token"), undefined);
  assert.ok(!JSON.stringify(log.lines).includes("not-a-known-token"));
});

Deno.test("tokenReviewAuthenticator() asks for its audiences and refuses a token for none of them", async () => {
  const { api, auth } = setUp({ audiences: ["corral"] });
  api.users.set("for-corral", { username: "alice", audiences: ["corral"] });
  assert.equal((await auth.authenticate("for-corral"))?.user, "alice");
  // The fake answers as the API server does: not authenticated for a token
  // of other audiences.
  assert.equal(await auth.authenticate(SA_TOKEN), undefined);
  assert.deepEqual(api.reviews.map((r) => r.spec.audiences), [
    ["corral"],
    ["corral"],
  ]);
});

Deno.test("tokenReviewAuthenticator() refuses answers it cannot trust", async (t) => {
  const cases: [string, V1TokenReview["status"], RegExp][] = [
    [
      "no user name",
      { authenticated: true, user: { groups: ["x"] } },
      /names no user/,
    ],
    ["no user", { authenticated: true }, /names no user/],
    [
      "audiences other than asked",
      {
        authenticated: true,
        audiences: ["other"],
        user: { username: "alice" },
      },
      /not for this service/,
    ],
    [
      "no audiences when asked",
      { authenticated: true, user: { username: "alice" } },
      /not for this service/,
    ],
  ];
  for (const [name, status, message] of cases) {
    await t.step(name, async () => {
      const auth = tokenReviewAuthenticator({
        api: {
          createTokenReview: (p) => Promise.resolve({ ...p.body, status }),
        },
        audiences: ["corral"],
        timer: new ManualClock().timeoutSignal,
        log: recordingLogger(),
      });
      await assert.rejects(
        auth.authenticate(SA_TOKEN),
        (error: AuthenticationError) => {
          assert.equal(error.code, Code.UNAUTHENTICATED);
          assert.equal(error.reason, "invalid-token");
          assert.match(error.message, message);
          return true;
        },
      );
    });
  }
});

Deno.test("tokenReviewAuthenticator() answers UNAVAILABLE when the review fails", async (t) => {
  const cases: [string, () => unknown, RegExp][] = [
    [
      "403: Corral may not create TokenReviews",
      () =>
        new ApiException(403, "Forbidden", { reason: "Forbidden" }, {
          authorization: "Bearer corral-service-account-token",
        }),
      /did not review the token/,
    ],
    [
      "500",
      () => new ApiException(500, "Internal", {}, {}),
      /did not review the token/,
    ],
    [
      "network",
      () => new TypeError("fetch failed"),
      /did not review the token/,
    ],
  ];
  for (const [name, fail, message] of cases) {
    await t.step(name, async () => {
      const { api, auth, log } = setUp();
      api.fail = fail;
      await assert.rejects(
        auth.authenticate(SA_TOKEN),
        (error: AuthenticationError) => {
          assert.ok(error instanceof AuthenticationError);
          assert.equal(error.code, Code.UNAVAILABLE);
          assert.equal(error.reason, "unavailable");
          assert.match(error.message, message);
          assert.ok(!error.message.includes(SA_TOKEN));
          assert.ok(!error.message.includes("corral-service-account-token"));
          return true;
        },
      );
      const logged = JSON.stringify(log.lines);
      assert.ok(!logged.includes(SA_TOKEN), logged);
      assert.ok(!logged.includes("corral-service-account-token"), logged);
    });
  }
  await t.step("a call that does not answer in time", async () => {
    const clock = new ManualClock();
    const auth = tokenReviewAuthenticator({
      api: { createTokenReview: () => new Promise(() => {}) },
      timeoutMs: 50,
      timer: clock.timeoutSignal,
      log: recordingLogger(),
    });
    let settled = false;
    const pending = auth.authenticate(SA_TOKEN).finally(() => settled = true);
    clock.advance(49);
    await Promise.resolve();
    assert.equal(settled, false, "not before timeoutMs");
    clock.advance(1);
    await assert.rejects(
      pending,
      (error: AuthenticationError) => {
        assert.equal(error.code, Code.UNAVAILABLE);
        assert.match(error.message, /did not answer in time/);
        return true;
      },
    );
  });
  await t.step("the caller cancels", async () => {
    const auth = tokenReviewAuthenticator({
      api: { createTokenReview: () => new Promise(() => {}) },
      timer: new ManualClock().timeoutSignal,
      log: recordingLogger(),
    });
    const controller = new AbortController();
    const pending = auth.authenticate(SA_TOKEN, controller.signal);
    controller.abort();
    await assert.rejects(pending, /the request was cancelled/);
  });
});

Deno.test("tokenReviewAuthenticator() reuses a positive answer for its TTL, and only that", async () => {
  const { api, auth, advance } = setUp({ cacheTtlMs: 10_000 });
  for (let i = 0; i < 5; i++) {
    assert.equal(
      (await auth.authenticate(SA_TOKEN))?.user,
      "system:serviceaccount:team-a:dashboard",
    );
    advance(1_000);
  }
  assert.equal(api.reviews.length, 1);
  advance(5_001);
  await auth.authenticate(SA_TOKEN);
  assert.equal(api.reviews.length, 2, "asked again after the TTL");

  // A revoked token is taken for at most the TTL.
  api.users.delete(SA_TOKEN);
  assert.ok(await auth.authenticate(SA_TOKEN));
  advance(10_000);
  assert.equal(await auth.authenticate(SA_TOKEN), undefined);

  // Negative answers are not cached.
  const before = api.reviews.length;
  await auth.authenticate("unknown");
  await auth.authenticate("unknown");
  assert.equal(api.reviews.length, before + 2);
});

Deno.test("tokenReviewAuthenticator() keeps its cache bounded and its entries apart", async () => {
  const { api, auth } = setUp({ cacheSize: 2 });
  for (const name of ["a", "b", "c"]) {
    api.users.set(`token-${name}`, { username: name, groups: [] });
    assert.equal((await auth.authenticate(`token-${name}`))?.user, name);
  }
  const asked = api.reviews.length;
  await auth.authenticate("token-c");
  await auth.authenticate("token-b");
  assert.equal(api.reviews.length, asked, "the newest two are cached");
  await auth.authenticate("token-a");
  assert.equal(api.reviews.length, asked + 1, "the oldest was dropped");

  // A caller changing what it got does not change the cache.
  const got = await auth.authenticate("token-b");
  got!.groups.push("system:masters");
  assert.deepEqual((await auth.authenticate("token-b"))?.groups, []);
});

Deno.test("tokenReviewAuthenticator() with a TTL of 0 asks every time", async () => {
  const { api, auth } = setUp({ cacheTtlMs: 0 });
  await auth.authenticate(SA_TOKEN);
  await auth.authenticate(SA_TOKEN);
  assert.equal(api.reviews.length, 2);
});
