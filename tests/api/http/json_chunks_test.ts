import assert from "node:assert/strict";
import { gunzipSync } from "node:zlib";
import { isStreamedAnswer, wholeBodyOf } from "../../../api/http/answers.ts";
import { jsonAnswer } from "../../../api/http/json_answers.ts";
import {
  estimatedJsonBytes,
  jsonChunks,
} from "../../../api/http/json_chunks.ts";
import { KeptEncodings } from "../../../api/http/kept_encodings.ts";
import { keep } from "../../../domain/kept.ts";

function list(n: number): { clusters: object[]; nextPageToken: string } {
  return {
    clusters: Array.from({ length: n }, (_, i) => ({
      name: `cluster-${i}`,
      namespace: "team-a",
      envs: { A: "1" },
      events: [],
    })),
    nextPageToken: "",
  };
}

Deno.test("jsonChunks() joined is JSON.stringify() of the value", async (t) => {
  const cases: [string, unknown][] = [
    ["an empty list", list(0)],
    ["a list of one", list(1)],
    ["a list across several batches", list(2_345)],
    ["an array", [1, "two", null, { three: 3 }]],
    ["undefined members left out", { a: undefined, b: [undefined], c: 1 }],
    ["a scalar", "text"],
    ["null", null],
  ];
  for (const [name, value] of cases) {
    await t.step(name, () => {
      const got = [...jsonChunks(value)].join("");
      assert.equal(got, JSON.stringify(value));
    });
  }
});

Deno.test("estimatedJsonBytes() tells a large list from a small one", () => {
  const large = list(10_000);
  const exact = JSON.stringify(large).length;
  const estimate = estimatedJsonBytes(large);
  assert.ok(Math.abs(estimate - exact) / exact < 0.1, `${estimate} ${exact}`);
  assert.ok(estimatedJsonBytes(list(1)) < 200);
});

const LIMIT = 64 * 1024;

Deno.test("a kept answer larger than the limit is streamed complete, and its text is not kept", async () => {
  const json = keep(list(5_000));
  const encodings = new KeptEncodings();
  const request = new Request("http://corral/apis/v1alpha2/clusters");
  for (let i = 0; i < 2; i++) {
    const response = await jsonAnswer(
      json,
      true,
      request,
      "r",
      encodings,
      LIMIT,
    );
    assert.equal(isStreamedAnswer(response), true);
    assert.equal(wholeBodyOf(response), undefined);
    assert.deepEqual(await response.json(), json);
  }
  assert.equal(encodings.body(json), undefined);
});

Deno.test("a kept answer larger than the limit keeps its gzip form, made once", async () => {
  const json = keep(list(5_000));
  const encodings = new KeptEncodings();
  const request = new Request("http://corral/apis/v1alpha2/clusters", {
    headers: { "accept-encoding": "gzip" },
  });
  const first = await jsonAnswer(json, true, request, "r", encodings, LIMIT);
  const kept = encodings.compressed(json);
  assert.notEqual(kept, undefined);
  const second = await jsonAnswer(json, true, request, "r", encodings, LIMIT);
  assert.equal(encodings.compressed(json), kept);
  for (const response of [first, second]) {
    assert.equal(response.headers.get("content-encoding"), "gzip");
    const bytes = new Uint8Array(await response.arrayBuffer());
    assert.deepEqual(JSON.parse(gunzipSync(bytes).toString()), json);
  }
});

Deno.test("a kept answer within the limit keeps its text, as before", async () => {
  const json = keep(list(10));
  const encodings = new KeptEncodings();
  const request = new Request("http://corral/apis/v1alpha2/clusters");
  const response = await jsonAnswer(json, true, request, "r", encodings, LIMIT);
  assert.equal(isStreamedAnswer(response), false);
  assert.equal(encodings.body(json), JSON.stringify(json));
  assert.deepEqual(await response.json(), json);
});
