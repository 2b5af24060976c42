/**
 * The API reference page in a real browser: Debian's chromium, headless,
 * driven by playwright-core, against main.ts in embedded mode with a token
 * file, as an installation that requires credentials serves it. Offline: no
 * request may leave Corral's origin (the browser's background networking is
 * off, and the page's own requests are watched). "Test Request" without a
 * token gets Corral's 401; with the token pasted under Authentication it
 * sends `Authorization: Bearer <token>` and gets the caller's answer.
 *
 * Runs as `deno task test:browser` (needs /usr/bin/chromium: `apt-get
 * install -y chromium`), not in `deno task test`, with --allow-all:
 * playwright-core probes the system (home directory, /proc) as it loads, and
 * a test that runs a browser has --allow-run's reach anyway. With CORRAL_SCREENSHOTS
 * set to a directory (`deno task docs:screenshots` sets docs/), it saves
 * the page there as api-page.png and the "try it" answer as api-try-it.png.
 */
import assert from "node:assert/strict";
import {
  type BrowserContext,
  type Page,
  type Response as PageResponse,
} from "playwright-core";
import type { OpenApiDocument } from "../../api/openapi.ts";
import { eventually } from "../eventually.ts";
import {
  assertNoTrouble,
  CHROMIUM,
  launchChromium,
  SCREENSHOTS,
  watchTrouble,
} from "./browser.ts";
import {
  DEV_PERMISSIONS,
  EMBEDDED,
  type MainProcess,
  startMain,
} from "../main_process.ts";

/** The one line of the token file: alice of team-a. */
const TOKEN = "docs-token-0123456789abcdef0123456789";
const USER = "alice@example.com";
const TOKEN_FILE = `${TOKEN},${USER},1,"team-a"\n`;

/** The path of ListAllClusters, the operation the steps try. */
const LIST_ALL = "/apis/v1alpha2/clusters";

Deno.test("the API reference page works offline in headless chromium and sends the token pasted under Authentication", async (t) => {
  assert.ok(
    isFile(CHROMIUM),
    `${CHROMIUM} is missing: apt-get install -y chromium`,
  );
  const dir = await Deno.makeTempDir({ prefix: "corral-docs-page-" });
  let corral: MainProcess | undefined;
  let context: BrowserContext | undefined;
  try {
    await Deno.writeTextFile(`${dir}/tokens.csv`, TOKEN_FILE);
    corral = await startMain({
      args: [...EMBEDDED, "--token-auth-file", `${dir}/tokens.csv`],
      permissions: DEV_PERMISSIONS,
      startTimeoutMs: 20_000,
    });
    const origin = corral.http;
    const launched = await launchChromium(dir, {
      width: 1400,
      height: 900,
    });
    context = launched.context;
    const page = launched.page;
    const trouble = watchTrouble(page, origin);
    const doc: OpenApiDocument = await (await fetch(`${origin}/openapi.json`))
      .json();

    await t.step(
      "the page loads with no failed request, none outside Corral and no console error",
      async () => {
        await page.goto(`${origin}/docs`, { waitUntil: "networkidle" });
        await page.getByText("Lists the clusters of every namespace").first()
          .waitFor();
        assertNoTrouble(trouble);
      },
    );

    await t.step(
      "it shows both services, every operation and the bearer token field",
      async () => {
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
        // The document's Authentication section: bearerAuth, selected
        // (authentication.preferredSecurityScheme), its token field empty.
        await page.getByText("Selected Auth Type: bearerAuth").first()
          .waitFor();
        assert.equal(await tokenField(page).inputValue(), "");
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
      },
    );

    // A cluster to list, as docs/http-api.md's walk-through creates it, alice's.
    const headers = {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
    };
    for (
      const [path, body] of [
        [
          "/apis/v1/namespaces/team-a/compute_templates",
          exampleBody(doc, "/apis/v1/namespaces/{namespace}/compute_templates"),
        ],
        [
          "/apis/v1alpha2/namespaces/team-a/clusters",
          {
            ...exampleBody(
              doc,
              "/apis/v1alpha2/namespaces/{namespace}/clusters",
            ),
            user: USER,
          },
        ],
      ] as const
    ) {
      const response = await fetch(`${origin}${path}`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      });
      assert.equal(response.status, 200, await response.text());
    }

    await t.step(
      '"try it" on ListAllClusters without a token gets a 401 (code 16) from Corral',
      async () => {
        const response = await testListAllClusters(page);
        // With the field empty Scalar 1.72.1 still sends the scheme with no
        // token after it (it has no setting to leave the header out), which
        // Corral takes as no credentials, as the Kubernetes API server does:
        // 401, code 16, where a token file is configured.
        assert.equal(
          await response.request().headerValue("authorization"),
          "Bearer",
        );
        assert.equal(response.status(), 401);
        const body = await response.json();
        assert.equal(body.code, 16, JSON.stringify(body));
        assert.match(body.message, /^Unauthorized: /);
        // The answer shows in the client.
        await page.getByText("401 Unauthorized").first().waitFor();
        await page.getByText('"code": 16').first().waitFor();
        // The browser reports the 401 as a failed load: expected here, and
        // nothing else.
        assert.deepEqual(trouble, {
          failedRequests: [`GET ${origin}${LIST_ALL}: HTTP 401`],
          outsideRequests: [],
          consoleErrors: [
            "Failed to load resource: the server responded with a status of 401 (Unauthorized)",
          ],
        });
        trouble.failedRequests.length = 0;
        trouble.consoleErrors.length = 0;
        // Closes the client, back to the reference.
        await page.keyboard.press("Escape");
        await page.getByRole("button", { name: /^Send/ }).first().waitFor({
          state: "hidden",
        });
      },
    );

    await t.step(
      '"try it" with the token pasted under Authentication gets alice\'s 200',
      async () => {
        await tokenField(page).fill(TOKEN);
        const response = await testListAllClusters(page);
        // The client's own field holds the token pasted once on the page.
        assert.equal(
          await page.getByLabel("API Client").getByLabel("Bearer Token")
            .inputValue(),
          TOKEN,
        );
        assert.equal(response.url(), `${origin}${LIST_ALL}`);
        assert.equal(
          await response.request().headerValue("authorization"),
          `Bearer ${TOKEN}`,
        );
        assert.equal(response.status(), 200);
        const body = await response.json();
        assert.deepEqual(
          body.clusters.map((c: { name: string; user: string }) =>
            `${c.name} ${c.user}`
          ),
          [`blue ${USER}`],
        );
        // The answer shows in the client.
        await page.getByText("200 OK").first().waitFor();
        await page.getByText('"clusterSpec"').first().waitFor();
        // Corral served it to alice, and never logged the token.
        const handled = await eventually(
          "the Handled request line of alice's ListAllClusters",
          () =>
            Promise.resolve(
              corral!.records.find((record) =>
                record.msg === "Handled request" &&
                record.rpc === "proto.ClusterService/ListAllClusters" &&
                record.user === USER
              ),
            ),
          5_000,
        );
        assert.equal(handled.code, 0, JSON.stringify(handled));
        assert.ok(
          corral!.logs.every((line) => !line.includes(TOKEN)),
          "no log line holds the token",
        );
        // persistAuth: false: the page keeps the token in memory only.
        const stored: boolean = await page.evaluate(
          `Object.values(localStorage).some((v) => v.includes(${
            JSON.stringify(TOKEN)
          }))`,
        );
        assert.equal(stored, false, "the token is not in localStorage");
        if (SCREENSHOTS) {
          await page.waitForTimeout(500); // the client's fade-in
          await page.screenshot({ path: `${SCREENSHOTS}/api-try-it.png` });
        }
        assertNoTrouble(trouble);
      },
    );
  } finally {
    await context?.close();
    const status = corral ? await corral.stop() : undefined;
    await Deno.remove(dir, { recursive: true });
    if (corral) assert.equal(status?.code, 0, corral.logs.join("\n"));
  }
});

Deno.test("the API reference page of plain deno task dev (anonymous) answers Test Request without a token", async () => {
  assert.ok(isFile(CHROMIUM), `${CHROMIUM} is missing`);
  const dir = await Deno.makeTempDir({ prefix: "corral-docs-anonymous-" });
  let corral: MainProcess | undefined;
  let context: BrowserContext | undefined;
  try {
    corral = await startMain({
      args: EMBEDDED,
      permissions: DEV_PERMISSIONS,
      startTimeoutMs: 20_000,
    });
    const launched = await launchChromium(dir, {
      width: 1400,
      height: 900,
    });
    context = launched.context;
    const page = launched.page;
    const trouble = watchTrouble(page, corral.http);
    await page.goto(`${corral.http}/docs`, { waitUntil: "networkidle" });
    const response = await testListAllClusters(page);
    // The empty "Bearer" the page sends is no credentials: anonymous.
    assert.equal(
      await response.request().headerValue("authorization"),
      "Bearer",
    );
    assert.equal(response.status(), 200, await response.text());
    await page.getByText("200 OK").first().waitFor();
    assertNoTrouble(trouble);
  } finally {
    await context?.close();
    const status = corral ? await corral.stop() : undefined;
    await Deno.remove(dir, { recursive: true });
    if (corral) assert.equal(status?.code, 0, corral.logs.join("\n"));
  }
});

/**
 * The token field of the document's Authentication section: the one visible
 * text box labelled "Bearer Token" while the client is closed (the client,
 * labelled "API Client", has its own, kept in the page once opened).
 */
function tokenField(page: Page) {
  return page.getByRole("textbox", { name: "Bearer Token", exact: true });
}

/** Opens "Test Request" on ListAllClusters, sends it, returns the answer. */
async function testListAllClusters(page: Page): Promise<PageResponse> {
  await page.getByText("Lists the clusters of every namespace").first()
    .click();
  await page.getByRole("button", {
    name: /Test Request.*get \/apis\/v1alpha2\/clusters\)/,
  }).click();
  const answered = page.waitForResponse((response) =>
    new URL(response.url()).pathname === LIST_ALL
  );
  await page.getByRole("button", { name: /^Send/ }).first().click();
  return await answered;
}

/** The example request body of a path's POST operation. */
function exampleBody(doc: OpenApiDocument, path: string): object {
  const requestBody = doc.paths[path].post.requestBody as {
    content: Record<string, { example: object }>;
  };
  return requestBody.content["application/json"].example;
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
