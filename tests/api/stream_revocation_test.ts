/**
 * Finding 3 of issue 23: open watch streams kept delivering after the
 * rule or the token that allowed them was removed, and lived for ever.
 * Each attack here opens a watch on every transport (gRPC, NDJSON, SSE),
 * takes the right away by rewriting the policy or token file (read every
 * 50 ms here), and expects every stream to end within 2 s with the code and
 * message a fresh call then gets; a change that leaves the right keeps the
 * streams delivering. An OIDC token's expiry ends its streams the same way,
 * and --watch-max-duration ends every stream cleanly after a BOOKMARK from
 * which a client resumes.
 */
import assert from "node:assert/strict";
import { type Access, createAccess } from "../../api/auth/access.ts";
import { silentLogger } from "../../api/log.ts";
import type { Message } from "../../domain/message_form.ts";
import { type Corral, startCorral, viaHttp } from "../harness.ts";
import { eventually, until } from "../eventually.ts";
import { RAY_CRD } from "../orchestrator/cluster_shapes.ts";
import { sampleCluster } from "./cases.ts";
import {
  ALICE,
  auditLines,
  bearer,
  BOB,
  PEOPLE,
  POLICY,
  ROOT,
  RULES,
  tokenFileText,
  writeAccessFiles,
} from "./auth/access_fixtures.ts";
import { makeSigningKey, sign, startTestIssuer } from "./auth/test_issuer.ts";
import {
  type Ending,
  type OpenWatch,
  WATCH_TRANSPORTS,
  type WatchRequest,
  within,
} from "./stream_watchers.ts";
import { type Grant, policyText } from "./auth/policy_fixtures.ts";

const NS = "team-a";
/** How often the files are read in these tests (5 s in production). */
const RELOAD_MS = 50;
/** The bound on how soon a revoked stream ends. */
const REVOKED_WITHIN_MS = 2_000;

interface Setup {
  corral: Corral;
  access: Access;
  tokenFile: string;
  policyFile: string;
  auditLog: string;
  dir: string;
}

/** A Corral with a token file and policy read every RELOAD_MS. */
async function withFiles(
  run: (setup: Setup) => Promise<void>,
  options: {
    policy?: string;
    /** The test issuer's URL and CA certificate. */
    oidc?: { issuerUrl: string; caPem: string };
    streamMaxDurationMs?: number;
  } = {},
): Promise<void> {
  const files = await writeAccessFiles({ policy: options.policy });
  try {
    const caFile = `${files.dir}/issuer-ca.pem`;
    if (options.oidc) await Deno.writeTextFile(caFile, options.oidc.caPem);
    const access = await createAccess({
      tokenAuthFile: files.tokenFile,
      ...(options.oidc
        ? {
          oidc: {
            issuerUrl: options.oidc.issuerUrl,
            caFile,
            clientId: "corral",
            usernameClaim: "sub",
            groupsClaim: "groups",
            usernamePrefix: "oidc:",
          },
        }
        : {}),
      tokenReview: false,
      anonymous: false,
      policyFile: files.policyFile,
      auditLogPath: files.auditLog,
      metricsRequireAuth: false,
    }, { log: silentLogger(), reloadIntervalMs: RELOAD_MS });
    try {
      const corral = await startCorral({
        crds: [RAY_CRD],
        cache: {},
        access,
        streamMaxDurationMs: options.streamMaxDurationMs,
      });
      try {
        await run({ corral, access, ...files });
      } finally {
        await corral.close();
      }
    } finally {
      await access.close();
    }
  } finally {
    await files.remove();
  }
}

/** A watch on every transport, each once it has sent its first BOOKMARK. */
async function watchEverywhere(
  corral: Corral,
  request: WatchRequest,
  authorization: string,
): Promise<[string, OpenWatch][]> {
  const watches: [string, OpenWatch][] = [];
  for (const [transport, open] of WATCH_TRANSPORTS) {
    const watch = await open(corral, request, authorization);
    watches.push([transport, watch]);
    await firstBookmark(transport, watch);
  }
  return watches;
}

/** Waits up to 5 s for the watch's first BOOKMARK; fails if it ends first. */
async function firstBookmark(
  transport: string,
  watch: OpenWatch,
): Promise<void> {
  let ended: string | undefined;
  watch.ended.then(
    (ending) => ended = JSON.stringify(ending),
    (error) => ended = String(error),
  );
  await until(`${transport}'s first BOOKMARK`, () => {
    if (watch.answers.some(isBookmark)) return true;
    if (ended !== undefined) {
      throw new Error(`The ${transport} watch ended first: ${ended}`);
    }
    return false;
  }, 5_000);
}

function isBookmark(answer: Message): boolean {
  return answer.type === "BOOKMARK";
}

/** Every watch's ending, each within `ms` of now. */
async function endings(
  watches: [string, OpenWatch][],
  ms: number,
): Promise<Record<string, Ending>> {
  const ended = await Promise.all(
    watches.map(([transport, watch]) =>
      within(ms, `${transport}'s watch to end`, watch.ended)
    ),
  );
  return Object.fromEntries(watches.map(([t], i) => [t, ended[i]]));
}

/** What a fresh watch gets, on each transport. */
async function freshEndings(
  corral: Corral,
  request: WatchRequest,
  authorization: string,
): Promise<Record<string, Ending>> {
  const got: Record<string, Ending> = {};
  for (const [transport, open] of WATCH_TRANSPORTS) {
    const watch = await open(corral, request, authorization);
    got[transport] = await within(5_000, "a refusal", watch.ended);
  }
  return got;
}

function same(ending: Ending): Record<string, Ending> {
  return Object.fromEntries(WATCH_TRANSPORTS.map(([t]) => [t, ending]));
}

/** `POLICY` with its rules changed by `change`, which must change one. */
function changed(change: (rule: Grant) => Grant): string {
  const policy = policyText(RULES.map(change));
  assert.notEqual(policy, POLICY, "the change applies to a fixture's rule");
  return policy;
}

const ALICE_REMOVED = changed((rule) =>
  rule.users?.includes("alice")
    ? { ...rule, users: ["alice@example.com"] }
    : rule
);
const ADMINS_IN_TEAM_A_ONLY = changed((rule) =>
  rule.groups?.includes("admins") ? { ...rule, namespaces: ["team-a"] } : rule
);

interface RevocationCase {
  name: string;
  who: typeof ALICE;
  request: WatchRequest;
  /** Takes the right away. */
  change(setup: Setup): Promise<void>;
  want: Ending;
  /** A fresh call gets the same ending (not for a narrowed scope). */
  fresh: boolean;
}

const REVOCATIONS: RevocationCase[] = [
  {
    name: "the rule that allowed the watch is removed from the policy",
    who: ALICE,
    request: { namespace: NS },
    change: (s) => Deno.writeTextFile(s.policyFile, ALICE_REMOVED),
    want: {
      code: 7,
      message:
        'Cannot watch clusters in namespace "team-a": user "alice" may not watch clusters in namespace "team-a"',
    },
    fresh: true,
  },
  {
    name: "the watcher's token is removed from the token file",
    who: ALICE,
    request: { namespace: NS },
    change: (s) =>
      Deno.writeTextFile(
        s.tokenFile,
        tokenFileText(PEOPLE.filter((p) => p !== ALICE)),
      ),
    want: { code: 16, message: "Unauthorized: the token is not valid" },
    fresh: true,
  },
  {
    name: "the group that allowed the watch is taken from the token",
    who: BOB,
    request: { namespace: "team-b" },
    change: (s) =>
      Deno.writeTextFile(
        s.tokenFile,
        tokenFileText(PEOPLE.map((p) => p === BOB ? { ...p, groups: [] } : p)),
      ),
    want: {
      code: 7,
      message:
        'Cannot watch clusters in namespace "team-b": user "bob" may not watch clusters in namespace "team-b"',
    },
    fresh: true,
  },
  {
    name: "a watch of every namespace whose rule now covers only some of them",
    who: ROOT,
    request: {},
    change: (s) => Deno.writeTextFile(s.policyFile, ADMINS_IN_TEAM_A_ONLY),
    want: {
      code: 7,
      message:
        'Cannot watch clusters: user "root" may no longer watch clusters in every namespace',
    },
    fresh: false,
  },
];

for (const revocation of REVOCATIONS) {
  Deno.test(`open watches end within 2 s on every transport when ${revocation.name}`, async () => {
    await withFiles(async (setup) => {
      const { corral } = setup;
      const authorization = bearer(revocation.who);
      const watches = await watchEverywhere(
        corral,
        revocation.request,
        authorization,
      );
      try {
        await revocation.change(setup);
        assert.deepEqual(
          await endings(watches, REVOKED_WITHIN_MS + RELOAD_MS),
          same(revocation.want),
        );
        if (revocation.fresh) {
          assert.deepEqual(
            await freshEndings(corral, revocation.request, authorization),
            same(revocation.want),
            "a fresh call gets the same code and message",
          );
        }
        await until("every watch let go", () => corral.watches!.watchers === 0);
        await eventually("the ended watches in the audit trail", async () => {
          const refused = (await auditLines(setup.auditLog)).filter((line) =>
            line.verb === "watch" && line.code === revocation.want.code
          );
          return refused.length >= watches.length ? refused : undefined;
        }, 5_000);
      } finally {
        for (const [, watch] of watches) watch.close();
      }
    });
  });
}

Deno.test("open watches go on delivering when a change of the files leaves their right", async () => {
  await withFiles(async (setup) => {
    const { corral, access } = setup;
    await createTemplate(corral);
    const watches = await watchEverywhere(
      corral,
      { namespace: NS },
      bearer(ALICE),
    );
    try {
      let changes = 0;
      const stop = access.onChange!(() => changes++);
      await Deno.writeTextFile(setup.policyFile, POLICY + "\n# reviewed\n");
      await Deno.writeTextFile(
        setup.tokenFile,
        tokenFileText(PEOPLE.filter((p) => p !== BOB)),
      );
      await until("both files reloaded", () => changes >= 2, 5_000);
      stop();
      await createCluster(corral, "after-reload");
      for (const [transport, watch] of watches) {
        await until(
          `${transport} to deliver the new cluster`,
          () =>
            watch.answers.some((a) =>
              a.type === "ADDED" &&
              (a.cluster as Message | null)?.name === "after-reload"
            ),
          5_000,
        );
      }
      assert.equal(corral.watches!.watchers, watches.length);
    } finally {
      for (const [, watch] of watches) watch.close();
    }
  });
});

Deno.test("an OIDC token's expiry ends its open watches on every transport with code 16, as a fresh call is refused", async () => {
  const issuer = await startTestIssuer();
  const key = await makeSigningKey("ES256", "key-1");
  issuer.keys.push(key);
  const policy = POLICY + `  - users: ["oidc:ann"]
    namespaces: ["team-a"]
    resources: ["*"]
    verbs: ["*"]
`;
  try {
    await withFiles(async ({ corral }) => {
      const now = Math.floor(Date.now() / 1000);
      // Corral accepts a token until 30 s (its clock leeway) after its
      // `exp`: this one is accepted for about 2 s more.
      const token = await sign(key, {
        iss: issuer.url,
        aud: "corral",
        sub: "ann",
        iat: now - 60,
        exp: now - 28,
      });
      const watches = await watchEverywhere(
        corral,
        { namespace: NS },
        `Bearer ${token}`,
      );
      try {
        const want = {
          code: 16,
          message: "Unauthorized: the ID token has expired",
        };
        assert.deepEqual(await endings(watches, 5_000), same(want));
        assert.deepEqual(
          await freshEndings(corral, { namespace: NS }, `Bearer ${token}`),
          same(want),
        );
      } finally {
        for (const [, watch] of watches) watch.close();
      }
    }, { policy, oidc: { issuerUrl: issuer.url, caPem: issuer.ca.certPem } });
  } finally {
    await issuer.close();
  }
});

Deno.test("--watch-max-duration ends every watch cleanly after a BOOKMARK from which the client resumes", async () => {
  const maxMs = 600;
  await withFiles(async ({ corral }) => {
    await createTemplate(corral);
    for (const [transport, open] of WATCH_TRANSPORTS) {
      const started = performance.now();
      const watch = await open(corral, { namespace: NS }, bearer(ALICE));
      const ending = await within(5_000, `${transport}'s end`, watch.ended);
      const lasted = performance.now() - started;
      assert.deepEqual(ending, { code: 0, message: "" }, transport);
      assert.ok(lasted >= maxMs / 2, `${transport} lasted ${lasted} ms`);
      const last = watch.answers.at(-1)!;
      assert.equal(last.type, "BOOKMARK", `${transport}: the last answer`);
      const resumeFrom = String(last.resourceVersion);
      assert.match(resumeFrom, /^\d+$/);

      const name = `after-${transport.toLowerCase()}`;
      await createCluster(corral, name);
      const resumed = await open(
        corral,
        { namespace: NS, resourceVersion: resumeFrom },
        bearer(ALICE),
      );
      try {
        await until(
          `${transport}'s resumed watch to send a change`,
          () => resumed.answers.some((a) => !isBookmark(a)),
          5_000,
        );
        const first = resumed.answers.find((a) => !isBookmark(a))!;
        assert.equal(first.type, "ADDED");
        assert.equal((first.cluster as Message).name, name);
        assert.ok(BigInt(String(first.resourceVersion)) > BigInt(resumeFrom));
      } finally {
        resumed.close();
        await resumed.ended;
      }
    }
  }, { streamMaxDurationMs: maxMs });
});

async function createTemplate(corral: Corral): Promise<void> {
  const outcome = await viaHttp(
    corral,
    "proto.ComputeTemplateService/CreateComputeTemplate",
    { namespace: NS, computeTemplate: { name: "small", cpu: 2, memory: 4 } },
    { authorization: bearer(ALICE) },
  );
  assert.equal(outcome.code, 0, outcome.message);
}

async function createCluster(corral: Corral, name: string): Promise<void> {
  const outcome = await viaHttp(
    corral,
    "proto.ClusterService/CreateCluster",
    { namespace: NS, cluster: sampleCluster({ name, user: "alice" }) },
    { authorization: bearer(ALICE) },
  );
  assert.equal(outcome.code, 0, outcome.message);
}
