/**
 * Another site's page against Corral in a real browser: Debian's chromium,
 * headless, against main.ts in embedded mode without a token file, where
 * every visitor is system:anonymous (the worst case: nothing but the
 * browser's reach is needed). The page, served by a second little server on
 * another origin, tries what the issue found accepted: a no-cors fetch
 * with a text/plain JSON body, one with an untyped body, form posts
 * (urlencoded and text/plain), and a rebinding name that resolves to
 * Corral. Afterwards nothing was created; the same body, sent as
 * application/json by a client that is no browser, still creates.
 *
 * The gRPC port is no way round: grpc-js answers anything but
 * application/grpc* with 415.
 *
 * Runs in `deno task test:browser` (needs /usr/bin/chromium).
 */
import assert from "node:assert/strict";
import http2 from "node:http2";
import type { BrowserContext, Page } from "playwright-core";
import { launchChromium } from "./browser.ts";
import {
  DEV_PERMISSIONS,
  EMBEDDED,
  type MainProcess,
  startMain,
} from "../main_process.ts";
import { NS, sampleCluster } from "../api/cases.ts";

const CLUSTERS = `/apis/v1alpha2/namespaces/${NS}/clusters`;
const TEMPLATES = `/apis/v1/namespaces/${NS}/compute_templates`;
/** A name chromium resolves to 127.0.0.1: the attacker's, rebound. */
const REBOUND = "rebind.test";

/** The attacker's page: two forms that post to `target`, into a frame. */
function attackerPage(target: string): string {
  const cluster = JSON.stringify(sampleCluster({ name: "by-form" }));
  // A text/plain form sends `name=value` as it is: a name that is JSON but
  // for its end, and a value that closes it, make a cluster whose last
  // envs entry (JSON.parse keeps a repeated key's last value) holds the
  // "=" between them.
  const [head, tail] = [cluster.slice(0, -1) + ',"envs":{"X":"', '"}}'];
  const quoted = (text: string) => text.replaceAll('"', "&quot;");
  return `<!doctype html><title>Win a prize</title>
<iframe name="sink"></iframe>
<form id="urlencoded" method="post" action="${target}" target="sink">
  <input name="${quoted(cluster)}" value="">
</form>
<form id="plain" method="post" action="${target}" target="sink"
  enctype="text/plain">
  <input name="${quoted(head)}" value="${quoted(tail)}">
</form>`;
}

/** A second server, on another origin: it serves the attacker's page. */
function serveAttacker(target: string): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () =>
      new Response(attackerPage(target), {
        headers: { "content-type": "text/html" },
      }),
  );
}

/** What the browser was answered by Corral, request by request. */
function corralAnswers(page: Page, port: number): string[] {
  const answers: string[] = [];
  page.on("response", (response) => {
    const url = new URL(response.url());
    if (url.port === String(port) && url.pathname.startsWith("/apis/")) {
      answers.push(
        `${response.request().method()} ${url.hostname} ${url.pathname}: ${response.status()}`,
      );
    }
  });
  return answers;
}

async function names(corral: MainProcess, path: string): Promise<string[]> {
  const response = await fetch(corral.http + path);
  const body = await response.json();
  assert.equal(response.status, 200, JSON.stringify(body));
  const items = body.clusters ?? body.computeTemplates ?? [];
  return items.map((item: { name: string }) => item.name).sort();
}

async function postJson(corral: MainProcess, path: string, body: unknown) {
  const response = await fetch(corral.http + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, 200, await response.text());
}

Deno.test("another site's page creates nothing through a visitor's browser: no-cors and form posts, a rebinding name", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "corral-cross-site-" });
  let corral: MainProcess | undefined;
  let attacker: Deno.HttpServer<Deno.NetAddr> | undefined;
  let context: BrowserContext | undefined;
  try {
    // No token file: embedded mode serves everyone as system:anonymous.
    corral = await startMain({
      args: [...EMBEDDED],
      permissions: DEV_PERMISSIONS,
      startTimeoutMs: 20_000,
    });
    const base = corral.http;
    const port = Number(new URL(base).port);
    const { clusterSpec: spec } = sampleCluster() as unknown as {
      clusterSpec: { headGroupSpec: { computeTemplate: string } };
    };
    await postJson(corral, TEMPLATES, {
      name: spec.headGroupSpec.computeTemplate,
      cpu: 2,
      memory: 4,
    });
    attacker = serveAttacker(base + CLUSTERS);
    const launched = await launchChromium(dir, { width: 800, height: 600 }, [
      `--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`,
    ]);
    context = launched.context;
    const page = launched.page;
    const answers = corralAnswers(page, port);
    // localhost and 127.0.0.1 are different sites: the page is
    // cross-site to Corral, as another site's would be.
    await page.goto(`http://localhost:${attacker.addr.port}/`);

    await t.step("no-cors fetches: text/plain and untyped JSON", async () => {
      const outcomes = await page.evaluate(
        async ([url, text]) => {
          const sent = [
            { "content-type": "text/plain" },
            undefined,
          ].map((headers, i) =>
            fetch(url, {
              method: "POST",
              mode: "no-cors",
              headers,
              body: i === 0 ? text : new Blob([text]),
            }).then((r) => r.type, (e) => String(e))
          );
          return await Promise.all(sent);
        },
        [
          base + CLUSTERS,
          JSON.stringify(sampleCluster({ name: "by-fetch" })),
        ] as const,
      );
      assert.deepEqual(outcomes, ["opaque", "opaque"]);
    });

    await t.step("form posts: urlencoded and text/plain", async () => {
      for (const form of ["urlencoded", "plain"]) {
        const frame = page.waitForEvent("framenavigated", {
          predicate: (f) => f.name() === "sink",
        });
        await page.locator(`#${form}`).evaluate((element) =>
          (element as unknown as { submit(): void }).submit()
        );
        await frame;
        await page.frame("sink")!.waitForLoadState();
      }
    });

    await t.step(
      "a rebinding name: its page reads and writes nothing",
      async () => {
        const rebound = `http://${REBOUND}:${port}`;
        // The attacker's name now resolves to Corral: what its page asks for
        // is same-origin, and only the Host header tells it apart.
        const list = await page.goto(`${rebound}${CLUSTERS}`);
        assert.equal(list?.status(), 421);
        const written = await page.evaluate(
          async ([url, text]) =>
            (await fetch(url, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: text,
            })).status,
          [
            rebound + CLUSTERS,
            JSON.stringify(sampleCluster({ name: "by-rebinding" })),
          ] as const,
        );
        assert.equal(written, 421);
      },
    );

    await t.step(
      "every attempt was refused, and nothing was created",
      async () => {
        assert.deepEqual(answers, [
          `POST 127.0.0.1 ${CLUSTERS}: 403`,
          `POST 127.0.0.1 ${CLUSTERS}: 403`,
          `POST 127.0.0.1 ${CLUSTERS}: 403`,
          `POST 127.0.0.1 ${CLUSTERS}: 403`,
          `GET ${REBOUND} ${CLUSTERS}: 421`,
          `POST ${REBOUND} ${CLUSTERS}: 421`,
        ]);
        assert.deepEqual(await names(corral!, CLUSTERS), []);
      },
    );

    await t.step(
      "the same body as application/json, from no browser, creates",
      async () => {
        await postJson(corral!, CLUSTERS, sampleCluster({ name: "by-client" }));
        assert.deepEqual(await names(corral!, CLUSTERS), ["by-client"]);
      },
    );

    await t.step(
      "the gRPC port answers a text/plain POST with 415",
      async () => {
        const session = http2.connect(`http://${corral!.grpc}`);
        try {
          const status = await new Promise<number>((resolve, reject) => {
            const stream = session.request({
              ":method": "POST",
              ":path": "/proto.ClusterService/CreateCluster",
              "content-type": "text/plain",
            });
            stream.on("response", (headers) => resolve(headers[":status"]!));
            stream.on("error", reject);
            stream.end(JSON.stringify(sampleCluster({ name: "by-grpc" })));
          });
          assert.equal(status, 415);
        } finally {
          session.close();
        }
        assert.deepEqual(await names(corral!, CLUSTERS), ["by-client"]);
      },
    );
  } finally {
    await context?.close();
    await attacker?.shutdown();
    await corral?.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
