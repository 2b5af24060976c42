/**
 * `--wait` against a Corral whose simulated operator takes an hour, so the
 * test decides what happens to a cluster: nothing (the wait times out,
 * exit 2), what KubeRay's operator does when a cluster fails (a Warning
 * event, then `status.state: failed`: exit 1 with the warning), or a
 * finalizer that holds a deleted cluster, each written through the
 * stand-in's Kubernetes API as the operator or another controller would.
 * The simulated operator itself never fails a cluster: nothing in the
 * stand-in triggers that state.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import {
  ANONYMOUS,
  FREE_PORTS,
  type MainProcess,
  NO_SHUTDOWN_DELAY,
} from "../main_process.ts";
import {
  clusterFile,
  type Sandbox,
  sandbox,
  startCorral,
} from "./cli_process.ts";

const NS = "team-a";
const RAYCLUSTERS = `/apis/ray.io/v1/namespaces/${NS}/rayclusters`;

/** Plays KubeRay's operator on a cluster: a Warning, then failed. */
async function failCluster(standin: string, name: string): Promise<void> {
  const cluster = await (await fetch(`${standin}${RAYCLUSTERS}/${name}`))
    .json();
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const event = await fetch(`${standin}/api/v1/namespaces/${NS}/events`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: `${name}.failed`, namespace: NS },
      involvedObject: {
        apiVersion: "ray.io/v1",
        kind: "RayCluster",
        namespace: NS,
        name,
        uid: cluster.metadata.uid,
      },
      reason: "FailedToCreateHeadPod",
      message: 'pods "head" is forbidden: exceeded quota',
      type: "Warning",
      count: 1,
      firstTimestamp: now,
      lastTimestamp: now,
      source: { component: "raycluster-controller" },
    }),
  });
  assert.equal(event.status, 201, await event.text());
  const status = await fetch(`${standin}${RAYCLUSTERS}/${name}/status`, {
    method: "PATCH",
    headers: { "content-type": "application/merge-patch+json" },
    body: JSON.stringify({ status: { state: "failed" } }),
  });
  assert.equal(status.status, 200, await status.text());
}

Deno.test("corral clusters create|delete --wait when the cluster does not get there by itself", async (t) => {
  const box: Sandbox = await sandbox();
  const kubeconfig = `${box.dir}/standin.kubeconfig`;
  const main: MainProcess = await startCorral({
    namespace: NS,
    args: [
      "--orchestrator",
      "embedded",
      ...FREE_PORTS,
      "--operator-delay",
      "1h",
      "--write-kubeconfig",
      kubeconfig,
      ...ANONYMOUS,
      ...NO_SHUTDOWN_DELAY,
    ],
  });
  const env = { CORRAL_SERVER: main.http, CORRAL_NAMESPACE: NS };
  const standin: string = parse(await Deno.readTextFile(kubeconfig))
    .clusters[0].cluster.server;
  try {
    await t.step(
      "--timeout runs out: exit 2, saying after how long and the state",
      async () => {
        await Deno.writeTextFile(`${box.dir}/slow.json`, clusterFile("slow"));
        const started = Date.now();
        const result = await box.run(
          [
            "clusters",
            "create",
            "-f",
            `${box.dir}/slow.json`,
            "--wait",
            "--timeout",
            "1s",
          ],
          { env },
        );
        assert.equal(result.code, 2, result.stderr);
        assert.equal(
          result.stderr,
          "error: timed out after 1s waiting for cluster team-a/slow to be ready (state: pending)\n",
        );
        assert.ok(Date.now() - started >= 1_000);
      },
    );

    await t.step(
      "a --timeout that is not a duration is a usage error, before anything is created",
      async () => {
        await Deno.writeTextFile(`${box.dir}/never.json`, clusterFile("never"));
        const result = await box.run(
          [
            "clusters",
            "create",
            "-f",
            `${box.dir}/never.json`,
            "--wait",
            "--timeout",
            "10",
          ],
          { env },
        );
        assert.equal(result.code, 2);
        assert.match(result.stderr, /--timeout "10" is not a duration/);
        const got = await fetch(
          `${main.http}/apis/v1alpha2/namespaces/${NS}/clusters/never`,
        );
        await got.body?.cancel();
        assert.equal(got.status, 404);
      },
    );

    await t.step(
      "the cluster fails: exit 1 with its last Warning events",
      async () => {
        await Deno.writeTextFile(
          `${box.dir}/doomed.json`,
          clusterFile("doomed"),
        );
        const waiting = box.spawn(
          ["clusters", "create", "-f", `${box.dir}/doomed.json`, "--wait"],
          { env },
        );
        await waiting.line((l) => l === "cluster team-a/doomed: pending");
        await failCluster(standin, "doomed");
        const result = await waiting.done;
        assert.equal(result.code, 1, result.stderr);
        assert.match(result.stdout, /^ {2}Warning {2}FailedToCreateHeadPod: /m);
        assert.equal(
          result.stderr,
          'error: cluster team-a/doomed failed\n  Warning  FailedToCreateHeadPod: pods "head" is forbidden: exceeded quota\n',
        );
      },
    );

    await t.step(
      "delete --wait: a finalizer holds the cluster past --timeout (exit 2, state deleting); once it goes, DELETED ends the wait (exit 0)",
      async () => {
        await Deno.writeTextFile(`${box.dir}/held.json`, clusterFile("held"));
        assert.equal(
          (await box.run(["clusters", "create", "-f", `${box.dir}/held.json`], {
            env,
          })).code,
          0,
        );
        const hold = (finalizers: string[]) =>
          fetch(`${standin}${RAYCLUSTERS}/held`, {
            method: "PATCH",
            headers: { "content-type": "application/merge-patch+json" },
            body: JSON.stringify({ metadata: { finalizers } }),
          }).then(async (r) => assert.equal(r.status, 200, await r.text()));
        await hold(["example.com/hold"]);
        const timedOut = await box.run(
          ["clusters", "delete", "held", "--wait", "--timeout", "1s"],
          { env },
        );
        assert.equal(timedOut.code, 2, timedOut.stderr);
        assert.equal(
          timedOut.stderr,
          "error: timed out after 1s waiting for cluster team-a/held to be deleted (state: deleting)\n",
        );
        const waiting = box.spawn(
          ["clusters", "delete", "held", "--wait"],
          { env },
        );
        await waiting.line((l) => l === "cluster team-a/held: deleting");
        await hold([]);
        const deleted = await waiting.done;
        assert.equal(deleted.code, 0, deleted.stderr);
        assert.match(deleted.stdout, /^cluster team-a\/held deleted$/m);
      },
    );
  } finally {
    await main.stop();
    await box.remove();
  }
});
