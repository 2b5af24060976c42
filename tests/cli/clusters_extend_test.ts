/**
 * `corral clusters extend NAME --by DURATION` against a dev-mode Corral,
 * and the expiry there: a cluster whose lifetime ends disappears (dev mode
 * elects no leader: its one replica acts), with its Expired event.
 */
import assert from "node:assert/strict";
import { ANONYMOUS, EMBEDDED, NO_SHUTDOWN_DELAY } from "../main_process.ts";
import { clusterFile, sandbox, startCorral } from "./cli_process.ts";
import { until } from "../eventually.ts";

const NS = "team-a";

Deno.test("corral clusters extend, and a cluster whose lifetime ends disappears", async (t) => {
  const main = await startCorral({
    namespace: NS,
    args: [
      ...EMBEDDED,
      ...ANONYMOUS,
      ...NO_SHUTDOWN_DELAY,
      "--expiry-interval",
      "200ms",
    ],
  });
  const box = await sandbox();
  const cli = (...args: string[]) =>
    box.run(args, { env: { CORRAL_SERVER: main.http, CORRAL_NAMESPACE: NS } });
  const clusters = `${main.http}/apis/v1alpha2/namespaces/${NS}/clusters`;
  const create = async (name: string, ttl: string) => {
    const response = await fetch(clusters, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...JSON.parse(clusterFile(name)), ttl }),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    return JSON.parse(text);
  };
  try {
    await t.step(
      "extend --by 4h pushes the expiry back by 4 hours",
      async () => {
        const created = await create("blue", "1h");
        const result = await cli("clusters", "extend", "blue", "--by", "4h");
        assert.equal(result.code, 0, result.stderr);
        const cluster = await (await fetch(`${clusters}/blue`)).json();
        assert.equal(
          Date.parse(cluster.expiresAt) - Date.parse(created.expiresAt),
          4 * 3_600_000,
        );
        assert.equal(
          result.stdout,
          `cluster team-a/blue extended: expires at ${cluster.expiresAt}\n`,
        );
      },
    );

    await t.step(
      "a --by that is not a duration is a usage error, exit 2",
      async () => {
        const result = await cli("clusters", "extend", "blue", "--by", "soon");
        assert.equal(result.code, 2);
        assert.match(result.stderr, /--by "soon" is not a duration/);
      },
    );

    await t.step(
      "a cluster that does not exist is the API's not found",
      async () => {
        const result = await cli("clusters", "extend", "nobody", "--by", "1h");
        assert.notEqual(result.code, 0);
        assert.match(result.stderr, /not found/i);
      },
    );

    await t.step(
      "a cluster with a lifetime of seconds is deleted once it ends, once only",
      async () => {
        await create("brief", "2s");
        await until("the cluster to be gone", async () => {
          const response = await fetch(`${clusters}/brief`);
          await response.body?.cancel();
          return response.status === 404;
        }, 15_000);
        const deleted = () =>
          main.records.filter((r) =>
            r.msg === "Deleted expired cluster" && r.name === "brief"
          ).length;
        await until("the deletion's log line", () => deleted() > 0);
        assert.equal(deleted(), 1);
      },
    );
  } finally {
    await box.remove();
    await main.stop();
  }
});
