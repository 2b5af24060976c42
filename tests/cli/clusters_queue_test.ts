/**
 * `corral clusters create --queue` against a dev-mode Corral, whose
 * stand-in gives every namespace the LocalQueue "default" (8 CPUs, 32 GiB,
 * 2 GPUs): a cluster that fits is admitted and --wait sees it ready; one
 * that can never fit waits, and `create --wait`, `get` and `describe` say
 * so.
 */
import assert from "node:assert/strict";
import { sandbox, startCorral } from "./cli_process.ts";

const NS = "team-a";

Deno.test("corral clusters create --queue: admitted when it fits, waiting for capacity when not", async (t) => {
  const main = await startCorral({ namespace: NS });
  const box = await sandbox();
  const cli = (...args: string[]) =>
    box.run(args, { env: { CORRAL_SERVER: main.http, CORRAL_NAMESPACE: NS } });
  try {
    const huge = await fetch(
      `${main.http}/apis/v1/namespaces/${NS}/compute_templates`,
      {
        method: "POST",
        body: JSON.stringify({ name: "huge", cpu: 16, memory: 8 }),
        headers: { "content-type": "application/json" },
      },
    );
    assert.equal(huge.status, 200, await huge.text());

    await t.step("a cluster that fits goes to ready with --wait", async () => {
      const result = await cli(
        "clusters",
        "create",
        "fits",
        "--template",
        "small",
        "--version",
        "2.9.0",
        "--queue",
        "default",
        "--user",
        "ada",
        "--wait",
      );
      assert.equal(result.code, 0, result.stderr + result.stdout);
      assert.match(result.stdout, /^cluster team-a\/fits is ready$/m);
      const described = await cli("clusters", "describe", "fits");
      assert.match(described.stdout, /^Queue: +default$/m);
    });

    await t.step("one larger than the queue waits, and says so", async () => {
      // --wait follows it, and its time-out says what it waits for.
      const created = await cli(
        "clusters",
        "create",
        "toobig",
        "--template",
        "huge",
        "--version",
        "2.9.0",
        "--queue",
        "default",
        "--user",
        "ada",
        "--wait",
        "--timeout",
        "2s",
      );
      assert.notEqual(created.code, 0);
      assert.match(created.stdout, /^cluster team-a\/toobig created/m);
      assert.match(
        created.stdout + created.stderr,
        /state: waiting for capacity/,
      );
      const got = await cli("clusters", "get", "toobig");
      assert.equal(got.code, 0, got.stderr);
      assert.match(got.stdout, /waiting for capacity/);
      const described = await cli("clusters", "describe", "toobig");
      assert.match(described.stdout, /Pending .*request > maximum capacity/);
    });
  } finally {
    await box.remove();
    await main.stop();
  }
});
