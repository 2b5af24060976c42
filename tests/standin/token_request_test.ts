import assert from "node:assert/strict";
import {
  assertStatus,
  configMap,
  create,
  RFC3339_SECONDS,
  send,
  UUID,
} from "./requests.ts";
import { hasKubectl, kubectlIn, withKubeconfig } from "./kubectl.ts";
import { withStandin } from "./with_standin.ts";

const SA = "/api/v1/namespaces/team-a/serviceaccounts";
const REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews";
const START = Date.parse("2025-06-01T12:00:00Z");

function tokenRequest(spec: Record<string, unknown> = {}) {
  return {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec,
  };
}

/** Hex to bytes, spaces ignored. */
function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  const digits = hex.replaceAll(/\s+/g, "");
  return Uint8Array.from(
    { length: digits.length / 2 },
    (_, i) => parseInt(digits.slice(2 * i, 2 * i + 2), 16),
  );
}

// ---------------------------------------------------------------------------
// ServiceAccounts

Deno.test("stand-in gives every namespace its default ServiceAccount, as the serviceaccounts controller does", async () => {
  await withStandin(async (standin) => {
    for (const namespace of ["default", "kube-system"]) {
      const got = await send(
        standin,
        "GET",
        `/api/v1/namespaces/${namespace}/serviceaccounts/default`,
      );
      assert.equal(got.status, 200, got.text);
      assert.equal(got.body.kind, "ServiceAccount");
      assert.match(got.body.metadata.uid, UUID);
    }
    // team-a appears with its first object, and its account with it.
    await create(
      standin,
      "/api/v1/namespaces/team-a/configmaps",
      configMap("x"),
    );
    const list = await send(standin, "GET", SA);
    assert.deepEqual(
      list.body.items.map((i: { metadata: { name: string } }) =>
        i.metadata.name
      ),
      ["default"],
    );
  });
});

Deno.test("stand-in creates, reads, lists and deletes ServiceAccounts", async () => {
  await withStandin(async (standin) => {
    const created = await create(standin, SA, {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "dashboard" },
    });
    assert.equal(created.body.metadata.namespace, "team-a");
    const got = await send(standin, "GET", `${SA}/dashboard`);
    assert.deepEqual(got.body, created.body);
    const all = await send(standin, "GET", "/api/v1/serviceaccounts");
    assert.ok(
      all.body.items.some((i: { metadata: { name: string } }) =>
        i.metadata.name === "dashboard"
      ),
    );
    assert.equal(
      (await send(standin, "DELETE", `${SA}/dashboard`)).status,
      200,
    );
    assertStatus(await send(standin, "GET", `${SA}/dashboard`), {
      code: 404,
      reason: "NotFound",
      message: 'serviceaccounts "dashboard" not found',
    });
  });
});

// ---------------------------------------------------------------------------
// TokenRequest

Deno.test("stand-in TokenRequest issues a token for the API server's audiences, for an hour by default", async () => {
  await withStandin(async (standin) => {
    const answer = await send(
      standin,
      "POST",
      "/api/v1/namespaces/default/serviceaccounts/default/token",
      tokenRequest(),
    );
    assert.equal(answer.status, 201, answer.text);
    const { token, ...status } = answer.body.status;
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(
      { ...answer.body, status },
      {
        kind: "TokenRequest",
        apiVersion: "authentication.k8s.io/v1",
        metadata: {
          name: "default",
          namespace: "default",
          creationTimestamp: "2025-06-01T12:00:00Z",
        },
        spec: {
          audiences: ["https://kubernetes.default.svc.cluster.local"],
          expirationSeconds: 3600,
          boundObjectRef: null,
        },
        status: { expirationTimestamp: "2025-06-01T13:00:00Z" },
      },
    );
  }, { now: () => START });
});

Deno.test("stand-in TokenRequest keeps the audiences and lifetime asked for, and issues a new token each time", async () => {
  await withStandin(async (standin) => {
    const path = "/api/v1/namespaces/default/serviceaccounts/default/token";
    const body = tokenRequest({
      audiences: ["corral"],
      expirationSeconds: 600,
    });
    const first = await send(standin, "POST", path, body);
    const second = await send(standin, "POST", path, body);
    assert.equal(first.status, 201, first.text);
    assert.deepEqual(first.body.spec.audiences, ["corral"]);
    assert.equal(first.body.spec.expirationSeconds, 600);
    assert.match(first.body.status.expirationTimestamp, RFC3339_SECONDS);
    assert.notEqual(first.body.status.token, second.body.status.token);
  });
});

Deno.test("stand-in TokenRequest refuses as the real server does", async (t) => {
  await withStandin(async (standin) => {
    const cases: [
      string,
      string,
      unknown,
      Parameters<typeof assertStatus>[1],
    ][] = [
      [
        "a missing service account",
        "/api/v1/namespaces/default/serviceaccounts/nope/token",
        tokenRequest(),
        {
          code: 404,
          reason: "NotFound",
          message: 'serviceaccounts "nope" not found',
        },
      ],
      [
        "less than ten minutes",
        "/api/v1/namespaces/default/serviceaccounts/default/token",
        tokenRequest({ expirationSeconds: 60 }),
        {
          code: 422,
          reason: "Invalid",
          message:
            'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
        },
      ],
      [
        "another account's name in the body",
        "/api/v1/namespaces/default/serviceaccounts/default/token",
        { ...tokenRequest(), metadata: { name: "other" } },
        {
          code: 422,
          reason: "Invalid",
          message:
            'TokenRequest.authentication.k8s.io "default" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified',
        },
      ],
      [
        "a lifetime that is not a number",
        "/api/v1/namespaces/default/serviceaccounts/default/token",
        tokenRequest({ expirationSeconds: "1h" }),
        {
          code: 400,
          reason: "BadRequest",
          message:
            "json: cannot unmarshal string into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64",
        },
      ],
      [
        "another kind",
        "/api/v1/namespaces/default/serviceaccounts/default/token",
        { ...tokenRequest(), kind: "TokenReview" },
        {
          code: 400,
          reason: "BadRequest",
          message:
            'the object provided is unrecognized (must be of type TokenRequest): kind "TokenReview" is not "TokenRequest"',
        },
      ],
    ];
    for (const [name, path, body, want] of cases) {
      await t.step(name, async () => {
        assertStatus(await send(standin, "POST", path, body), want);
      });
    }
    await t.step("a GET (405)", async () => {
      assertStatus(
        await send(
          standin,
          "GET",
          "/api/v1/namespaces/default/serviceaccounts/default/token",
        ),
        { code: 405, reason: "MethodNotAllowed" },
      );
    });
  });
});

Deno.test("stand-in TokenRequest reads the protobuf body kubectl create token sends", async () => {
  // What kubectl v1.32 sent for
  // `kubectl create token default --audience corral --audience other --duration 15m`.
  const body = fromHex(`
    6b 38 73 00 0a 28 0a 18 61 75 74 68 65 6e 74 69 63 61 74 69 6f 6e 2e 6b
    38 73 2e 69 6f 2f 76 31 12 0c 54 6f 6b 65 6e 52 65 71 75 65 73 74 12 2c
    0a 10 0a 00 12 00 1a 00 22 00 2a 00 32 00 38 00 42 00 12 12 0a 06 63 6f
    72 72 61 6c 0a 05 6f 74 68 65 72 20 84 07 1a 04 0a 00 12 00 1a 00 22 00
  `);
  await withStandin(async (standin) => {
    const response = await fetch(
      `${standin.url}/api/v1/namespaces/default/serviceaccounts/default/token`,
      {
        method: "POST",
        headers: {
          "content-type": "application/vnd.kubernetes.protobuf",
          accept: "application/vnd.kubernetes.protobuf,application/json",
        },
        body,
      },
    );
    assert.equal(response.status, 201);
    assert.equal(response.headers.get("content-type"), "application/json");
    const answer = await response.json();
    assert.deepEqual(answer.spec, {
      audiences: ["corral", "other"],
      expirationSeconds: 900,
      boundObjectRef: null,
    });
    assert.ok(answer.status.token);
  });
});

Deno.test({
  name:
    "kubectl create token gets a token the stand-in's TokenReview authenticates",
  ignore: !hasKubectl(),
  async fn() {
    await withStandin((standin) =>
      withKubeconfig(standin.url, "standin-token-", async (kubeconfig, dir) => {
        const kubectl = kubectlIn(kubeconfig, dir);
        const resources = await kubectl("api-resources", "-o", "name");
        assert.ok(resources.split("\n").includes("serviceaccounts"));
        assert.ok(
          resources.split("\n").includes("tokenreviews.authentication.k8s.io"),
        );
        await create(standin, SA, {
          apiVersion: "v1",
          kind: "ServiceAccount",
          metadata: { name: "dashboard" },
        });
        const token = (await kubectl("create", "token", "dashboard")).trim();
        const review = await send(standin, "POST", REVIEWS, {
          apiVersion: "authentication.k8s.io/v1",
          kind: "TokenReview",
          spec: { token },
        });
        assert.equal(review.status, 201, review.text);
        assert.equal(
          review.body.status.user.username,
          "system:serviceaccount:team-a:dashboard",
        );
      })
    );
  },
});
