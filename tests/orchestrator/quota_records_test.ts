/**
 * The quota records (orchestrator/quota_records.ts) against the stand-in,
 * through the real client: a ConfigMap of Corral's own per namespace,
 * created once, replaced only at the version read, found by its labels,
 * and never taken for a compute template.
 */
import assert from "node:assert/strict";
import * as k8s from "@kubernetes/client-node";
import { Code, ServiceError } from "../../domain/errors.ts";
import { createKubernetesOrchestrator } from "../../orchestrator/mod.ts";
import { QUOTA_RECORD_NAME } from "../../orchestrator/quota_records.ts";
import { kubeconfigFor, startStandin } from "../../standin/mod.ts";

async function withRecords(
  fn: (
    orchestrator: ReturnType<typeof createKubernetesOrchestrator>,
    url: string,
  ) => Promise<void>,
) {
  const standin = await startStandin({ hostname: "127.0.0.1", port: 0 });
  try {
    const kubeConfig = new k8s.KubeConfig();
    kubeConfig.loadFromString(kubeconfigFor(standin.url));
    await fn(createKubernetesOrchestrator({ kubeConfig }), standin.url);
  } finally {
    await standin.close();
  }
}

function code(expected: number) {
  return (error: unknown) => {
    assert.ok(error instanceof ServiceError, String(error));
    assert.equal(error.code, expected, error.message);
    return true;
  };
}

Deno.test("a quota record is created once, then replaced only at the version read", async () => {
  await withRecords(async ({ quotaRecords }) => {
    assert.equal(await quotaRecords.read("team-a"), undefined);
    const first = await quotaRecords.write("team-a", '{"a":1}', undefined);
    assert.equal(first.charges, '{"a":1}');
    await assert.rejects(
      quotaRecords.write("team-a", "{}", undefined),
      code(Code.ALREADY_EXISTS),
    );
    const second = await quotaRecords.write(
      "team-a",
      '{"b":2}',
      first.resourceVersion,
    );
    assert.notEqual(second.resourceVersion, first.resourceVersion);
    await assert.rejects(
      quotaRecords.write("team-a", "{}", first.resourceVersion),
      code(Code.ABORTED),
    );
    assert.deepEqual(await quotaRecords.read("team-a"), second);
  });
});

Deno.test("quota records are found by namespace, and are not compute templates", async () => {
  await withRecords(async ({ quotaRecords, templates }, url) => {
    await quotaRecords.write("team-a", "{}", undefined);
    await quotaRecords.write("team-b", "{}", undefined);
    // A ConfigMap of the same name that is not Corral's is not a record.
    const other = await fetch(`${url}/api/v1/namespaces/team-c/configmaps`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { name: QUOTA_RECORD_NAME } }),
    });
    assert.equal(other.status, 201);
    await other.body?.cancel();
    assert.deepEqual(await quotaRecords.namespaces([]), ["team-a", "team-b"]);
    assert.deepEqual(await quotaRecords.namespaces(["team-b", "team-c"]), [
      "team-b",
    ]);
    assert.deepEqual(await templates.list("team-a"), []);
  });
});
