/**
 * The documentation pages: the Scalar page and its bundle from Corral's own
 * origin, and main.ts serving them, the OpenAPI document, reflection and
 * health as `deno task dev` does. The page in a real browser is
 * tests/browser/docs_page_test.ts (`deno task test:browser`).
 */
import assert from "node:assert/strict";
import { Code } from "../../domain/errors.ts";
import {
  DOCS_PATHS,
  docsPages,
  loadScalarBundle,
  openApiJson,
} from "../../api/docs.ts";
import { createHttpApp } from "../../api/http/router.ts";
import { getDecoded } from "./http/decoded.ts";
import { packageDir } from "../../tools/third_party.ts";
import { schema } from "../harness.ts";
import { EMBEDDED, startMain } from "../main_process.ts";
import { discoveryClient } from "./grpc/discovery_client.ts";
import { currentDocument, GOLDEN } from "./openapi_golden.ts";

async function app() {
  return createHttpApp({
    gateway: () => Promise.resolve(new Response("gateway")),
    pages: docsPages(await currentDocument(), await loadScalarBundle()),
  });
}

Deno.test("loadScalarBundle() reads the standalone bundle of the pinned @scalar/api-reference", async () => {
  const bundle = await loadScalarBundle();
  const pinned = new URL(
    "dist/browser/standalone.js",
    await packageDir("@scalar/api-reference"),
  );
  assert.deepEqual(bundle.script, await Deno.readFile(pinned));
  assert.match(bundle.hash, /^[0-9a-f]{16}$/);
  assert.ok(bundle.script.byteLength > 1_000_000, "the self-contained bundle");
  const text = new TextDecoder().decode(bundle.script.subarray(-2000));
  assert.match(text, /createApiReference/);
});

Deno.test("/docs is a page of Corral's own scripts, held to its origin by its Content-Security-Policy", async () => {
  const handler = await app();
  for (const path of ["/docs", "/docs/"]) {
    const response = await handler(new Request(`http://corral.test${path}`));
    assert.equal(response.status, 200, path);
    assert.equal(
      response.headers.get("content-type"),
      "text/html; charset=utf-8",
    );
    const csp = response.headers.get("content-security-policy")!;
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /connect-src 'self'/);
    assert.match(csp, /font-src 'self' data:/);
    const html = await response.text();
    assert.doesNotMatch(html, /https?:\/\//, "no absolute URL");
    const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) =>
      m[1]
    );
    assert.deepEqual(scripts, [
      `/docs/scalar-api-reference-${(await loadScalarBundle()).hash}.js`,
      DOCS_PATHS.init,
    ]);
    for (const script of scripts) {
      const js = await handler(new Request(`http://corral.test${script}`));
      assert.equal(js.status, 200, script);
      assert.equal(
        js.headers.get("content-type"),
        "text/javascript; charset=utf-8",
      );
      await js.body?.cancel();
    }
  }
});

Deno.test("the page's configuration turns off everything that reaches outside Corral", async () => {
  const handler = await app();
  const init = await (await handler(
    new Request(`http://corral.test${DOCS_PATHS.init}`),
  )).text();
  const configuration = JSON.parse(
    /createApiReference\("#app", ([\s\S]*)\);\s*$/.exec(init)![1],
  );
  assert.equal(configuration.url, "/openapi.json");
  assert.equal(configuration.withDefaultFonts, false);
  assert.equal(configuration.telemetry, false);
  assert.deepEqual(configuration.agent, { disabled: true });
  assert.deepEqual(configuration.mcp, { disabled: true });
  assert.equal(configuration.proxyUrl, undefined, "no request proxy");
  // Scalar mounts on its own on an element with id "api-reference", with
  // its defaults (fonts from its CDN): the page must not have one.
  const html = await (await handler(new Request("http://corral.test/docs")))
    .text();
  assert.doesNotMatch(html, /id="api-reference"/);
});

Deno.test("the bundle is cached for good under its hashed path; the document is not cached", async () => {
  const handler = await app();
  const { hash } = await loadScalarBundle();
  const bundle = await handler(
    new Request(`http://corral.test/docs/scalar-api-reference-${hash}.js`),
  );
  await bundle.body?.cancel();
  assert.match(bundle.headers.get("cache-control")!, /immutable/);
  const json = await handler(new Request("http://corral.test/openapi.json"));
  assert.equal(json.headers.get("cache-control"), "no-cache");
  assert.equal(await json.text(), openApiJson(await currentDocument()));
});

Deno.test("the pages answer HEAD without a body and refuse other methods with 405", async () => {
  const handler = await app();
  const head = await handler(
    new Request("http://corral.test/openapi.json", { method: "HEAD" }),
  );
  assert.equal(head.status, 200);
  assert.equal(head.body, null);
  const post = await handler(
    new Request("http://corral.test/docs", { method: "POST" }),
  );
  assert.equal(post.status, 405);
  assert.equal((await post.json()).code, Code.UNIMPLEMENTED);
});

Deno.test("main.ts serves the document, the page, reflection and health with the Containerfile's permissions", async (t) => {
  // startMain runs main.ts with --allow-net --allow-env --allow-read only
  // by default, as the container does.
  const dev = await startMain({ args: EMBEDDED });
  const api = await schema();
  const client = await discoveryClient(dev.grpc, api.root);
  try {
    await t.step("/openapi.json is the golden copy", async () => {
      const response = await fetch(`${dev.http}/openapi.json`);
      assert.equal(response.status, 200);
      assert.equal(await response.text(), await Deno.readTextFile(GOLDEN));
    });
    await t.step("/docs and its scripts are served", async () => {
      const html = await (await fetch(`${dev.http}/docs`)).text();
      for (const [, src] of html.matchAll(/<script src="([^"]+)"/g)) {
        const script = await fetch(`${dev.http}${src}`);
        assert.equal(script.status, 200, src);
        await script.body?.cancel();
      }
    });
    await t.step(
      "reflection lists both services, health answers SERVING",
      async () => {
        const services = await client.listServices();
        for (
          const name of [
            "proto.ClusterService",
            "proto.ComputeTemplateService",
            "grpc.health.v1.Health",
          ]
        ) {
          assert.ok(services.includes(name), `${name} in ${services}`);
        }
        assert.equal(await client.check(""), "SERVING");
        assert.equal(await client.check("proto.ClusterService"), "SERVING");
      },
    );
    await t.step("a health Watch does not hold the shutdown", async () => {
      const watch = client.watch("");
      assert.equal(await watch.next(), "SERVING");
      const status = await dev.stop();
      assert.equal(status.code, 0, dev.logs.join("\n"));
      assert.equal(await watch.next(), "NOT_SERVING");
    });
  } finally {
    client.close();
    await dev.stop().catch(() => {});
  }
});

Deno.test("the bundle is answered compressed as the browser accepts it, made once, and whole without compression", async () => {
  const handler = await app();
  const bundle = await loadScalarBundle();
  const path = `/docs/scalar-api-reference-${bundle.hash}.js`;
  for (const [accept, encoding] of [["gzip, br", "br"], ["gzip", "gzip"]]) {
    const sizes: number[] = [];
    for (let again = 0; again < 2; again++) {
      const got = await getDecoded(handler, path, accept);
      assert.equal(got.encoding, encoding);
      assert.deepEqual(got.plain, bundle.script);
      sizes.push(got.size);
    }
    assert.ok(sizes[0] < bundle.script.byteLength / 3, `${sizes[0]} bytes`);
  }
  const plain = await handler(new Request(`http://corral.test${path}`));
  assert.equal(plain.headers.get("content-encoding"), null);
  assert.deepEqual(new Uint8Array(await plain.arrayBuffer()), bundle.script);
});
