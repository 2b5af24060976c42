/**
 * The console's files as Corral serves them (api/console.ts): everything
 * from Corral's own origin, a strict Content-Security-Policy, compressed
 * answers within the page's budget, and assets cached for good under their
 * hash. The console in a browser is tests/browser/console_test.ts.
 */
import assert from "node:assert/strict";
import { CONSOLE_PATH, consolePages, loadConsole } from "../../api/console.ts";
import { createHttpApp } from "../../api/http/router.ts";
import { getDecoded } from "./http/decoded.ts";

/** The whole console, compressed, must stay under this (issue budget). */
const BUDGET_BYTES = 250 * 1024;

async function app() {
  const assets = await loadConsole();
  return {
    assets,
    handler: createHttpApp({
      gateway: () => Promise.resolve(new Response(null, { status: 404 })),
      pages: consolePages(assets),
    }),
  };
}

Deno.test("the console page loads only its own hashed modules and stylesheet, nothing from elsewhere", async () => {
  const { assets, handler } = await app();
  const response = await handler(
    new Request(`http://corral.test${CONSOLE_PATH}`),
  );
  assert.equal(response.status, 200);
  const html = await response.text();
  const [, css, ...modules] = assets.map((a) => a.path);
  assert.match(css, /^\/console\/console-[0-9a-f]{12}\.css$/);
  assert.ok(html.includes(`href="${css}"`), html);
  const folder = modules[0].slice(0, modules[0].lastIndexOf("/"));
  assert.match(folder, /^\/console\/[0-9a-f]{12}$/);
  assert.ok(
    html.includes(`<script type="module" src="${folder}/console.js">`),
    html,
  );
  for (const module of modules) {
    assert.match(module, /^\/console\/[0-9a-f]{12}\/[a-z_]+\.js$/);
    assert.ok(module.startsWith(`${folder}/`), `${module} beside the others`);
    if (!module.endsWith("/console.js")) {
      assert.ok(
        html.includes(`<link rel="modulepreload" href="${module}">`),
        `the page preloads ${module}`,
      );
    }
  }
  for (const asset of assets) {
    const text = new TextDecoder().decode(asset.identity);
    assert.doesNotMatch(text, /https?:\/\//, `${asset.path}: no absolute URL`);
  }
  const csp = response.headers.get("content-security-policy")!;
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.match(csp, /style-src 'self'(;|$)/);
  assert.match(csp, /connect-src 'self'/);
  assert.doesNotMatch(csp, /unsafe/);
  assert.equal(response.headers.get("cache-control"), "no-cache");
  const slash = await handler(
    new Request(`http://corral.test${CONSOLE_PATH}/`),
  );
  assert.equal(await slash.text(), html);
});

Deno.test("the console is answered compressed as the browser accepts it, within 250 KB", async () => {
  const { assets, handler } = await app();
  let total = 0;
  for (const asset of assets) {
    for (
      const [accept, encoding] of [
        ["gzip, deflate, br, zstd", "br"],
        ["gzip", "gzip"],
        ["br;q=0, gzip", "gzip"],
        ["", null],
      ] as const
    ) {
      const got = await getDecoded(handler, asset.path, accept);
      assert.equal(got.encoding, encoding);
      assert.deepEqual(got.plain, asset.identity, asset.path);
      if (encoding === "br") total += got.size;
    }
    if (asset.path !== CONSOLE_PATH) {
      const response = await handler(
        new Request(`http://corral.test${asset.path}`),
      );
      await response.body?.cancel();
      assert.match(response.headers.get("cache-control")!, /immutable/);
    }
  }
  assert.ok(total < BUDGET_BYTES, `${total} bytes`);
  console.log(`console, compressed: ${total} bytes`);
});

Deno.test("the console's modules are served as JavaScript, type-checked, and every module they import is served", async () => {
  const { assets } = await app();
  const served = new Set(assets.map((a) => a.path));
  const modules = assets.filter((a) => a.path.endsWith(".js"));
  assert.ok(modules.length > 1, "more than one module");
  for (const module of modules) {
    assert.equal(module.type, "text/javascript; charset=utf-8", module.path);
    const text = new TextDecoder().decode(module.identity);
    assert.ok(text.startsWith("// @ts-check\n"), `${module.path}: @ts-check`);
    const imports = [...text.matchAll(/^import [^;]*? from "([^"]+)";$/gms)]
      .map((m) => m[1]);
    for (const specifier of imports) {
      const path = new URL(specifier, `http://corral.test${module.path}`)
        .pathname;
      assert.ok(served.has(path), `${module.path} imports ${path}, served`);
    }
  }
  const entry = modules.find((m) => m.path.endsWith("/console.js"))!;
  assert.ok(
    new TextDecoder().decode(entry.identity).includes('from "./router.js"'),
    "the entry module imports the others",
  );
});

Deno.test("HEAD on the console answers as GET without a body", async () => {
  const { handler } = await app();
  const response = await handler(
    new Request(`http://corral.test${CONSOLE_PATH}`, { method: "HEAD" }),
  );
  assert.equal(response.status, 200);
  assert.equal(await response.text(), "");
});

Deno.test("with an OIDC issuer the console page may call the issuer's origin, and no other", async () => {
  const assets = await loadConsole();
  const handler = createHttpApp({
    gateway: () => Promise.resolve(new Response(null, { status: 404 })),
    pages: consolePages(assets, ["https://dex.example.com"]),
  });
  const response = await handler(
    new Request(`http://corral.test${CONSOLE_PATH}`),
  );
  await response.body?.cancel();
  const csp = response.headers.get("content-security-policy")!;
  assert.match(csp, /connect-src 'self' https:\/\/dex\.example\.com;/);
  assert.match(csp, /script-src 'self';/);
  assert.match(csp, /form-action 'self';/);
});
