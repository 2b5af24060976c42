import assert from "node:assert/strict";
import { Code, ServiceError } from "../../../domain/errors.ts";
import {
  parseTokenFile,
  tokenFileAuthenticator,
  tokenLookup,
} from "../../../api/auth/token_file.ts";
import type { TokenRecord } from "../../../api/auth/token_file.ts";
import { recordingLogger, writeLikeSecretVolume } from "./helpers.ts";
import { until } from "../../eventually.ts";

const ALICE = "alice-secret-token-0123456789abcdef";
const BOB = "bob-secret-token-9876543210fedcba";

function records(text: string) {
  return parseTokenFile(text).records.map((
    { line, token, user, uid, groups },
  ) => ({
    line,
    token,
    user,
    uid,
    groups,
  }));
}

Deno.test("parseTokenFile() reads the kube-apiserver --token-auth-file format", async (t) => {
  const cases: {
    name: string;
    text: string;
    want:
      | Omit<TokenRecord, "uid"> & { uid?: string }
      | Array<Partial<TokenRecord>>;
  }[] = [
    {
      name: "three columns: no groups",
      text: `${ALICE},alice,1001\n`,
      want: { line: 1, token: ALICE, user: "alice", uid: "1001", groups: [] },
    },
    {
      name: "quoted groups with commas",
      text: `${ALICE},alice,1001,"team-a,team-b"\n`,
      want: {
        line: 1,
        token: ALICE,
        user: "alice",
        uid: "1001",
        groups: ["team-a", "team-b"],
      },
    },
    {
      name: "one unquoted group",
      text: `${ALICE},alice,1001,team-a`,
      want: {
        line: 1,
        token: ALICE,
        user: "alice",
        uid: "1001",
        groups: ["team-a"],
      },
    },
    {
      name: "columns after the fourth are ignored",
      text: `${ALICE},alice,1001,team-a,extra,more\n`,
      want: {
        line: 1,
        token: ALICE,
        user: "alice",
        uid: "1001",
        groups: ["team-a"],
      },
    },
    {
      name: "an empty uid is no uid",
      text: `${ALICE},alice,,team-a\n`,
      want: {
        line: 1,
        token: ALICE,
        user: "alice",
        uid: undefined,
        groups: ["team-a"],
      },
    },
    {
      name: "an empty group column is no groups",
      text: `${ALICE},alice,1001,\n`,
      want: { line: 1, token: ALICE, user: "alice", uid: "1001", groups: [] },
    },
    {
      name: "empty group names are dropped",
      text: `${ALICE},alice,1001,"a,,b,"\n`,
      want: {
        line: 1,
        token: ALICE,
        user: "alice",
        uid: "1001",
        groups: ["a", "b"],
      },
    },
    {
      name: "CRLF line ends",
      text: `${ALICE},alice,1001,"a,b"\r\n${BOB},bob,1002\r\n`,
      want: [
        { line: 1, user: "alice", groups: ["a", "b"] },
        { line: 2, user: "bob", groups: [] },
      ],
    },
    {
      name: "empty lines are skipped and counted",
      text: `\n\n${ALICE},alice,1001\n\n${BOB},bob,1002\n\n`,
      want: [{ line: 3, user: "alice" }, { line: 5, user: "bob" }],
    },
    {
      name: "quoted fields with an escaped quote",
      text: `"${ALICE}","al""ice",1001\n`,
      want: { line: 1, token: ALICE, user: 'al"ice', uid: "1001", groups: [] },
    },
    {
      name: "a quoted field across lines counts its lines",
      text: `${ALICE},alice,1001,"a,\nb"\n${BOB},bob,1002\n`,
      want: [
        { line: 1, user: "alice", groups: ["a", "\nb"] },
        { line: 3, user: "bob" },
      ],
    },
    {
      name: "spaces are part of the value, as in kube-apiserver",
      text: `${ALICE}, alice,1001\n`,
      want: { line: 1, token: ALICE, user: " alice", uid: "1001", groups: [] },
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const got = records(c.text);
      if (Array.isArray(c.want)) {
        assert.equal(got.length, c.want.length, `got ${JSON.stringify(got)}`);
        c.want.forEach((want, i) => {
          for (const [key, value] of Object.entries(want)) {
            assert.deepEqual(
              got[i][key as keyof TokenRecord],
              value,
              `record ${i} ${key}`,
            );
          }
        });
      } else {
        assert.deepEqual(got, [c.want]);
      }
    });
  }
});

Deno.test("parseTokenFile() refuses a bad file, naming the line and never the token", async (t) => {
  const cases = [
    {
      name: "a comment line",
      text: `# tokens\n${ALICE},alice,1`,
      want: /^line 1: .*found 1 \(comments are not supported\)$/,
    },
    {
      name: "two columns",
      text: `${BOB},bob,2\n${ALICE},alice\n`,
      want: /^line 2: expected at least 3 columns .*found 2$/,
    },
    {
      name: "a line of spaces",
      text: `${ALICE},alice,1\n   \n`,
      want: /^line 2: .*found 1$/,
    },
    {
      name: "a bare quote",
      text: `${BOB},bob,2\n${ALICE}",alice,1\n`,
      want: /^line 2: a quote inside a field/,
    },
    {
      name: "an unclosed quote",
      text: `${BOB},bob,2\n"${ALICE},alice,1\n`,
      want: /^line 2: a quoted field is not closed$/,
    },
    {
      name: "text after a closing quote",
      text: `"${ALICE}"x,alice,1\n`,
      want: /^line 1: a quoted field is followed by/,
    },
    {
      name: "an empty user name",
      text: `${BOB},bob,2\n${ALICE},,1\n`,
      want: /^line 2: the user name is empty$/,
    },
    { name: "an empty file", text: "", want: /^the file has no tokens$/ },
    {
      name: "only empty lines",
      text: "\n\n\r\n",
      want: /^the file has no tokens$/,
    },
    {
      name: "only empty tokens",
      text: ",alice,1\n",
      want: /^the file has no tokens$/,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      assert.throws(() => parseTokenFile(c.text), (error: Error) => {
        assert.match(error.message, c.want);
        assert.ok(
          !error.message.includes(ALICE),
          "the message holds the token",
        );
        assert.ok(!error.message.includes(BOB), "the message holds the token");
        return true;
      });
    });
  }
});

Deno.test("parseTokenFile() warns of empty, repeated and unpresentable tokens", () => {
  const { records, warnings } = parseTokenFile(
    [
      `,nobody,0`,
      `${ALICE},alice,1001,old`,
      `${BOB},bob,1002`,
      `${ALICE},alice,1001,new`,
      `has space ${"x".repeat(32)},carol,1003`,
    ].join("\n"),
  );
  assert.deepEqual(
    records.map((r) => [r.line, r.user, r.groups]),
    [[3, "bob", []], [4, "alice", ["new"]], [5, "carol", []]],
  );
  assert.deepEqual(warnings, [
    "line 1: the token is empty; the line is skipped",
    "line 4: the token of line 2 is given again; the later line wins",
    "line 5: the token has characters a bearer token cannot carry, so it can never be presented",
  ]);
});

Deno.test("tokenLookup() finds exactly the listed tokens", async (t) => {
  const lookup = tokenLookup(
    parseTokenFile(
      `${ALICE},alice,1001,"team-a,team-b"\n${BOB},bob,,\n`,
    ).records,
  );
  assert.deepEqual(lookup(ALICE), {
    user: "alice",
    uid: "1001",
    groups: ["team-a", "team-b"],
    authenticator: "token-file",
  });
  assert.deepEqual(lookup(BOB), {
    user: "bob",
    groups: [],
    authenticator: "token-file",
  });
  const attempts = [
    ["empty", ""],
    ["a prefix", ALICE.slice(0, -1)],
    ["a longer token", ALICE + "0"],
    ["another case", ALICE.toUpperCase()],
    ["with a space", ` ${ALICE}`],
    ["two tokens joined", ALICE + BOB],
  ];
  for (const [name, token] of attempts) {
    await t.step(
      `refuses ${name}`,
      () => assert.equal(lookup(token), undefined),
    );
  }
  await t.step("hands out copies", () => {
    lookup(ALICE)!.groups.push("system:masters");
    assert.deepEqual(lookup(ALICE)!.groups, ["team-a", "team-b"]);
  });
});

Deno.test("tokenFileAuthenticator() fails start-up on a bad or missing file", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    await t.step("missing", async () => {
      await assert.rejects(
        tokenFileAuthenticator({
          path: `${dir}/none.csv`,
          log: recordingLogger(),
        }),
        (error: ServiceError) => {
          assert.equal(error.code, Code.INVALID_ARGUMENT);
          assert.match(
            error.message,
            /^Cannot load token file ".*none.csv": no such file$/,
          );
          return true;
        },
      );
    });
    await t.step("bad", async () => {
      await Deno.writeTextFile(`${dir}/bad.csv`, `${ALICE},alice,1\n${BOB}\n`);
      await assert.rejects(
        tokenFileAuthenticator({
          path: `${dir}/bad.csv`,
          log: recordingLogger(),
        }),
        (error: ServiceError) => {
          assert.equal(error.code, Code.INVALID_ARGUMENT);
          assert.match(
            error.message,
            /bad.csv": line 2: expected at least 3 columns/,
          );
          assert.ok(!error.message.includes(BOB));
          return true;
        },
      );
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tokenFileAuthenticator() follows the file as it changes, keeping the last good tokens", async () => {
  const dir = await Deno.makeTempDir();
  const log = recordingLogger();
  const path = `${dir}/tokens.csv`;
  await Deno.writeTextFile(path, `${ALICE},alice,1001,team-a\n`);
  const auth = await tokenFileAuthenticator({ path, log, intervalMs: 20 });
  try {
    assert.equal((await auth.authenticate(ALICE))?.user, "alice");
    assert.equal(await auth.authenticate(BOB), undefined);

    // Rewritten in place: the new token works, the old one stops.
    await Deno.writeTextFile(path, `${BOB},bob,1002\n`);
    await until(
      "the new token",
      async () => (await auth.authenticate(BOB)) !== undefined,
    );
    assert.equal(await auth.authenticate(ALICE), undefined);

    // A broken file keeps the previous tokens, and is logged once.
    await Deno.writeTextFile(path, `${ALICE},alice\n`);
    await until(
      "the error log",
      () => log.lines.some((l) => l.level === "error"),
    );
    await auth.reload();
    await auth.reload();
    assert.equal((await auth.authenticate(BOB))?.user, "bob");
    assert.equal(await auth.authenticate(ALICE), undefined);
    // writeTextFile truncates, then writes: a poll may have seen the empty
    // file between the two, and kept the tokens then too.
    const errors = log.lines.filter((l) =>
      l.level === "error" && l.fields.error !== "the file has no tokens"
    );
    assert.deepEqual(errors.map((l) => [l.message, l.fields.error]), [[
      "Kept the previous token file: the new one is not valid",
      "line 1: expected at least 3 columns (token, user name, user uid), found 2",
    ]]);

    // A truncated (empty) file, as a half-done rewrite leaves it, too.
    await Deno.writeTextFile(path, "");
    await auth.reload();
    assert.equal((await auth.authenticate(BOB))?.user, "bob");

    // A good file again is taken.
    await Deno.writeTextFile(path, `${ALICE},alice,1001\n`);
    assert.equal(await auth.reload(), true);
    assert.equal((await auth.authenticate(ALICE))?.user, "alice");
    assert.equal(await auth.authenticate(BOB), undefined);

    // No log line holds a token.
    const logged = JSON.stringify(log.lines);
    assert.ok(!logged.includes(ALICE) && !logged.includes(BOB), logged);
  } finally {
    await auth.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tokenFileAuthenticator() follows a Secret volume's ..data symlink swap", async () => {
  const dir = await Deno.makeTempDir();
  await writeLikeSecretVolume(dir, "tokens.csv", `${ALICE},alice,1001\n`);
  const auth = await tokenFileAuthenticator({
    path: `${dir}/tokens.csv`,
    log: recordingLogger(),
    intervalMs: 20,
  });
  try {
    assert.equal((await auth.authenticate(ALICE))?.user, "alice");
    await writeLikeSecretVolume(dir, "tokens.csv", `${BOB},bob,1002\n`);
    await until(
      "the new token",
      async () => (await auth.authenticate(BOB)) !== undefined,
    );
    assert.equal(await auth.authenticate(ALICE), undefined);
  } finally {
    await auth.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tokenFileAuthenticator() keeps its tokens while the file is missing", async () => {
  const dir = await Deno.makeTempDir();
  const log = recordingLogger();
  const path = `${dir}/tokens.csv`;
  await Deno.writeTextFile(path, `${ALICE},alice,1001\n`);
  const auth = await tokenFileAuthenticator({ path, log });
  try {
    await Deno.remove(path);
    assert.equal(await auth.reload(), false);
    assert.equal(await auth.reload(), false);
    assert.equal((await auth.authenticate(ALICE))?.user, "alice");
    assert.deepEqual(
      log.lines.filter((l) => l.level === "error").map((l) => l.message),
      ["Kept the previous token file: the file cannot be read"],
    );
  } finally {
    await auth.close();
    await Deno.remove(dir, { recursive: true });
  }
});
