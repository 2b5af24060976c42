import assert from "node:assert/strict";
import { Code, ServiceError } from "../../../domain/errors.ts";
import {
  anonymousIdentity,
  bearerToken,
  createAuthenticator,
} from "../../../api/auth/authenticate.ts";
import {
  AUTHENTICATED_GROUP,
  AuthenticationError,
} from "../../../api/auth/identity.ts";
import type {
  Authenticator,
  AuthenticatorName,
  Identity,
} from "../../../api/auth/identity.ts";
import { tokenFileAuthenticator } from "../../../api/auth/token_file.ts";
import { tokenReviewAuthenticator } from "../../../api/auth/token_review.ts";
import { recordingLogger } from "./helpers.ts";

/** An authenticator that knows some tokens, or throws, and counts calls. */
function fake(
  name: AuthenticatorName,
  known: Record<string, string | (() => never)>,
) {
  const calls: string[] = [];
  let closed = false;
  const authenticator: Authenticator = {
    name,
    authenticate(token) {
      calls.push(token);
      const entry = known[token];
      if (typeof entry === "function") return Promise.resolve().then(entry);
      return Promise.resolve(
        entry === undefined
          ? undefined
          : { user: entry, groups: ["team"], authenticator: name },
      );
    },
    close() {
      closed = true;
    },
  };
  return { authenticator, calls, closed: () => closed };
}

async function failure(
  promise: Promise<Identity>,
): Promise<AuthenticationError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof AuthenticationError, `got ${error}`);
    return error;
  }
  throw new Error("authenticate() did not fail");
}

const TOKEN = "abc.DEF-ghi_jkl~mno+pqr/stu==";

Deno.test("bearerToken() takes exactly `Bearer <b64token>`", async (t) => {
  const accepted: [string, string][] = [
    [`Bearer ${TOKEN}`, TOKEN],
    [`bearer ${TOKEN}`, TOKEN],
    [`BEARER ${TOKEN}`, TOKEN],
    ["Bearer x", "x"],
    ["Bearer abc=", "abc="],
  ];
  for (const [header, want] of accepted) {
    await t.step(`accepts ${JSON.stringify(header)}`, () => {
      assert.equal(bearerToken(header), want);
    });
  }
  const refused = [
    "",
    "Bearer",
    "Bearer ",
    `Bearer  ${TOKEN}`,
    ` Bearer ${TOKEN}`,
    `Bearer ${TOKEN} `,
    `Bearer\t${TOKEN}`,
    `Bearer ${TOKEN}\n`,
    `Bearer ${TOKEN} extra`,
    "Bearer abc=def",
    "Bearer =abc",
    "Bearer a,b",
    'Bearer a"b',
    "Bearer tokén",
    `Basic ${btoa("alice:secret-password")}`,
    `Token ${TOKEN}`,
    `Bearer=${TOKEN}`,
    `Bearer: ${TOKEN}`,
    TOKEN,
  ];
  for (const header of refused) {
    await t.step(`refuses ${JSON.stringify(header)}`, () => {
      assert.throws(() => bearerToken(header), (error: AuthenticationError) => {
        assert.ok(error instanceof AuthenticationError);
        assert.equal(error.code, Code.UNAUTHENTICATED);
        assert.equal(error.reason, "malformed");
        assert.ok(
          !error.message.includes(TOKEN),
          "the message holds the token",
        );
        assert.ok(
          !error.message.includes("secret"),
          "the message holds the header",
        );
        return true;
      });
    });
  }
});

Deno.test("createAuthenticator() asks each authenticator in turn; the first that recognises decides", async (t) => {
  const first = fake("token-file", {
    "file-token": "alice",
    "bad-jwt": () => {
      throw new AuthenticationError(
        "expired",
        "Unauthorized: the ID token has expired",
        {
          authenticator: "oidc",
        },
      );
    },
  });
  const second = fake("token-review", {
    "file-token": "mallory",
    "review-token": "bob",
    "down": () => {
      throw new AuthenticationError("unavailable", "Cannot authenticate: down");
    },
    "bug": () => {
      throw new TypeError("x is undefined");
    },
    "plain-401": () => {
      throw new ServiceError(Code.UNAUTHENTICATED, "Unauthorized: revoked");
    },
  });
  const chain = createAuthenticator([
    first.authenticator,
    second.authenticator,
  ]);

  await t.step("the first recognises: the second is not asked", async () => {
    assert.deepEqual(
      await chain.authenticate({ authorization: "Bearer file-token" }),
      {
        user: "alice",
        groups: ["team", AUTHENTICATED_GROUP],
        authenticator: "token-file",
      },
    );
    assert.deepEqual(second.calls, []);
  });
  await t.step("the first does not: the second decides", async () => {
    assert.equal(
      (await chain.authenticate({ authorization: "Bearer review-token" })).user,
      "bob",
    );
  });
  await t.step("a recognised but invalid token stops the chain", async () => {
    second.calls.length = 0;
    const error = await failure(
      chain.authenticate({ authorization: "Bearer bad-jwt" }),
    );
    assert.equal(error.reason, "expired");
    assert.equal(error.code, Code.UNAUTHENTICATED);
    assert.deepEqual(second.calls, []);
  });
  await t.step("none recognises: unknown-token", async () => {
    const error = await failure(
      chain.authenticate({ authorization: "Bearer nobody-knows" }),
    );
    assert.equal(error.code, Code.UNAUTHENTICATED);
    assert.equal(error.reason, "unknown-token");
    assert.equal(error.message, "Unauthorized: the token is not valid");
  });
  await t.step("UNAVAILABLE passes through", async () => {
    const error = await failure(
      chain.authenticate({ authorization: "Bearer down" }),
    );
    assert.equal(error.code, Code.UNAVAILABLE);
    assert.equal(error.reason, "unavailable");
  });
  await t.step(
    "a fault of an authenticator is UNAVAILABLE, naming it, not the fault",
    async () => {
      const error = await failure(
        chain.authenticate({ authorization: "Bearer bug" }),
      );
      assert.equal(error.code, Code.UNAVAILABLE);
      assert.equal(error.authenticator, "token-review");
      assert.equal(
        error.message,
        "Cannot authenticate: the token-review authenticator failed",
      );
      assert.ok(error.cause instanceof TypeError);
    },
  );
  await t.step(
    "a plain UNAUTHENTICATED ServiceError becomes invalid-token",
    async () => {
      const error = await failure(
        chain.authenticate({ authorization: "Bearer plain-401" }),
      );
      assert.equal(error.reason, "invalid-token");
      assert.equal(error.message, "Unauthorized: revoked");
    },
  );
  await t.step("close() closes every authenticator", async () => {
    await chain.close();
    assert.ok(first.closed() && second.closed());
  });
});

Deno.test("createAuthenticator() without credentials: 401, or system:anonymous when asked for", async (t) => {
  const known = fake("token-file", { "good": "alice" });
  const strict = createAuthenticator([known.authenticator]);
  const anonymous = createAuthenticator([known.authenticator], {
    anonymous: true,
  });

  // A scheme with no token is no credentials, as kube-apiserver takes it.
  for (
    const authorization of [undefined, null, "Bearer", "bearer ", "Bearer  "]
  ) {
    await t.step(`authorization ${JSON.stringify(authorization)}`, async () => {
      const error = await failure(strict.authenticate({ authorization }));
      assert.equal(error.code, Code.UNAUTHENTICATED);
      assert.equal(error.reason, "no-credentials");
      assert.equal(
        error.message,
        "Unauthorized: the request has no bearer token",
      );
      assert.deepEqual(await anonymous.authenticate({ authorization }), {
        user: "system:anonymous",
        groups: ["system:unauthenticated"],
        authenticator: "anonymous",
      });
    });
  }
  await t.step(
    "anonymous mode still refuses credentials that fail",
    async () => {
      assert.equal(
        (await failure(anonymous.authenticate({ authorization: "Basic abc" })))
          .reason,
        "malformed",
      );
      assert.equal(
        (await failure(anonymous.authenticate({ authorization: "" }))).reason,
        "malformed",
      );
      assert.equal(
        (await failure(
          anonymous.authenticate({ authorization: "Bearer wrong" }),
        )).reason,
        "unknown-token",
      );
    },
  );
  await t.step("anonymous mode still authenticates a good token", async () => {
    assert.equal(
      (await anonymous.authenticate({ authorization: "Bearer good" })).user,
      "alice",
    );
  });
  await t.step("the anonymous identity is not authenticated", () => {
    assert.ok(!anonymousIdentity().groups.includes(AUTHENTICATED_GROUP));
  });
});

Deno.test("createAuthenticator() lets a verified client certificate decide before the token", async () => {
  const tokens = fake("token-file", { "good": "alice" });
  const chain = createAuthenticator([tokens.authenticator]);
  assert.deepEqual(
    await chain.authenticate({
      certificate: {
        subject: { CN: "node-1", O: ["system:nodes", "system:nodes"] },
      },
      authorization: "Bearer good",
    }),
    {
      user: "node-1",
      groups: ["system:nodes", AUTHENTICATED_GROUP],
      authenticator: "client-certificate",
    },
  );
  assert.deepEqual(tokens.calls, []);
  // A certificate without a CN falls through to the token.
  assert.equal(
    (await chain.authenticate({
      certificate: { subject: { O: "x" } },
      authorization: "Bearer good",
    })).user,
    "alice",
  );
});

Deno.test("createAuthenticator() stops when the caller cancels", async () => {
  const controller = new AbortController();
  const slow: Authenticator = {
    name: "token-review",
    authenticate: () => {
      controller.abort();
      return Promise.reject(new Error("aborted"));
    },
  };
  const chain = createAuthenticator([slow]);
  await assert.rejects(
    chain.authenticate({ authorization: "Bearer x" }, controller.signal),
    (error: ServiceError) => {
      assert.equal(error.code, Code.CANCELLED);
      return true;
    },
  );
});

Deno.test("createAuthenticator() over a token file and a TokenReview", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(
    `${dir}/tokens.csv`,
    // The chain adds system:authenticated; a token file may not name it
    // (issue 23), nor hold a token under 32 characters.
    `static-token-0123456789abcdef0123,alice,1001,"team-a"\n`,
  );
  const file = await tokenFileAuthenticator({
    path: `${dir}/tokens.csv`,
    log: recordingLogger(),
  });
  const review = tokenReviewAuthenticator({
    api: {
      createTokenReview: ({ body }) =>
        Promise.resolve({
          ...body,
          status: body.spec.token === "sa-token"
            ? {
              authenticated: true,
              user: {
                username: "system:serviceaccount:a:b",
                groups: ["system:serviceaccounts"],
              },
            }
            : { authenticated: false },
        }),
    },
    log: recordingLogger(),
  });
  const chain = createAuthenticator([file, review]);
  try {
    assert.deepEqual(
      await chain.authenticate({
        authorization: "Bearer static-token-0123456789abcdef0123",
      }),
      {
        user: "alice",
        uid: "1001",
        groups: ["team-a", AUTHENTICATED_GROUP],
        authenticator: "token-file",
      },
    );
    assert.deepEqual(
      await chain.authenticate({ authorization: "Bearer sa-token" }),
      {
        user: "system:serviceaccount:a:b",
        groups: ["system:serviceaccounts", AUTHENTICATED_GROUP],
        authenticator: "token-review",
      },
    );
    assert.equal(
      (await failure(chain.authenticate({ authorization: "Bearer other" })))
        .reason,
      "unknown-token",
    );
  } finally {
    await chain.close();
    await Deno.remove(dir, { recursive: true });
  }
});
