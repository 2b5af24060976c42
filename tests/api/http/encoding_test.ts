/** acceptedEncodings() (api/http/encoding.ts): Accept-Encoding as RFC 9110 reads it. */
import assert from "node:assert/strict";
import { acceptedEncodings } from "../../../api/http/encoding.ts";

Deno.test("acceptedEncodings() takes what is listed, less what q=0 refuses", () => {
  const cases: [string | null, string[]][] = [
    [null, []],
    ["", []],
    ["gzip, deflate, br, zstd", ["gzip", "deflate", "br", "zstd"]],
    ["GZIP;q=0.5", ["gzip"]],
    ["gzip;q=0, identity", ["identity"]],
    ["br;q=0.0, gzip;Q=1", ["gzip"]],
    ["br;q=x", []],
  ];
  for (const [header, want] of cases) {
    assert.deepEqual([...acceptedEncodings(header)], want, String(header));
  }
});
