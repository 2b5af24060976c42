/**
 * Access end to end through main.ts in embedded mode: the token file and
 * the policy file followed while it runs, OIDC ID tokens of a real HTTPS
 * issuer, and the audit trail, each asked over HTTP and gRPC.
 */
import assert from "node:assert/strict";
import {
  makeSigningKey,
  sign,
  startTestIssuer,
} from "./api/auth/test_issuer.ts";
import {
  ALICE,
  bearer,
  BOB,
  PEOPLE,
  person,
  tokenFileText,
  writeAccessFiles,
} from "./api/auth/access_fixtures.ts";
import { sampleCluster } from "./api/cases.ts";
import { eventually } from "./eventually.ts";
import { mainClient } from "./main_client.ts";
import { DEV_PERMISSIONS, EMBEDDED, startMain } from "./main_process.ts";
import {
  allowAll,
  groups,
  policyText,
  users,
} from "./api/auth/policy_fixtures.ts";

const TRANSPORTS = ["http", "grpc"] as const;
const LIST = "proto.ClusterService/ListCluster";

/** A policy granting each user everything in their namespaces. */
function policyOf(grants: Record<string, string[]>): string {
  return policyText(
    Object.entries(grants).map(([user, namespaces]) =>
      allowAll(users(user), namespaces)
    ),
  );
}

/** Replaces the file at once, as an editor or a Secret volume would. */
async function replaceFile(path: string, text: string): Promise<void> {
  await Deno.writeTextFile(`${path}.new`, text);
  await Deno.rename(`${path}.new`, path);
}

Deno.test("main.ts follows the token file and the policy file while it runs, without a restart", async (t) => {
  const ZED = person("zed", "zed");
  const files = await writeAccessFiles({
    tokens: tokenFileText([ALICE, BOB]),
    policy: policyOf({ alice: ["team-a"], bob: ["team-b"], zed: ["team-b"] }),
  });
  const main = await startMain({
    args: [
      ...EMBEDDED,
      // Every failure here must be a 401 to be told apart; the limit on
      // failures has its own tests (tests/api/auth/failure_limit_test.ts).
      "--auth-failure-rate=0",
      "--token-auth-file",
      files.tokenFile,
      "--authorization-policy-file",
      files.policyFile,
    ],
    startTimeoutMs: 30_000,
  });
  const client = await mainClient(main);
  /** The code `who` gets listing `namespace` over each transport. */
  const codes = async (authorization: string, namespace: string) => {
    const got: number[] = [];
    for (const transport of TRANSPORTS) {
      got.push(
        (await client.call(transport, LIST, { namespace }, { authorization }))
          .code,
      );
    }
    return got;
  };
  /** Waits until both transports answer `want`, polling. */
  const until = (
    what: string,
    authorization: string,
    namespace: string,
    want: number,
  ) =>
    eventually(what, async () => {
      const got = await codes(authorization, namespace);
      return got.every((code) => code === want) ? got : undefined;
    }, 15_000);
  try {
    await t.step(
      "at start: alice and bob's tokens work, zed's does not",
      async () => {
        assert.deepEqual(await codes(bearer(ALICE), "team-a"), [0, 0]);
        assert.deepEqual(await codes(bearer(BOB), "team-b"), [0, 0]);
        assert.deepEqual(await codes(bearer(ZED), "team-b"), [16, 16]);
      },
    );
    await replaceFile(files.tokenFile, tokenFileText([ALICE, ZED]));
    await t.step("a token added to the file comes to work", async () => {
      await until("zed's new token to work", bearer(ZED), "team-b", 0);
    });
    await t.step("a token removed from the file stops working", async () => {
      assert.deepEqual(await codes(bearer(BOB), "team-b"), [16, 16]);
    });
    await replaceFile(
      files.policyFile,
      policyOf({ alice: ["team-b"], zed: ["team-b"] }),
    );
    await t.step("a newly granted namespace comes to work", async () => {
      await until("alice's grant of team-b", bearer(ALICE), "team-b", 0);
    });
    await t.step("a revoked namespace is refused with 7", async () => {
      assert.deepEqual(await codes(bearer(ALICE), "team-a"), [7, 7]);
    });
    await t.step("each reload was logged", () => {
      const messages = main.records.map((r) => r.msg);
      assert.ok(
        messages.filter((m) => m === "Loaded authorization policy").length >=
          2,
        messages.join("\n"),
      );
    });
  } finally {
    await client.close();
    await main.stop();
    await files.remove();
  }
});

Deno.test("main.ts takes OIDC ID tokens of an HTTPS issuer it trusts through --oidc-ca-file, on both transports", async (t) => {
  const issuer = await startTestIssuer();
  const key = await makeSigningKey("ES256", "key-1");
  issuer.keys = [key];
  const files = await writeAccessFiles({
    policy: policyText([allowAll(groups("ml-team"), ["team-a"])]),
  });
  const caFile = `${files.dir}/issuer-ca.pem`;
  await Deno.writeTextFile(caFile, issuer.ca.certPem);
  const main = await startMain({
    args: [
      ...EMBEDDED,
      "--oidc-issuer-url",
      issuer.url,
      "--oidc-client-id",
      "corral",
      "--oidc-ca-file",
      caFile,
      "--oidc-username-claim",
      "email",
      "--oidc-username-prefix",
      "oidc:",
      "--authorization-policy-file",
      files.policyFile,
    ],
    startTimeoutMs: 30_000,
  });
  const client = await mainClient(main);
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    iss: issuer.url,
    aud: "corral",
    sub: "u-1234",
    email: "ann@example.com",
    groups: ["ml-team"],
  };
  const valid = await sign(key, { ...claims, iat: now, exp: now + 600 });
  const expired = await sign(key, {
    ...claims,
    iat: now - 7200,
    exp: now - 3600,
  });
  try {
    for (const transport of TRANSPORTS) {
      await t.step(`${transport}: a valid ID token works`, async () => {
        const got = await client.call(transport, LIST, {
          namespace: "team-a",
        }, { authorization: `Bearer ${valid}` });
        assert.equal(got.code, 0, got.message);
      });
      await t.step(
        `${transport}: the cluster's user is the prefixed claim`,
        async () => {
          const got = await client.call(
            transport,
            "proto.ClusterService/CreateCluster",
            {
              namespace: "team-a",
              cluster: sampleCluster({
                name: `oidc-${transport}`,
                user: "",
                clusterSpec: {
                  headGroupSpec: {},
                  workerGroupSpec: [{ groupName: "w", replicas: 1 }],
                },
              }),
            },
            { authorization: `Bearer ${valid}` },
          );
          assert.equal(got.code, 0, got.message);
          assert.equal(got.result?.user, "oidc:ann@example.com");
        },
      );
      await t.step(`${transport}: a namespace of no rule is 7`, async () => {
        const got = await client.call(transport, LIST, {
          namespace: "team-b",
        }, { authorization: `Bearer ${valid}` });
        assert.equal(got.code, 7, got.message);
      });
      await t.step(`${transport}: an expired ID token is 16`, async () => {
        const got = await client.call(transport, LIST, {
          namespace: "team-a",
        }, { authorization: `Bearer ${expired}` });
        assert.equal(got.code, 16, got.message);
        assert.equal(got.message, "Unauthorized: the ID token has expired");
      });
    }
  } finally {
    await client.close();
    await main.stop();
    await issuer.close();
    await files.remove();
  }
});

Deno.test("main.ts with --audit-log-path writes one line per create, delete and refusal, none per read, never a token", async () => {
  const files = await writeAccessFiles();
  const main = await startMain({
    permissions: DEV_PERMISSIONS,
    args: [
      ...EMBEDDED,
      "--token-auth-file",
      files.tokenFile,
      "--authorization-policy-file",
      files.policyFile,
      "--audit-log-path",
      files.auditLog,
    ],
    startTimeoutMs: 30_000,
  });
  const client = await mainClient(main);
  const alice = { authorization: bearer(ALICE) };
  const CT = "proto.ComputeTemplateService";
  const template = {
    namespace: "team-a",
    computeTemplate: { name: "small", namespace: "team-a", cpu: 1, memory: 1 },
  };
  const key = { namespace: "team-a", name: "small" };
  // [transport, rpc, request, options, the code wanted, audited?]
  const calls = [
    ["http", `${CT}/CreateComputeTemplate`, template, alice, 0, true],
    ["http", `${CT}/GetComputeTemplate`, key, alice, 0, false],
    [
      "grpc",
      `${CT}/ListComputeTemplates`,
      { namespace: "team-a" },
      alice,
      0,
      false,
    ],
    ["grpc", `${CT}/ListAllComputeTemplates`, {}, alice, 0, false],
    ["grpc", `${CT}/DeleteComputeTemplate`, key, alice, 0, true],
    [
      "http",
      `${CT}/GetComputeTemplate`,
      { ...key, namespace: "team-b" },
      alice,
      7,
      true,
    ],
    [
      "grpc",
      `${CT}/CreateComputeTemplate`,
      { ...template, namespace: "team-b" },
      alice,
      7,
      true,
    ],
    ["http", `${CT}/GetComputeTemplate`, key, {}, 16, true],
    [
      "grpc",
      `${CT}/DeleteComputeTemplate`,
      key,
      { authorization: "Bearer nope-0123456789abcdef" },
      16,
      true,
    ],
  ] as const;
  try {
    for (const [transport, rpc, request, options, code] of calls) {
      const got = await client.call(transport, rpc, request, options);
      assert.equal(got.code, code, `${transport} ${rpc}: ${got.message}`);
    }
    await main.stop();
    const text = await Deno.readTextFile(files.auditLog);
    const lines = text.trimEnd().split("\n").map((l) => JSON.parse(l));
    const audited = calls.filter((c) => c[5]);
    assert.equal(lines.length, audited.length, text);
    for (const [i, line] of lines.entries()) {
      const [transport, rpc, request, , code] = audited[i];
      const what = `line ${i + 1} (${transport} ${rpc}, code ${code})`;
      assert.equal(line.code, code, what);
      assert.equal(line.transport, transport, what);
      assert.match(line.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, what);
      assert.match(line.requestId, /^[0-9a-f-]{36}$/, what);
      assert.match(line.sourceAddress, /^127\.0\.0\.1:\d+$/, what);
      const verb = /\/(Create|Delete|Get|List)/.exec(rpc)![1].toLowerCase();
      assert.equal(line.verb, verb, what);
      assert.equal(line.resource, "computetemplates", what);
      if (code === 16) {
        assert.equal(line.user, undefined, what);
        assert.ok(line.reason, what);
        continue;
      }
      assert.equal(line.user, "alice", what);
      assert.deepEqual(line.groups, ["system:authenticated"], what);
      assert.equal(line.authenticator, "token-file", what);
      assert.equal(line.namespace, request.namespace, what);
      assert.equal(line.name, "small", what);
      if (code === 7) assert.equal(line.reason, "no-rule", what);
    }
    for (const p of PEOPLE) {
      assert.ok(
        !text.includes(p.token),
        `the audit log holds ${p.name}'s token`,
      );
    }
    assert.ok(!text.includes("nope-0123456789abcdef"), "the unknown token");
  } finally {
    await client.close();
    await main.stop();
    await files.remove();
  }
});
