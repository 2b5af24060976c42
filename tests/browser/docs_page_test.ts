/**
 * The API reference page in a real browser: Debian's chromium, headless,
 * driven by playwright-core, against main.ts in embedded mode as `deno
 * task dev` runs it. Offline: no request may leave Corral's origin (the
 * browser's background networking is off, and the page's own requests are
 * watched).
 *
 * Runs as `deno task test:browser` (needs /usr/bin/chromium: `apt-get
 * install -y chromium`), not in `deno task test`, with --allow-all:
 * playwright-core probes the system (home directory, /proc) as it loads, and
 * a test that runs a browser has --allow-run's reach anyway. With CORRAL_SCREENSHOTS
 * set to a directory (`deno task docs:screenshots` sets docs/), it saves
 * the page there as api-page.png and the "try it" answer as api-try-it.png.
 */
import assert from "node:assert/strict";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import type { OpenApiDocument } from "../../api/openapi.ts";
import { EMBEDDED, startMain } from "../main_process.ts";

const CHROMIUM = "/usr/bin/chromium";
const SCREENSHOTS = Deno.env.get("CORRAL_SCREENSHOTS");

/** What went wrong on the page, by kind; every list must stay empty. */
interface Trouble {
  failedRequests: string[];
  outsideRequests: string[];
  consoleErrors: string[];
}

function watch(page: Page, origin: string): Trouble {
  const trouble: Trouble = {
    failedRequests: [],
    outsideRequests: [],
    consoleErrors: [],
  };
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.protocol === "data:" || url.protocol === "blob:") return;
    if (url.origin !== origin) trouble.outsideRequests.push(request.url());
  });
  page.on("requestfailed", (request) =>
    trouble.failedRequests.push(
      `${request.method()} ${request.url()}: ${request.failure()?.errorText}`,
    ));
  page.on("response", (response) => {
    if (response.status() >= 400) {
      trouble.failedRequests.push(
        `${response.request().method()} ${response.url()}: HTTP ${response.status()}`,
      );
    }
  });
  page.on("console", (message) => {
    if (message.type() === "error") trouble.consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => trouble.consoleErrors.push(String(error)));
  return trouble;
}

function assertNoTrouble(trouble: Trouble): void {
  assert.deepEqual(trouble, {
    failedRequests: [],
    outsideRequests: [],
    consoleErrors: [],
  });
}

Deno.test("the API reference page works offline in headless chromium", async (t) => {
  assert.ok(
    isFile(CHROMIUM),
    `${CHROMIUM} is missing: apt-get install -y chromium`,
  );
  const dev = await startMain({ args: EMBEDDED });
  const userDataDir = await Deno.makeTempDir({ prefix: "corral-chromium-" });
  let context: BrowserContext | undefined;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-background-networking"],
      viewport: { width: 1400, height: 900 },
    });
    const page = context.pages()[0] ?? await context.newPage();
    const trouble = watch(page, dev.http);
    const doc: OpenApiDocument = await (await fetch(`${dev.http}/openapi.json`))
      .json();

    await t.step(
      "the page loads with no failed request, none outside Corral and no console error",
      async () => {
        await page.goto(`${dev.http}/docs`, { waitUntil: "networkidle" });
        await page.getByText("Lists the clusters of every namespace").first()
          .waitFor();
        assertNoTrouble(trouble);
      },
    );

    await t.step("it shows both services and every operation", async () => {
      for (const tag of ["ClusterService", "ComputeTemplateService"]) {
        await page.getByText(tag, { exact: true }).first().waitFor();
      }
      for (const item of Object.values(doc.paths)) {
        for (const operation of Object.values(item)) {
          const summary = String(operation.summary);
          await page.getByText(summary, { exact: true }).first().waitFor({
            timeout: 5_000,
          });
        }
      }
      // Links out of Corral only for Scalar's attribution: no "Open API
      // Client" link handing this document's URL to client.scalar.com.
      const links: string[] = await page.evaluate(
        `[...document.querySelectorAll("a[href]")].map((a) => a.href)
          .filter((href) => !href.startsWith(location.origin))`,
      );
      assert.deepEqual(
        links.filter((href) => href !== "https://www.scalar.com/"),
        [],
      );
      if (SCREENSHOTS) {
        await page.screenshot({ path: `${SCREENSHOTS}/api-page.png` });
      }
      assertNoTrouble(trouble);
    });

    await t.step(
      '"try it" on ListAllClusters gets a 200 from Corral',
      async () => {
        // A cluster to list, as the README's walk-through creates it.
        const create = doc
          .paths["/apis/v1/namespaces/{namespace}/compute_templates"]
          .post.requestBody as {
            content: Record<string, { example: unknown }>;
          };
        const cluster = doc
          .paths["/apis/v1alpha2/namespaces/{namespace}/clusters"]
          .post.requestBody as {
            content: Record<string, { example: unknown }>;
          };
        for (
          const [path, body] of [
            [
              "/apis/v1/namespaces/team-a/compute_templates",
              create.content["application/json"].example,
            ],
            [
              "/apis/v1alpha2/namespaces/team-a/clusters",
              cluster.content["application/json"].example,
            ],
          ] as const
        ) {
          const response = await fetch(`${dev.http}${path}`, {
            method: "POST",
            body: JSON.stringify(body),
          });
          assert.equal(response.status, 200, await response.text());
        }

        await page.getByText("Lists the clusters of every namespace").first()
          .click();
        await page.getByRole("button", {
          name: /Test Request.*get \/apis\/v1alpha2\/clusters\)/,
        }).click();
        const answered = page.waitForResponse((response) =>
          new URL(response.url()).pathname === "/apis/v1alpha2/clusters"
        );
        await page.getByRole("button", { name: /^Send/ }).first().click();
        const response = await answered;
        assert.equal(response.url(), `${dev.http}/apis/v1alpha2/clusters`);
        assert.equal(response.status(), 200);
        const body = await response.json();
        assert.deepEqual(
          body.clusters.map((c: { name: string }) => c.name),
          ["blue"],
        );
        // The answer shows in the client.
        await page.getByText("200 OK").first().waitFor();
        await page.getByText('"clusterSpec"').first().waitFor();
        if (SCREENSHOTS) {
          await page.waitForTimeout(500); // the client's fade-in
          await page.screenshot({ path: `${SCREENSHOTS}/api-try-it.png` });
        }
        assertNoTrouble(trouble);
      },
    );
  } finally {
    await context?.close();
    await Deno.remove(userDataDir, { recursive: true });
    const status = await dev.stop();
    assert.equal(status.code, 0, dev.logs.join("\n"));
  }
});

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
