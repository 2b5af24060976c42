/**
 * third_party/ holds, byte for byte, the files of the packages pinned in
 * tests/deno.json that tools/third_party.ts names, and the service's own
 * dependencies (deno.json) do not include those packages
 * (tests/dependencies_test.ts keeps them out of deno.lock).
 */
import assert from "node:assert/strict";
import { syncThirdParty, VENDORED } from "../tools/third_party.ts";

const ROOT = new URL("../", import.meta.url);

async function imports(config: string): Promise<Record<string, string>> {
  return JSON.parse(await Deno.readTextFile(new URL(config, ROOT))).imports;
}

Deno.test("every file in third_party/ is the pinned package's", async () => {
  assert.deepEqual(await syncThirdParty(false), []);
});

Deno.test("a copy that differs from its package is reported", async () => {
  const root = await Deno.makeTempDir({ prefix: "corral-third-party-" });
  try {
    const drift = await syncThirdParty(false, new URL(`file://${root}/`));
    const expected = VENDORED.flatMap(({ files }) => Object.values(files));
    assert.deepEqual(drift.map((d) => d.copy).sort(), expected.sort());
    await syncThirdParty(true, new URL(`file://${root}/`));
    assert.deepEqual(
      await syncThirdParty(false, new URL(`file://${root}/`)),
      [],
    );
    const bundle = `${root}/third_party/scalar/standalone.js`;
    await Deno.writeTextFile(bundle, "\n", { append: true });
    assert.deepEqual(
      (await syncThirdParty(false, new URL(`file://${root}/`))).map((d) =>
        d.copy
      ),
      ["third_party/scalar/standalone.js"],
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the vendored packages are the tests' only, so the service never downloads them", async () => {
  const service = await imports("deno.json");
  const tests = await imports("tests/deno.json");
  for (const { name } of VENDORED) {
    assert.equal(service[name], undefined, `${name} in deno.json`);
    assert.match(tests[name], /^npm:.+@\d+\.\d+\.\d+$/, `${name} pinned`);
  }
});
