/**
 * The console while Corral is gone (issue 28): stopped under an open page,
 * a banner says since when it is unreachable and that what is shown may
 * be stale, write actions are disabled, and no raw "Failed to fetch" shows
 * anywhere; started again on the same port, the page is back within 5 s.
 *
 * Runs in `deno task test:browser` (needs /usr/bin/chromium).
 */
import assert from "node:assert/strict";
import type { BrowserContext, Page } from "playwright-core";
import { launchChromium } from "./browser.ts";
import {
  DEV_PERMISSIONS,
  type MainProcess,
  startMain,
} from "../main_process.ts";
import { until } from "../eventually.ts";

const TOKEN = "offline-token-0123456789abcdef012345678";
const USER = "alice@example.com";

/** Embedded mode with its HTTP port fixed (0 for a free one). */
function embeddedOn(httpPort: number, tokenFile: string): string[] {
  return [
    "--orchestrator",
    "embedded",
    "--host",
    "127.0.0.1",
    "--http-port",
    String(httpPort),
    "--grpc-port",
    "0",
    "--operator-delay",
    "300ms",
    "--token-auth-file",
    tokenFile,
  ];
}

function start(httpPort: number, tokenFile: string): Promise<MainProcess> {
  return startMain({
    args: embeddedOn(httpPort, tokenFile),
    permissions: DEV_PERMISSIONS,
    startTimeoutMs: 20_000,
  });
}

/** The text of the whole page. */
function pageText(page: Page): Promise<string> {
  return page.evaluate("document.body.innerText") as Promise<string>;
}

Deno.test("the console with Corral gone: a banner since when, writes disabled, no raw error, back within 5 s", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "corral-offline-" });
  const tokenFile = `${dir}/tokens.csv`;
  let corral: MainProcess | undefined;
  let context: BrowserContext | undefined;
  try {
    await Deno.writeTextFile(tokenFile, `${TOKEN},${USER},1,"team-a"\n`);
    corral = await start(0, tokenFile);
    const origin = corral.http;
    const port = Number(new URL(origin).port);
    const api = async (path: string, body: unknown) => {
      const response = await fetch(`${origin}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${TOKEN}`,
          "content-type": "application/json",
        },
        body: JSON.stringify(body),
      });
      assert.ok(response.ok, await response.text());
    };
    await api("/apis/v1/namespaces/team-a/compute_templates", {
      name: "small",
      namespace: "team-a",
      cpu: 1,
      memory: 1,
    });
    await api("/apis/v1alpha2/namespaces/team-a/clusters", {
      name: "blue",
      user: USER,
      version: "2.9.0",
      clusterSpec: {
        headGroupSpec: { computeTemplate: "small" },
        workerGroupSpec: [{
          groupName: "workers",
          computeTemplate: "small",
          replicas: 1,
          maxReplicas: 4,
        }],
      },
    });
    const launched = await launchChromium(dir, { width: 1280, height: 800 });
    context = launched.context;
    const page = launched.page;
    await page.goto(`${origin}/console#/clusters/team-a/blue`);
    await page.fill("#token", TOKEN);
    await page.click("#sign-in-form button[type=submit]");
    await page.locator("h1 .state.ready").waitFor();
    assert.equal(await page.isDisabled("#scale-0"), false);
    assert.equal(await page.isVisible("#offline"), false);

    await t.step(
      "Corral stopped: the banner, and writes disabled",
      async () => {
        await corral?.stop();
        corral = undefined;
        const banner = page.locator("#offline");
        await banner.waitFor({ state: "visible" });
        const said = await banner.textContent() ?? "";
        assert.match(said, /unreachable since \d{1,2}:\d{2}:\d{2}/);
        assert.match(said, /may be stale/);
        assert.equal(await page.isDisabled("#scale-0"), true);
        // A view drawn meanwhile has its writes disabled too.
        await page.click("text=Create cluster");
        await page.locator("#create").waitFor();
        assert.equal(await page.isDisabled("#create"), true);
        assert.doesNotMatch(await pageText(page), /Failed to fetch/);
      },
    );

    await t.step(
      "a write tried anyway says why, not the browser's words",
      async () => {
        await page.evaluate(`location.hash = "#/clusters/team-a/blue"`);
        await page.locator("#scale-0").waitFor();
        assert.equal(await page.isDisabled("#scale-0"), true);
        // Enabled by hand, as a view might while Corral is gone.
        await page.evaluate(
          `document.getElementById("scale-0").disabled = false`,
        );
        await page.fill("#replicas-0", "2");
        await page.click("#scale-0");
        await page.locator("#replicas-0-error").getByText("Cannot reach Corral")
          .waitFor();
        assert.doesNotMatch(await pageText(page), /Failed to fetch/);
      },
    );

    await t.step(
      "Corral back on the same port: the page is back within 5 s",
      async () => {
        corral = await start(port, tokenFile);
        const back = Date.now();
        await until(
          "the banner gone and the watch live",
          async () =>
            !(await page.isVisible("#offline")) &&
            await page.textContent("#live") === "Live",
          5_000,
        );
        assert.ok(Date.now() - back <= 5_000);
        // Writes are enabled again. (The new Corral's stand-in starts
        // empty: the cluster is gone, and its page may say so.)
        assert.equal(
          await page.evaluate(
            `document.querySelectorAll("[data-offline]").length`,
          ),
          0,
        );
        assert.doesNotMatch(await pageText(page), /Failed to fetch/);
      },
    );
  } finally {
    await context?.close();
    await corral?.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
