/**
 * The router in front of Corral's handlers and the stand-in: HEAD on an
 * API route answers as GET does, for lists, a cluster and a missing one.
 */
import assert from "node:assert/strict";
import { createHttpApp } from "../../../api/http/router.ts";
import { startCorral } from "../../harness.ts";
import { NS, sampleCluster } from "../cases.ts";

const BASE = "http://corral.test";

/** Status and headers, but x-request-id: each request gets its own. */
function head(response: Response): [number, [string, string][]] {
  assert.ok(response.headers.get("x-request-id"), "an x-request-id");
  return [
    response.status,
    [...response.headers].filter(([name]) => name !== "x-request-id"),
  ];
}

Deno.test("HEAD on an API route answers as GET does, without a body", async (t) => {
  const corral = await startCorral();
  try {
    const app = createHttpApp({ gateway: corral.gateway, pages: {} });
    const cluster = sampleCluster() as unknown as {
      name: string;
      clusterSpec: { headGroupSpec: { computeTemplate: string } };
    };
    const template = await corral.gateway(
      new Request(`${BASE}/apis/v1/namespaces/${NS}/compute_templates`, {
        method: "POST",
        body: JSON.stringify({
          name: cluster.clusterSpec.headGroupSpec.computeTemplate,
          cpu: 2,
          memory: 4,
        }),
        headers: { "content-type": "application/json" },
      }),
    );
    assert.equal(template.status, 200, await template.text());
    const created = await corral.gateway(
      new Request(`${BASE}/apis/v1alpha2/namespaces/${NS}/clusters`, {
        method: "POST",
        body: JSON.stringify(cluster),
        headers: { "content-type": "application/json" },
      }),
    );
    assert.equal(created.status, 200, await created.text());
    for (
      const path of [
        "/apis/v1alpha2/clusters",
        `/apis/v1alpha2/namespaces/${NS}/clusters`,
        `/apis/v1alpha2/namespaces/${NS}/clusters/${cluster.name}`,
        `/apis/v1alpha2/namespaces/${NS}/clusters/missing`,
        `/apis/v1/namespaces/${NS}/compute_templates`,
      ]
    ) {
      await t.step(path, async () => {
        const headers = { "x-request-id": "same" };
        const get = await app(new Request(BASE + path, { headers }));
        const text = await get.text();
        const answer = await app(
          new Request(BASE + path, { method: "HEAD", headers }),
        );
        assert.deepEqual(head(answer), head(get), text);
        assert.equal(answer.body, null);
      });
    }
  } finally {
    await corral.close();
  }
});
