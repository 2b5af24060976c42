/**
 * The console at /console in a real browser: Debian's chromium, headless,
 * driven by playwright-core, against main.ts in embedded mode with a token
 * file (so signing in is part of the walk). A person signs in, makes a
 * compute template, sees a bad form answered field by field, creates a
 * cluster and watches it become ready, scales it, sees a cluster made
 * elsewhere appear, and deletes one; no request leaves Corral and nothing
 * fails that should not.
 *
 * Runs in `deno task test:browser` (needs /usr/bin/chromium). With
 * CORRAL_SCREENSHOTS set (`deno task docs:screenshots`), saves the main
 * views there as console-*.png.
 */
import assert from "node:assert/strict";
import type { BrowserContext, Page } from "playwright-core";
import {
  assertNoTrouble,
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

const TOKEN = "console-token-0123456789abcdef012345";
const USER = "alice@example.com";

async function shot(page: Page, name: string): Promise<void> {
  if (SCREENSHOTS) {
    await page.screenshot({
      path: `${SCREENSHOTS}/console-${name}.png`,
      fullPage: true,
    });
  }
}

Deno.test("the console: sign in, templates, a form answered field by field, create to ready live, scale, changes from elsewhere, delete", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "corral-console-" });
  let corral: MainProcess | undefined;
  let context: BrowserContext | undefined;
  try {
    await Deno.writeTextFile(
      `${dir}/tokens.csv`,
      `${TOKEN},${USER},1,"team-a"\n`,
    );
    corral = await startMain({
      args: [...EMBEDDED, "--token-auth-file", `${dir}/tokens.csv`],
      permissions: DEV_PERMISSIONS,
      startTimeoutMs: 20_000,
    });
    const origin = corral.http;
    const api = (method: string, path: string, body?: unknown) =>
      fetch(`${origin}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          "content-type": "application/json",
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const launched = await launchChromium(dir, {
      width: 1280,
      height: 800,
    });
    context = launched.context;
    const page = launched.page;
    const trouble = watchTrouble(page, origin);
    // What loading the console costs on the wire: the page and its files.
    const loaded: Promise<number>[] = [];
    page.on("requestfinished", (request) => {
      if (new URL(request.url()).pathname.startsWith("/console")) {
        loaded.push(request.sizes().then((s) => s.responseBodySize));
      }
    });

    await t.step(
      "without a token the console asks for one; with it, it loads",
      async () => {
        await page.goto(`${origin}/console`);
        const dialog = page.locator("#sign-in");
        await dialog.waitFor({ state: "visible" });
        await page.fill("#token", "not-a-token");
        await page.click("#sign-in-form button[type=submit]");
        // Refused: the dialog stays open and says so.
        await page.locator("#sign-in-error").getByText("Token not accepted")
          .waitFor();
        assert.equal(await dialog.isVisible(), true);
        await page.fill("#token", TOKEN);
        await page.click("#sign-in-form button[type=submit]");
        await dialog.waitFor({ state: "hidden" });
        await page.getByText("No clusters yet: create one.").waitFor();
        assert.equal(
          await page.evaluate(`sessionStorage.getItem("corral-token")`),
          TOKEN,
        );
        const bytes = (await Promise.all(loaded)).reduce((a, b) => a + b, 0);
        assert.equal(
          loaded.length,
          2 + await consoleModuleCount(),
          "the page, its stylesheet and modules",
        );
        assert.ok(bytes > 0 && bytes < 250 * 1024, `${bytes} bytes`);
        // Only the 401s of the watch before the token, and of the wrong one.
        assertNoTrouble(trouble, [
          /watch\/clusters: HTTP 401$/,
          /whoami: HTTP 401$/,
        ]);
      },
    );

    await t.step(
      "a compute template made on the templates page is listed",
      async () => {
        await page.click("text=Compute templates");
        await page.fill("#t-name", "small");
        await page.fill("#t-namespace", "team-a");
        await page.fill("#t-cpu", "2");
        await page.fill("#t-memory", "4");
        await page.click("#create-template");
        await page.locator('[data-template="team-a/small"]').waitFor();
        await shot(page, "templates");
        assertNoTrouble(trouble);
      },
    );

    await t.step(
      "a bad form shows the API's messages next to the fields they name",
      async () => {
        await page.click("text=Create cluster");
        await page.fill("#name", "Blue_Cluster");
        await page.fill("#namespace", "team-a");
        await page.fill("#user", USER);
        await page.fill("#version", "2.9.0");
        await page.selectOption("#head-template", "small");
        await page.selectOption("#g0-template", "small");
        await page.click("#add-env");
        await page.fill("#e0-name", "1A");
        await page.fill("#e0-value", "x");
        await page.fill("#g0-replicas", "5");
        await page.fill("#g0-max", "2");
        await page.click("#create");
        await page.locator("#name-error").getByText("lower case").waitFor();
        assert.match(
          await page.textContent("#e0-name-error") ?? "",
          /not a valid environment variable name/,
        );
        assert.match(
          await page.textContent("#g0-replicas-error") ?? "",
          /must not be more than Max/,
        );
        assert.equal(await page.getAttribute("#name", "aria-invalid"), "true");
        assert.equal(
          await page.evaluate("document.activeElement.id"),
          "name",
          "the first field in error has the focus",
        );
        await shot(page, "create-errors");
        assertNoTrouble(trouble, [/namespaces\/team-a\/clusters: HTTP 400$/]);
      },
    );

    await t.step(
      "a good form creates the cluster, which then becomes ready before one's eyes",
      async () => {
        await page.fill("#name", "blue");
        await page.fill("#e0-name", "LOG_LEVEL");
        await page.fill("#g0-replicas", "1");
        await page.fill("#g0-max", "4");
        await page.click("#create");
        await page.waitForURL(/#\/clusters\/team-a\/blue$/);
        await page.locator("h1 .state.ready").waitFor();
        await page.locator("#timeline li").first().waitFor();
        await shot(page, "cluster");
        assertNoTrouble(trouble);
      },
    );

    await t.step("scaling a worker group changes the cluster", async () => {
      await page.fill("#replicas-0", "3");
      await page.click("#scale-0");
      await pollUntil(async () => {
        const got = await (await api(
          "GET",
          "/apis/v1alpha2/namespaces/team-a/clusters/blue",
        )).json();
        return got.clusterSpec.workerGroupSpec[0].replicas === 3;
      });
      // The page follows: the input shows the stored number.
      await page.waitForFunction(
        `document.getElementById("replicas-0")?.value === "3"`,
      );
      assertNoTrouble(trouble);
    });

    await t.step(
      "a cluster created elsewhere appears without a reload",
      async () => {
        await page.click("text=Clusters");
        await page.locator('[data-cluster="team-a/blue"]').waitFor();
        const created = await api(
          "POST",
          "/apis/v1alpha2/namespaces/team-a/clusters",
          {
            name: "green",
            user: USER,
            version: "2.9.0",
            clusterSpec: { headGroupSpec: { computeTemplate: "small" } },
          },
        );
        assert.equal(created.status, 200, await created.text());
        const row = page.locator('[data-cluster="team-a/green"]');
        await row.waitFor();
        await row.locator(".state.ready").waitFor();
        // And the filter narrows the list.
        await page.fill("#text-filter", "gre");
        await page.locator('[data-cluster="team-a/blue"]').waitFor({
          state: "detached",
        });
        await page.fill("#text-filter", "");
        await shot(page, "clusters");
        assertNoTrouble(trouble);
      },
    );

    await t.step(
      "deleting needs the name typed, and the page then says it is gone",
      async () => {
        // From the keyboard alone: Tab through the page to the cluster's
        // link (the skip link, navigation and filters come first), Enter.
        await page.goto(`${origin}/console#/clusters`);
        await page.locator('[data-cluster="team-a/blue"]').waitFor();
        let reached = false;
        for (let i = 0; i < 20 && !reached; i++) {
          await page.keyboard.press("Tab");
          reached = await page.evaluate(
            `document.activeElement?.getAttribute("href") === "#/clusters/team-a/blue"`,
          ) as boolean;
        }
        assert.ok(reached, "the cluster's link is reachable with Tab");
        await page.keyboard.press("Enter");
        await page.waitForURL(/#\/clusters\/team-a\/blue$/);
        assert.equal(await page.isDisabled("#delete"), true);
        await page.fill("#delete-confirm", "blu");
        assert.equal(await page.isDisabled("#delete"), true);
        await page.fill("#delete-confirm", "blue");
        await page.click("#delete");
        await page.getByText("The cluster was deleted.").waitFor();
        const gone = await api(
          "GET",
          "/apis/v1alpha2/namespaces/team-a/clusters/blue",
        );
        await gone.body?.cancel();
        assert.equal(gone.status, 404);
        assertNoTrouble(trouble);
      },
    );
  } finally {
    await context?.close();
    await corral?.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

/** How many modules the console has: the .js files of api/console/. */
async function consoleModuleCount(): Promise<number> {
  let count = 0;
  for await (
    const entry of Deno.readDir(new URL("../../api/console/", import.meta.url))
  ) {
    if (entry.isFile && entry.name.endsWith(".js")) count++;
  }
  return count;
}

async function pollUntil(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("not within 10 s");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
