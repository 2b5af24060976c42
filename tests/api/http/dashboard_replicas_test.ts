/**
 * The dashboard proxy as two replicas behind one Service: each with its own
 * authenticator, policy and sessions (nothing in memory shared), the same
 * Kubernetes stand-in, and session keys from key files. A browser's cookie
 * must work on whichever replica its request reaches when the key file is
 * the same, and nowhere when it is not or the cookie was changed.
 */
import assert from "node:assert/strict";
import { createAccess } from "../../../api/auth/access.ts";
import { DashboardSessions } from "../../../api/auth/dashboard_sessions.ts";
import {
  loadSessionKeyFile,
  type SessionKeyFile,
} from "../../../api/auth/dashboard_session_key.ts";
import { DashboardProxy } from "../../../api/http/dashboard_proxy.ts";
import type { Router } from "../../../api/http/router.ts";
import { silentLogger } from "../../../api/log.ts";
import { directAccess } from "../../../orchestrator/cluster_access.ts";
import type { Orchestrator } from "../../../domain/ports.ts";
import { startCorral } from "../../harness.ts";
import { unitRouter } from "../../unit_router.ts";
import { until } from "../../eventually.ts";
import { RAY_CRD } from "../../orchestrator/cluster_shapes.ts";
import { readyCluster } from "../../standin/with_standin.ts";
import {
  ALICE,
  bearer,
  BOB,
  PEOPLE,
  tokenFileText,
  writeAccessFiles,
} from "../auth/access_fixtures.ts";
import { dashboardAccess, policyText, users } from "../auth/policy_fixtures.ts";

const POLICY = policyText([dashboardAccess(users("alice"), ["team-a"])]);

const ORIGIN = "http://corral.test";
const BLUE = "/apis/v1alpha2/namespaces/team-a/clusters/blue/dashboard";

interface Replica {
  proxy: Router;
  close(): Promise<void>;
}

interface Files {
  tokenFile: string;
  policyFile: string;
  auditLog: string;
}

/**
 * One replica: its own access (token and policy files re-read every
 * 100 ms), its own sessions sealed with the key in `keyFile`.
 */
async function replica(
  orchestrator: Orchestrator,
  files: Files,
  keyFile: string,
  dashboardBase: string,
): Promise<Replica> {
  const access = await createAccess({
    tokenAuthFile: files.tokenFile,
    tokenReview: false,
    anonymous: false,
    policyFile: files.policyFile,
    auditLogPath: files.auditLog,
    metricsRequireAuth: false,
  }, { log: silentLogger(), reloadIntervalMs: 100 });
  let keys: SessionKeyFile;
  try {
    keys = await loadSessionKeyFile({ path: keyFile, log: silentLogger() });
  } catch (error) {
    await access.close();
    throw error;
  }
  const proxy = new DashboardProxy({
    orchestrator,
    clusterAccess: directAccess({ baseUrlOf: () => dashboardBase }),
    sessions: new DashboardSessions({ ttlMs: 60_000, keys }),
    timeoutMs: 2_000,
    maxRequestBytes: 1_000,
    maxResponseBytes: 1_000,
    secure: false,
    log: silentLogger(),
  });
  return {
    proxy: await unitRouter(proxy.units(), { access, orchestrator }),
    async close() {
      await keys.close();
      await access.close();
    },
  };
}

interface World {
  /** Replicas a and b share key file one; c has key file two. */
  a: Replica;
  b: Replica;
  c: Replica;
  tokenFile: string;
  /** What the dashboard was sent, in order. */
  seen: Headers[];
}

async function withReplicas(run: (world: World) => Promise<void>) {
  const corral = await startCorral({ crds: [RAY_CRD] });
  const files = await writeAccessFiles({
    policy: POLICY,
    tokens: tokenFileText(PEOPLE),
  });
  const seen: Headers[] = [];
  const dashboard = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      seen.push(new Headers(request.headers));
      return new Response("<title>Ray Dashboard</title>");
    },
  );
  const base = `http://127.0.0.1:${dashboard.addr.port}`;
  const one = `${files.dir}/key-one`;
  const two = `${files.dir}/key-two`;
  await Deno.writeFile(one, crypto.getRandomValues(new Uint8Array(48)));
  await Deno.writeFile(two, crypto.getRandomValues(new Uint8Array(48)));
  const opened: Replica[] = [];
  try {
    await readyCluster(corral.kubeUrl, "blue");
    for (const key of [one, one, two]) {
      opened.push(await replica(corral.orchestrator!, files, key, base));
    }
    const [a, b, c] = opened;
    await run({ a, b, c, tokenFile: files.tokenFile, seen });
  } finally {
    for (const r of opened) await r.close();
    await dashboard.shutdown();
    await files.remove();
    await corral.close();
  }
}

/** A cookie from `replica`, opened with alice's token. */
async function openSession(replica: Replica): Promise<string> {
  const opened = await replica.proxy(
    new Request(`${ORIGIN}${BLUE}:session`, {
      method: "POST",
      headers: { authorization: bearer(ALICE) },
    }),
  );
  assert.equal(opened.status, 200, await opened.clone().text());
  await opened.body?.cancel();
  return opened.headers.get("set-cookie")!.split(";")[0];
}

/** The status of GET dashboard/ on `replica` with `cookie` alone. */
async function statusWith(replica: Replica, cookie: string): Promise<number> {
  const response = await replica.proxy(
    new Request(`${ORIGIN}${BLUE}/`, { headers: { cookie } }),
  );
  await response.body?.cancel();
  return response.status;
}

Deno.test("dashboard replicas: a cookie from replica A opens the dashboard on replica B with the same key file, not on one with another key", async () => {
  await withReplicas(async ({ a, b, c, seen }) => {
    const cookie = await openSession(a);
    assert.equal(await statusWith(b, cookie), 200);
    assert.equal(await statusWith(a, cookie), 200);
    // The sealed token never reaches the dashboard, from either replica.
    for (const headers of seen) {
      assert.equal(headers.get("cookie"), null);
      assert.equal(headers.get("authorization"), null);
    }
    const refused = await c.proxy(
      new Request(`${ORIGIN}${BLUE}/`, { headers: { cookie } }),
    );
    assert.equal(refused.status, 401);
    assert.match(
      (await refused.json()).message,
      /the dashboard cookie is not valid for this cluster/,
    );
  });
});

Deno.test("dashboard replicas: a tampered cookie opens on no replica", async () => {
  await withReplicas(async ({ a, b }) => {
    const cookie = await openSession(a);
    const [name, value] = cookie.split("=");
    const parts = value.split(".");
    // The ciphertext's first character changed, then its tag's last.
    const flip = (s: string, at: number) =>
      s.slice(0, at) + (s[at] === "A" ? "B" : "A") + s.slice(at + 1);
    const tampered = [
      [...parts.slice(0, 3), flip(parts[3], 0), parts[4]],
      [...parts.slice(0, 4), flip(parts[4], parts[4].length - 1)],
      // Another key's header: "alg":"none" is never taken.
      [btoa('{"alg":"none"}').replace(/=+$/, ""), ...parts.slice(1)],
    ];
    for (const changed of tampered) {
      const forged = `${name}=${changed.join(".")}`;
      assert.equal(await statusWith(a, forged), 401, forged);
      assert.equal(await statusWith(b, forged), 401, forged);
    }
  });
});

Deno.test("dashboard replicas: a revoked token's cookie stops on both replicas within 2 s", async () => {
  await withReplicas(async ({ a, b, tokenFile }) => {
    const cookie = await openSession(a);
    assert.equal(await statusWith(a, cookie), 200);
    assert.equal(await statusWith(b, cookie), 200);
    await Deno.writeTextFile(tokenFile, tokenFileText([BOB]));
    await until(
      "alice's cookie refused on both replicas",
      async () =>
        await statusWith(a, cookie) === 401 &&
        await statusWith(b, cookie) === 401,
      2_000,
    );
  });
});

Deno.test("dashboard replicas: sign-out on one replica clears the cookie and ends it on every replica, the one it was opened on included", async () => {
  await withReplicas(async ({ a, b }) => {
    const cookie = await openSession(a);
    const signedOut = await b.proxy(
      new Request(`${ORIGIN}${BLUE}:session`, {
        method: "DELETE",
        headers: { authorization: bearer(ALICE) },
      }),
    );
    assert.equal(signedOut.status, 200);
    // Opened on a, so b ended none of its own, but the cluster's record
    // refuses it on both from now.
    assert.deepEqual(await signedOut.json(), { ended: 0 });
    assert.match(signedOut.headers.get("set-cookie")!, /Max-Age=0/);
    assert.equal(await statusWith(b, cookie), 401);
    assert.equal(await statusWith(a, cookie), 401);
  });
});
