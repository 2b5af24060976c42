/**
 * Dashboard sessions (api/auth/dashboard_sessions.ts) and their key
 * (dashboard_session_key.ts) as an attacker meets them: cookies carried to
 * another replica, tampered with, moved to another cluster, kept past
 * expiry or sign-out, and tokens too long for a cookie.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { silentLogger } from "../../../api/log.ts";
import {
  DashboardSessions,
  MAX_COOKIE_VALUE,
} from "../../../api/auth/dashboard_sessions.ts";
import {
  deriveSessionKey,
  keyOfFile,
  loadSessionKeyFile,
  randomSessionKeys,
  type SessionKeys,
} from "../../../api/auth/dashboard_session_key.ts";
import { Code, ServiceError } from "../../../domain/errors.ts";

const TOKEN = "Bearer alice-token-0123456789";

function keysOf(seed: string): SessionKeys {
  const key = deriveSessionKey(new TextEncoder().encode(seed.repeat(40)));
  return { keys: () => [key], shared: true };
}

/** A replica's sessions, on a clock that stands still unless a test moves it. */
function replica(keys: SessionKeys, now = () => 1_000_000) {
  return new DashboardSessions({ ttlMs: 60_000, keys, now });
}

const ALICE = {
  namespace: "team-a",
  name: "blue",
  user: "alice",
  clusterUid: "uid-of-blue",
  signOuts: 2,
  credentials: { authorization: TOKEN, certificate: null },
};

Deno.test("DashboardSessions: a cookie opened on one replica opens on another with the same key, carrying the token", async () => {
  const a = replica(keysOf("k"));
  const b = replica(keysOf("k"));
  const { value } = await a.open(ALICE);
  const found = await b.find(value, "team-a", "blue", "10.0.0.9:4000");
  assert.equal(found?.user, "alice");
  assert.deepEqual(found?.credentials, {
    authorization: TOKEN,
    certificate: null,
    address: "10.0.0.9:4000",
  });
});

Deno.test("DashboardSessions: the cookie does not show the token, and another key, another cluster or a changed character finds nothing", async () => {
  const a = replica(keysOf("k"));
  const { value } = await a.open(ALICE);
  assert.ok(!value.includes("alice-token"));
  const decoded = value.split(".").map((part) =>
    Buffer.from(part, "base64url").toString("latin1")
  ).join(".");
  assert.ok(!decoded.includes("alice-token"), "the token is readable");
  assert.equal(
    await replica(keysOf("other")).find(value, "team-a", "blue"),
    undefined,
  );
  assert.equal(await a.find(value, "team-a", "green"), undefined);
  assert.equal(await a.find(value, "team-b", "blue"), undefined);
  for (let at = 0; at < value.length; at++) {
    if (value[at] === ".") continue;
    const changed = value.slice(0, at) +
      (value[at] === "A" ? "B" : "A") + value.slice(at + 1);
    assert.equal(
      await a.find(changed, "team-a", "blue"),
      undefined,
      `a change at ${at} was accepted`,
    );
  }
  for (const junk of ["", "x", "a.b.c.d.e", value + "A", "a".repeat(5000)]) {
    assert.equal(await a.find(junk, "team-a", "blue"), undefined, junk);
  }
});

Deno.test("DashboardSessions: a cookie ends when it expires, on every replica", async () => {
  let now = 1_000_000;
  const a = replica(keysOf("k"), () => now);
  const b = replica(keysOf("k"), () => now);
  const { value, expiresAt } = await a.open(ALICE);
  assert.equal(expiresAt, 1_060_000);
  now = expiresAt - 1;
  assert.ok(await b.find(value, "team-a", "blue"));
  now = expiresAt;
  assert.equal(await a.find(value, "team-a", "blue"), undefined);
  assert.equal(await b.find(value, "team-a", "blue"), undefined);
});

Deno.test("DashboardSessions: a cookie carries its cluster's uid and its user's sign-out count, on every replica, for the cluster's record to be checked against", async () => {
  const a = replica(keysOf("k"));
  const b = replica(keysOf("k"));
  const { value } = await a.open(ALICE);
  for (const sessions of [a, b]) {
    const found = await sessions.find(value, "team-a", "blue");
    assert.deepEqual(
      [found?.user, found?.clusterUid, found?.signOuts],
      ["alice", "uid-of-blue", 2],
    );
  }
});

Deno.test("DashboardSessions: end() forgets the user's sessions of the cluster opened here, and says how many", async () => {
  const a = replica(keysOf("k"));
  await a.open(ALICE);
  await a.open(ALICE);
  await a.open({ ...ALICE, name: "green" });
  await a.open({ ...ALICE, user: "bob" });
  assert.equal(a.size, 4);
  assert.equal(a.end("team-a", "blue", "alice"), 2);
  assert.equal(a.size, 2);
  assert.equal(a.end("team-a", "blue", "alice"), 0);
});

Deno.test("DashboardSessions: a client-certificate session lives on the replica that opened it only", async () => {
  const a = replica(keysOf("k"));
  const b = replica(keysOf("k"));
  const credentials = {
    authorization: null,
    certificate: { subject: { CN: "alice", O: [] } },
  };
  const { value } = await a.open({ ...ALICE, credentials });
  assert.deepEqual(
    (await a.find(value, "team-a", "blue"))?.credentials,
    credentials,
  );
  assert.equal(await b.find(value, "team-a", "blue"), undefined);
  assert.equal(a.end("team-a", "blue", "alice"), 1);
  assert.equal(await a.find(value, "team-a", "blue"), undefined);
});

Deno.test("DashboardSessions: a token too long for a cookie is refused with code 3 naming the Authorization header", async () => {
  const a = replica(keysOf("k"));
  const long = `Bearer ${"t".repeat(3_000)}`;
  const error = await a.open({
    ...ALICE,
    credentials: { authorization: long, certificate: null },
  }).catch((e) => e);
  assert.ok(error instanceof ServiceError, String(error));
  assert.equal(error.code, Code.INVALID_ARGUMENT);
  assert.match(error.message, /Authorization header is too long/);
  // The longest accepted still fits a browser's 4096 bytes.
  const fits = await a.open({
    ...ALICE,
    credentials: {
      authorization: `Bearer ${"t".repeat(2_500)}`,
      certificate: null,
    },
  });
  assert.ok(fits.value.length <= MAX_COOKIE_VALUE);
});

Deno.test("loadSessionKeyFile(): too short a file fails naming the flag; a new key seals, and the one before still opens", async () => {
  const dir = await Deno.makeTempDir({ prefix: "corral-session-key-" });
  const path = `${dir}/key`;
  try {
    await Deno.writeTextFile(path, "short\n");
    await assert.rejects(
      loadSessionKeyFile({ path, log: silentLogger() }),
      /--dashboard-session-key-file ".*": it holds 5 bytes, fewer than 32/,
    );
    await assert.rejects(
      loadSessionKeyFile({ path: `${dir}/none`, log: silentLogger() }),
      /--dashboard-session-key-file ".*": no such file/,
    );
    await Deno.writeFile(path, crypto.getRandomValues(new Uint8Array(48)));
    const keys = await loadSessionKeyFile({
      path,
      log: silentLogger(),
      intervalMs: 60_000,
    });
    try {
      const sessions = replica(keys);
      const old = await sessions.open(ALICE);
      await Deno.writeTextFile(path, "too short");
      assert.equal(await keys.reload(), false);
      await Deno.writeFile(path, crypto.getRandomValues(new Uint8Array(48)));
      assert.equal(await keys.reload(), true);
      const fresh = await sessions.open(ALICE);
      assert.ok(await sessions.find(old.value, "team-a", "blue"));
      assert.ok(await sessions.find(fresh.value, "team-a", "blue"));
      // Two rotations on, the first key opens nothing.
      await Deno.writeFile(path, crypto.getRandomValues(new Uint8Array(48)));
      assert.equal(await keys.reload(), true);
      assert.equal(await sessions.find(old.value, "team-a", "blue"), undefined);
      assert.ok(await sessions.find(fresh.value, "team-a", "blue"));
    } finally {
      await keys.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("randomSessionKeys() always makes a key; keyOfFile() takes one trailing newline off, then wants 32 bytes", () => {
  // A key made at start is never a key file: random bytes that happen to
  // end in a newline byte are all key.
  for (let i = 0; i < 1_000; i++) {
    assert.equal(randomSessionKeys().keys()[0].length, 32);
  }
  const bytes = (n: number, last: number) => {
    const content = new Uint8Array(n).fill(7);
    content[n - 1] = last;
    return content;
  };
  assert.equal(keyOfFile(bytes(33, 0x0a)).length, 32);
  assert.throws(() => keyOfFile(bytes(32, 0x0a)), /holds 31 bytes/);
  assert.deepEqual(keyOfFile(bytes(33, 0x0a)), keyOfFile(bytes(32, 7)));
});
