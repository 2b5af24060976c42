import assert from "node:assert/strict";
import { NEWEST_RAY_VERSION, RAY_VERSIONS } from "../../domain/ray_versions.ts";

Deno.test("the newest Ray version is the first of those Corral knows, newest first", () => {
  assert.equal(NEWEST_RAY_VERSION, RAY_VERSIONS[0]);
  const numbers = RAY_VERSIONS.map((v) => v.split(".").map(Number));
  for (let i = 1; i < numbers.length; i++) {
    const [a, b] = [numbers[i - 1], numbers[i]];
    assert.ok(
      a[0] > b[0] ||
        (a[0] === b[0] && (a[1] > b[1] || (a[1] === b[1] && a[2] > b[2]))),
      `${RAY_VERSIONS[i - 1]} before ${RAY_VERSIONS[i]}`,
    );
  }
});
