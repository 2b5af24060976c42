/**
 * Two dependency sets: deno.json and deno.lock hold what the service runs
 * on, tests/deno.json and tests/deno.lock add what only tests and tooling
 * use. `deno task` installs every package of the root lockfile before it
 * runs anything, so a test package there would be downloaded by the first
 * `deno task dev` and shipped in the image. The tests must run on exactly
 * the versions production runs.
 */
import assert from "node:assert/strict";

interface Config {
  imports: Record<string, string>;
}
interface Lockfile {
  npm: Record<string, { integrity: string }>;
}

const read = async <T>(path: string): Promise<T> =>
  JSON.parse(await Deno.readTextFile(new URL(`../${path}`, import.meta.url)));

Deno.test("the tests import every package the service does, at the same version", async () => {
  const product = await read<Config>("deno.json");
  const tests = await read<Config>("tests/deno.json");
  for (const [name, specifier] of Object.entries(product.imports)) {
    assert.equal(tests.imports[name], specifier, name);
  }
});

Deno.test("the tests' lockfile holds every package of the service's, identical", async () => {
  const product = await read<Lockfile>("deno.lock");
  const tests = await read<Lockfile>("tests/deno.lock");
  // The same package at the same version with the same content; its
  // dependencies are written "tslib" or "tslib@2.9.1" depending on whether
  // the lockfile holds other versions of them.
  for (const [id, entry] of Object.entries(product.npm)) {
    assert.equal(tests.npm[id]?.integrity, entry.integrity, id);
  }
});

Deno.test("the service's lockfile holds no test-only package", async () => {
  const product = await read<Config>("deno.json");
  const tests = await read<Config>("tests/deno.json");
  const lock = await read<Lockfile>("deno.lock");
  const testOnly = Object.keys(tests.imports).filter((name) =>
    !(name in product.imports)
  );
  assert.ok(testOnly.includes("playwright-core"), testOnly.join(" "));
  for (const name of testOnly) {
    const found = Object.keys(lock.npm).filter((id) =>
      id.startsWith(`${name}@`)
    );
    assert.deepEqual(found, [], `${name} is in deno.lock`);
  }
});
