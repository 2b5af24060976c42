import assert from "node:assert/strict";
import { KubeConfig } from "@kubernetes/client-node";
import { tokenReviewAuthenticator } from "../../api/auth/token_review.ts";
import { kubeconfigFor, type Standin } from "../../standin/mod.ts";
import { tokenReviewClient } from "../../orchestrator/token_review.ts";
import { recordingLogger } from "../api/auth/helpers.ts";
import { assertStatus, create, send } from "./requests.ts";
import { withStandin } from "./with_standin.ts";

const REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews";
const SA = "/api/v1/namespaces/team-a/serviceaccounts";
const HOUR = 3_600_000;

/** A stand-in whose token clock the test moves. */
async function withClock(
  fn: (standin: Standin, advance: (ms: number) => void) => Promise<void>,
): Promise<void> {
  let clock = Date.parse("2025-06-01T12:00:00Z");
  await withStandin(
    (standin) => fn(standin, (ms) => clock += ms),
    { now: () => clock },
  );
}

async function createAccount(standin: Standin, name: string) {
  return (await create(standin, SA, {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name },
  })).body;
}

async function issue(
  standin: Standin,
  name: string,
  spec: Record<string, unknown> = {},
): Promise<string> {
  const answer = await send(standin, "POST", `${SA}/${name}/token`, {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec,
  });
  assert.equal(answer.status, 201, answer.text);
  return answer.body.status.token;
}

async function review(
  standin: Standin,
  token: string,
  audiences?: string[],
) {
  const answer = await send(standin, "POST", REVIEWS, {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenReview",
    spec: { token, ...(audiences ? { audiences } : {}) },
  });
  assert.equal(answer.status, 201, answer.text);
  return answer.body;
}

Deno.test("stand-in TokenReview authenticates an issued token as its service account", async () => {
  await withClock(async (standin) => {
    const account = await createAccount(standin, "dashboard");
    const token = await issue(standin, "dashboard");
    const answer = await review(standin, token);
    const extra = answer.status.user.extra;
    assert.match(
      extra["authentication.kubernetes.io/credential-id"][0],
      /^JTI=[0-9a-f-]{36}$/,
    );
    assert.deepEqual(answer, {
      kind: "TokenReview",
      apiVersion: "authentication.k8s.io/v1",
      metadata: { creationTimestamp: null },
      spec: { token },
      status: {
        authenticated: true,
        user: {
          username: "system:serviceaccount:team-a:dashboard",
          uid: account.metadata.uid,
          groups: [
            "system:serviceaccounts",
            "system:serviceaccounts:team-a",
            "system:authenticated",
          ],
          extra,
        },
        audiences: ["https://kubernetes.default.svc.cluster.local"],
      },
    });
  });
});

Deno.test("stand-in TokenReview does not authenticate a token it cannot vouch for", async (t) => {
  await withClock(async (standin, advance) => {
    await createAccount(standin, "dashboard");
    // Each case: its token, and the error the review answers.
    const cases: [string, () => Promise<[string, string]>][] = [
      [
        "a made-up token",
        () => Promise.resolve(["made-up", "invalid bearer token"]),
      ],
      [
        "an expired token (past its expiry and the minute of leeway)",
        async () => {
          const token = await issue(standin, "dashboard", {
            expirationSeconds: 600,
          });
          advance(600_000 + 60_000 + 1);
          return [
            token,
            "[invalid bearer token, service account token has expired]",
          ];
        },
      ],
      [
        "the token of a deleted service account",
        async () => {
          await createAccount(standin, "gone");
          const token = await issue(standin, "gone");
          await send(standin, "DELETE", `${SA}/gone`);
          return [
            token,
            '[invalid bearer token, serviceaccounts "gone" not found]',
          ];
        },
      ],
      [
        "the token of a service account deleted and created again",
        async () => {
          const old = await createAccount(standin, "again");
          const token = await issue(standin, "again");
          await send(standin, "DELETE", `${SA}/again`);
          const now = await createAccount(standin, "again");
          return [
            token,
            `[invalid bearer token, service account UID (${now.metadata.uid}) does not match claim (${old.metadata.uid})]`,
          ];
        },
      ],
    ];
    for (const [name, setUp] of cases) {
      await t.step(name, async () => {
        const [token, error] = await setUp();
        // authenticated: false is omitted, as Go's omitempty does.
        assert.deepEqual((await review(standin, token)).status, {
          user: {},
          error,
        });
      });
    }
  });
});

Deno.test("stand-in TokenReview takes a token only for audiences it was issued for", async () => {
  await withClock(async (standin) => {
    await createAccount(standin, "dashboard");
    const token = await issue(standin, "dashboard", {
      audiences: ["corral", "grafana"],
    });
    const both = await review(standin, token, ["other", "corral"]);
    assert.equal(both.status.authenticated, true);
    assert.deepEqual(both.status.audiences, ["corral"]);
    // No audiences in the review: the API server's own, which the token
    // was not issued for.
    assert.deepEqual((await review(standin, token)).status, {
      user: {},
      error:
        '[invalid bearer token, token audiences ["corral" "grafana"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]]',
    });
  });
});

Deno.test("stand-in TokenReview is cluster-scoped and create only", async (t) => {
  await withStandin(async (standin) => {
    await t.step("no token (400)", async () => {
      assertStatus(
        await send(standin, "POST", REVIEWS, {
          apiVersion: "authentication.k8s.io/v1",
          kind: "TokenReview",
          spec: {},
        }),
        {
          code: 400,
          reason: "BadRequest",
          message: "token is required for TokenReview in authentication",
        },
      );
    });
    await t.step("a list (405)", async () => {
      assertStatus(await send(standin, "GET", REVIEWS), {
        code: 405,
        reason: "MethodNotAllowed",
      });
    });
    await t.step("a namespaced path (404)", async () => {
      assertStatus(
        await send(
          standin,
          "POST",
          "/apis/authentication.k8s.io/v1/namespaces/team-a/tokenreviews",
          { spec: { token: "x" } },
        ),
        { code: 404, reason: "NotFound" },
      );
    });
    await t.step("discovery lists create alone", async () => {
      const list = await send(standin, "GET", "/apis/authentication.k8s.io/v1");
      assert.deepEqual(list.body.resources, [{
        name: "tokenreviews",
        singularName: "tokenreview",
        namespaced: false,
        kind: "TokenReview",
        verbs: ["create"],
      }]);
      const core = await send(standin, "GET", "/api/v1");
      assert.deepEqual(
        core.body.resources.find((r: { name: string }) =>
          r.name === "serviceaccounts/token"
        ),
        {
          name: "serviceaccounts/token",
          singularName: "",
          namespaced: true,
          group: "authentication.k8s.io",
          version: "v1",
          kind: "TokenRequest",
          verbs: ["create"],
        },
      );
    });
  });
});

Deno.test("tokenReviewAuthenticator() through tokenReviewClient() against the stand-in: issued tokens only", async () => {
  await withClock(async (standin, advance) => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(kubeconfigFor(standin.url));
    const auth = tokenReviewAuthenticator({
      api: tokenReviewClient(kubeConfig),
      log: recordingLogger(),
      cacheTtlMs: 0,
    });
    try {
      const account = await createAccount(standin, "dashboard");
      await createAccount(standin, "gone");
      const token = await issue(standin, "dashboard");
      const short = await issue(standin, "dashboard", {
        expirationSeconds: 600,
      });
      const deleted = await issue(standin, "gone");
      await send(standin, "DELETE", `${SA}/gone`);

      assert.deepEqual(await auth.authenticate(token), {
        user: "system:serviceaccount:team-a:dashboard",
        uid: account.metadata.uid,
        groups: [
          "system:serviceaccounts",
          "system:serviceaccounts:team-a",
          "system:authenticated",
        ],
        authenticator: "token-review",
      });
      assert.equal(await auth.authenticate("made-up"), undefined);
      assert.equal(await auth.authenticate(deleted), undefined);
      advance(HOUR / 2);
      assert.equal(await auth.authenticate(short), undefined, "expired");
      assert.equal(
        (await auth.authenticate(token))?.user,
        "system:serviceaccount:team-a:dashboard",
        "still within its hour",
      );
    } finally {
      await auth.close?.();
    }
  });
});
