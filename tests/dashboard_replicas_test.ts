/**
 * Dashboard cookies across replicas and restarts, as deployed: main.ts
 * processes in kubernetes mode against one stand-in with the simulated
 * operator (so a ready cluster's dashboard is reached through the
 * stand-in's service proxy, as --cluster-access apiserver-proxy does), the
 * same token file and policy, and --dashboard-session-key-file. Replicas A
 * and B share a key file, C has its own. Each reads through its own cache:
 * nothing is shared between them but Kubernetes and the key file.
 */
import assert from "node:assert/strict";
import {
  kubeconfigFor,
  type SimulatedOperator,
  startSimulatedOperator,
  startStandin,
} from "../standin/mod.ts";
import {
  FREE_PORTS,
  type MainProcess,
  NO_SHUTDOWN_DELAY,
  startMain,
} from "./main_process.ts";
import { until } from "./eventually.ts";
import {
  allowAllWithProxy,
  policyText,
  users,
} from "./api/auth/policy_fixtures.ts";

const ALICE = "alice-token-0123456789abcdef0123456789";
const BOB = "bob-token-0123456789abcdef0123456789abc";

const POLICY = policyText([
  allowAllWithProxy(users("alice", "bob"), ["team-a"]),
]);

const DASHBOARD = "/apis/v1alpha2/namespaces/team-a/clusters/blue/dashboard";

interface Rig {
  /** The stand-in's base URL. */
  kubeUrl: string;
  dir: string;
  kubeconfig: string;
  replicas: MainProcess[];
}

function startReplica(rig: Rig, keyFile: string): Promise<MainProcess> {
  return startMain({
    name: "replica",
    startTimeoutMs: 60_000,
    args: [
      "--orchestrator",
      "kubernetes",
      "--kubeconfig",
      rig.kubeconfig,
      ...FREE_PORTS,
      ...NO_SHUTDOWN_DELAY,
      "--token-auth-file",
      `${rig.dir}/tokens.csv`,
      "--authorization-policy-file",
      `${rig.dir}/policy.yaml`,
      "--dashboard-session-key-file",
      keyFile,
    ],
  });
}

async function withRig(run: (rig: Rig) => Promise<void>): Promise<void> {
  const standin = startStandin({ hostname: "127.0.0.1", port: 0 });
  let operator: SimulatedOperator | undefined;
  const dir = await Deno.makeTempDir({ prefix: "corral-replicas-" });
  const rig: Rig = {
    kubeUrl: standin.url,
    dir,
    kubeconfig: `${dir}/kubeconfig`,
    replicas: [],
  };
  try {
    operator = startSimulatedOperator({
      server: standin.url,
      delayMs: 0,
      retryIntervalMs: 10,
    });
    await Deno.writeTextFile(rig.kubeconfig, kubeconfigFor(standin.url));
    await Deno.writeTextFile(
      `${dir}/tokens.csv`,
      `${ALICE},alice,1,""\n${BOB},bob,2,""\n`,
    );
    await Deno.writeTextFile(`${dir}/policy.yaml`, POLICY);
    for (const key of ["one", "two"]) {
      await Deno.writeFile(
        `${dir}/${key}.key`,
        crypto.getRandomValues(new Uint8Array(48)),
      );
    }
    await run(rig);
  } finally {
    for (const replica of rig.replicas) await replica.stop();
    await operator?.stop();
    await standin.close();
    await Deno.remove(dir, { recursive: true });
  }
}

async function call(
  replica: MainProcess,
  method: string,
  path: string,
  body?: unknown,
  token = ALICE,
): Promise<Response> {
  return await fetch(`${replica.http}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** Template "small" and cluster team-a/blue, ready, made through `replica`. */
async function readyCluster(replica: MainProcess): Promise<void> {
  const template = await call(
    replica,
    "POST",
    "/apis/v1/namespaces/team-a/compute_templates",
    { name: "small", namespace: "team-a", cpu: 1, memory: 1 },
  );
  assert.equal(template.status, 200, await template.text());
  const created = await call(
    replica,
    "POST",
    "/apis/v1alpha2/namespaces/team-a/clusters",
    {
      name: "blue",
      namespace: "team-a",
      user: "alice",
      version: "2.9.0",
      clusterSpec: { headGroupSpec: { computeTemplate: "small" } },
    },
  );
  assert.equal(created.status, 200, await created.text());
  await until("cluster blue to be ready", async () => {
    const got = await call(
      replica,
      "GET",
      "/apis/v1alpha2/namespaces/team-a/clusters/blue",
    );
    return (await got.json()).clusterState === "ready";
  }, 30_000);
}

/** The status of the dashboard's /api/version on `replica` with `cookie`. */
async function withCookie(
  replica: MainProcess,
  cookie: string,
): Promise<number> {
  const response = await fetch(`${replica.http}${DASHBOARD}/api/version`, {
    headers: { cookie },
  });
  await response.body?.cancel();
  return response.status;
}

Deno.test("dashboard cookies: one from replica A opens the dashboard on replica B and on A after a restart, with the same key file; not with another key", async () => {
  await withRig(async (rig) => {
    const [one, two] = [`${rig.dir}/one.key`, `${rig.dir}/two.key`];
    const started = await Promise.all([
      startReplica(rig, one),
      startReplica(rig, one),
      startReplica(rig, two),
    ]);
    rig.replicas.push(...started);
    const [a, b, c] = started;
    await readyCluster(a);
    const opened = await call(a, "POST", `${DASHBOARD}:session`);
    assert.equal(opened.status, 200, await opened.clone().text());
    await opened.body?.cancel();
    const cookie = opened.headers.get("set-cookie")!.split(";")[0];

    assert.equal(await withCookie(a, cookie), 200);
    assert.equal(await withCookie(b, cookie), 200);
    assert.equal(await withCookie(c, cookie), 401);

    // A restarts: the cookie opens on the new process too.
    await a.stop();
    rig.replicas.splice(rig.replicas.indexOf(a), 1);
    const restarted = await startReplica(rig, one);
    rig.replicas.push(restarted);
    assert.equal(await withCookie(restarted, cookie), 200);
  });
});

/** A dashboard cookie opened on `replica` with `token`. */
async function sessionOn(replica: MainProcess, token: string) {
  const opened = await call(
    replica,
    "POST",
    `${DASHBOARD}:session`,
    undefined,
    token,
  );
  assert.equal(opened.status, 200, await opened.clone().text());
  await opened.body?.cancel();
  return opened.headers.get("set-cookie")!.split(";")[0];
}

/** Signs `token`'s user out on `replica`, after `delayMs`. */
async function signOutOn(replica: MainProcess, token: string, delayMs = 0) {
  if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
  const answer = await call(
    replica,
    "DELETE",
    `${DASHBOARD}:session`,
    undefined,
    token,
  );
  assert.equal(answer.status, 200, await answer.clone().text());
  await answer.body?.cancel();
}

Deno.test("dashboard sign-out across replicas: each ends the user's cookies on every replica, at once where it was made, and two users signing out at once on two replicas are both recorded (20 rounds)", async () => {
  await withRig(async (rig) => {
    const one = `${rig.dir}/one.key`;
    const started = await Promise.all([
      startReplica(rig, one),
      startReplica(rig, one),
    ]);
    rig.replicas.push(...started);
    const [a, b] = started;
    await readyCluster(a);
    const rounds = 20;
    for (let round = 0; round < rounds; round++) {
      const alices = await sessionOn(a, ALICE);
      const bobs = await sessionOn(b, BOB);
      for (const replica of [a, b]) {
        assert.equal(await withCookie(replica, alices), 200, `round ${round}`);
        assert.equal(await withCookie(replica, bobs), 200, `round ${round}`);
      }
      // Both write the cluster's record at once, in varied order: one of
      // them finds the other's write first and writes again.
      await Promise.all([
        signOutOn(b, ALICE, round % 3 === 0 ? 0 : round % 5),
        signOutOn(a, BOB, round % 3 === 1 ? 0 : round % 7),
      ]);
      assert.equal(await withCookie(b, alices), 401, `round ${round}`);
      assert.equal(await withCookie(a, bobs), 401, `round ${round}`);
      await until(
        `round ${round}: each sign-out to reach the other replica`,
        async () =>
          await withCookie(a, alices) === 401 &&
          await withCookie(b, bobs) === 401,
      );
    }
    const cluster = await (await fetch(
      `${rig.kubeUrl}/apis/ray.io/v1/namespaces/team-a/rayclusters/blue`,
    )).json();
    assert.deepEqual(
      JSON.parse(
        cluster.metadata.annotations["corral.dev/dashboard-sign-outs"],
      ),
      { alice: rounds, bob: rounds },
    );
  });
});
