/**
 * Large answers are gzip-compressed for clients that accept it (as the
 * Kubernetes API server compresses its own), from the cache once for every
 * client, and without the cache per request; small ones never are.
 */
import assert from "node:assert/strict";
import { gunzipSync } from "node:zlib";
import { COMPRESS_MIN_BYTES } from "../../../api/http/json_answers.ts";
import { listening, startCorral, viaHttp } from "../../harness.ts";
import { RAY_CRD } from "../../orchestrator/cluster_shapes.ts";

const NS = "team-a";

async function withClusters(
  cache: boolean,
  run: (get: typeof fetch) => Promise<void>,
  options: { listen?: boolean } = {},
) {
  const corral = await startCorral({
    crds: [RAY_CRD],
    ...(cache ? { cache: {} } : {}),
  });
  try {
    const ok = (o: { code: number; message: string }) =>
      assert.equal(o.code, 0, o.message);
    ok(
      await viaHttp(
        corral,
        "proto.ComputeTemplateService/CreateComputeTemplate",
        {
          namespace: NS,
          computeTemplate: { name: "small", cpu: 2, memory: 4 },
        },
      ),
    );
    // Enough clusters, each with some variables, for a list over the
    // threshold.
    const envs = Object.fromEntries(
      Array.from({ length: 8 }, (_, i) => [`VAR_${i}`, "x".repeat(250)]),
    );
    for (let i = 0; i < 80; i++) {
      ok(
        await viaHttp(corral, "proto.ClusterService/CreateCluster", {
          namespace: NS,
          cluster: {
            name: `c${i}`,
            user: "ada",
            version: "2.9.0",
            clusterSpec: { headGroupSpec: { computeTemplate: "small" } },
            envs,
          },
        }),
      );
    }
    if (!options.listen) {
      await run((input, init) =>
        corral.gateway(new Request(`http://corral.test${input}`, init))
      );
      return;
    }
    // Through the HTTP listener, as clients get it.
    const server = await listening(corral);
    try {
      await run((input, init) =>
        fetch(`http://127.0.0.1:${server.port}${input}`, init)
      );
    } finally {
      await server.shutdown(1_000);
    }
  } finally {
    await corral.close();
  }
}

for (const cache of [true, false]) {
  Deno.test(`a large list is gzip-compressed when the client accepts it (cache ${cache ? "on" : "off"})`, async () => {
    await withClusters(cache, async (get) => {
      const path = "/apis/v1alpha2/clusters";
      const plain = await get(path);
      assert.equal(plain.headers.get("content-encoding"), null);
      const text = await plain.text();
      assert.ok(text.length >= COMPRESS_MIN_BYTES, `${text.length} bytes`);
      assert.equal(plain.headers.get("vary"), "accept-encoding");
      for (let twice = 0; twice < 2; twice++) {
        const compressed = await get(path, {
          headers: { "accept-encoding": "gzip, deflate, br" },
        });
        assert.equal(compressed.headers.get("content-encoding"), "gzip");
        const bytes = new Uint8Array(await compressed.arrayBuffer());
        assert.ok(bytes.length < text.length / 5, `${bytes.length} bytes`);
        assert.equal(new TextDecoder().decode(gunzipSync(bytes)), text);
      }
      const refused = await get(path, {
        headers: { "accept-encoding": "gzip;q=0, identity" },
      });
      assert.equal(refused.headers.get("content-encoding"), null);
      await refused.body?.cancel();
      // One cluster is small: never compressed.
      const one = await get(`/apis/v1alpha2/namespaces/${NS}/clusters/c1`, {
        headers: { "accept-encoding": "gzip" },
      });
      assert.equal(one.headers.get("content-encoding"), null);
      assert.equal(one.headers.get("vary"), null);
      await one.body?.cancel();
    });
  });
}

Deno.test("through the listener, a kept large list is the same bytes every time, plain and gzip, with their length", async () => {
  await withClusters(true, async (get) => {
    const path = "/apis/v1alpha2/clusters";
    // fetch() asks for gzip by default: "identity" asks for the plain text.
    const plain = () =>
      get(path, { headers: { "accept-encoding": "identity" } });
    const first = await plain();
    const text = await first.text();
    assert.ok(text.length >= COMPRESS_MIN_BYTES, `${text.length} bytes`);
    assert.equal(
      first.headers.get("content-length"),
      String(new TextEncoder().encode(text).byteLength),
    );
    assert.equal(JSON.parse(text).clusters.length, 80);
    for (let again = 0; again < 3; again++) {
      const answer = await plain();
      assert.equal(answer.headers.get("content-encoding"), null);
      assert.equal(await answer.text(), text);
      // fetch() decompresses what it asked gzip for.
      const compressed = await get(path);
      assert.equal(compressed.headers.get("content-encoding"), "gzip");
      assert.equal(await compressed.text(), text);
    }
  }, { listen: true });
});
