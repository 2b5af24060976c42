/**
 * The HTTP gateway in front of Corral's handlers and the stand-in: a
 * snake_case create answered in lowerCamelCase, a delete's {} and the
 * gateway's own x-request-id.
 */
import assert from "node:assert/strict";
import { type Corral, startCorral } from "../../harness.ts";
import { NS } from "../cases.ts";

const BASE = "http://corral.test";

async function withCorral(fn: (corral: Corral) => Promise<void>) {
  const corral = await startCorral();
  try {
    await fn(corral);
  } finally {
    await corral.close();
  }
}

Deno.test("the gateway takes snake_case input and answers in lowerCamelCase", async () => {
  await withCorral(async (corral) => {
    const create = await corral.gateway(
      new Request(`${BASE}/apis/v1/namespaces/${NS}/compute_templates`, {
        method: "POST",
        body: JSON.stringify({
          name: "gpu",
          cpu: 4,
          memory: 16,
          gpu: 1,
          gpu_accelerator: "nvidia.com/gpu",
        }),
        headers: {
          "content-type": "application/json",
          accept: "application/json",
        },
      }),
    );
    assert.equal(create.status, 200);
    assert.deepEqual(await create.json(), {
      name: "gpu",
      namespace: NS,
      cpu: 4,
      memory: 16,
      gpu: 1,
      gpuAccelerator: "nvidia.com/gpu",
      tolerations: [],
      extendedResources: {},
      memoryUnit: "",
    });
    const list = await corral.gateway(
      new Request(`${BASE}/apis/v1/namespaces/${NS}/compute_templates`),
    );
    assert.deepEqual(Object.keys(await list.json()), [
      "computeTemplates",
      "nextPageToken",
    ]);
  });
});

Deno.test("the gateway returns {} for a delete and answers its own x-request-id", async () => {
  await withCorral(async (corral) => {
    await corral.gateway(
      new Request(`${BASE}/apis/v1/namespaces/${NS}/compute_templates`, {
        method: "POST",
        body: JSON.stringify({ name: "small", cpu: 1, memory: 1 }),
        headers: { "content-type": "application/json" },
      }),
    );
    const response = await corral.gateway(
      new Request(`${BASE}/apis/v1/namespaces/${NS}/compute_templates/small`, {
        method: "DELETE",
        headers: { "x-request-id": "req-42" },
      }),
    );
    assert.equal(response.status, 200);
    // Corral's own id, not the caller's (issue 23: the caller's goes into
    // the log line and audit record as clientRequestId).
    assert.match(response.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
    assert.deepEqual(await response.json(), {});
    const generated = await corral.gateway(
      new Request(`${BASE}/apis/v1alpha2/clusters`),
    );
    assert.match(
      generated.headers.get("x-request-id") ?? "",
      /^[0-9a-f-]{36}$/,
    );
    await generated.body?.cancel();
  });
});
