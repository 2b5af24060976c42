/**
 * Expiry in the console, in a real browser (Debian's chromium, headless),
 * against main.ts in embedded mode with two teams (two_teams.ts; team-a's
 * clusters live at most 24h): the create form's Lifetime too long is
 * refused under the field with the policy's message; a cluster page says
 * when the cluster expires (the exact time in its title) and extends it,
 * a refusal past the maximum said under the controls; the clusters list
 * has an Expires column; a cluster without expiry says so. At 1280 and
 * 375 px wide nothing spills sideways.
 */
import assert from "node:assert/strict";
import type { BrowserContext, Page } from "playwright-core";
import { launchChromium, SCREENSHOTS, watchTrouble } from "./browser.ts";
import {
  ADA,
  assertNoSideways,
  assertOnlyRefusals,
  BO,
  headOnlyCluster,
  signIn,
  smallTemplate,
  startTwoTeams,
  type TwoTeams,
} from "./two_teams.ts";

/** Waits for the element's text to match `pattern`; the text. */
async function textMatching(
  page: Page,
  selector: string,
  pattern: RegExp,
): Promise<string> {
  await page.locator(selector).getByText(pattern).waitFor();
  return await page.locator(selector).textContent() ?? "";
}

Deno.test("expiry in the console: a lifetime past the maximum is refused under the field; the page counts down and extends, within the maximum only", async (t) => {
  let teams: TwoTeams | undefined;
  let context: BrowserContext | undefined;
  try {
    teams = await startTwoTeams("corral-console-expiry-");
    const { origin } = teams;
    await smallTemplate(teams, ADA, "team-a");
    await smallTemplate(teams, BO, "team-b");
    await headOnlyCluster(teams, BO, "team-b", "plum");
    const launched = await launchChromium(teams.dir, {
      width: 1280,
      height: 900,
    });
    context = launched.context;
    const page = launched.page;
    const trouble = watchTrouble(page, origin);

    await t.step(
      "a Lifetime past the policy's maximum is refused under it",
      async () => {
        await signIn(page, origin, "#/create", ADA);
        await page.fill("#name", "amber");
        await page.fill("#namespace", "team-a");
        await page.fill("#version", "2.9.0");
        await page.locator("#head-template option[value=small]").waitFor({
          state: "attached",
        });
        await page.selectOption("#head-template", "small");
        await page.click('[aria-label="Remove this worker group"]');
        await page.fill("#ttl", "100h");
        await page.click("#create");
        const said = await textMatching(page, "#ttl-error", /maximum/);
        assert.match(said, /past the maximum lifetime of 24h/);
        assert.equal(
          await page.locator("#ttl").getAttribute("aria-invalid"),
          "true",
        );
        assertOnlyRefusals(trouble, [
          /(whoami|watch\/clusters): HTTP 401$/,
          // The form's first namespace, before it is team-a: "default".
          /\/namespaces\/default\/(compute_templates|quota): HTTP 40[13]$/,
          /\/clusters: HTTP 400$/,
        ]);
      },
    );

    await t.step(
      "within it the cluster is created, and its page says when it expires",
      async () => {
        await page.fill("#ttl", "3h");
        await page.click("#create");
        await page.waitForURL(/#\/clusters\/team-a\/amber$/);
        await textMatching(page, "#expires", /^Expires in (2h 59m|3h 0m)$/);
        const title = await page.locator("#expires").getAttribute("title") ??
          "";
        const iso = /\((\d{4}-\d\d-\d\dT[^)]*Z)\)$/.exec(title)?.[1] ?? "";
        const left = Date.parse(iso) - Date.now();
        assert.ok(
          left > 2.9 * 3600_000 && left <= 3 * 3600_000,
          `title ${title}`,
        );
        await assertNoSideways(page);
        if (SCREENSHOTS) {
          await page.screenshot({
            path: `${SCREENSHOTS}/console-expiry.png`,
            fullPage: true,
          });
        }
        assertOnlyRefusals(trouble);
      },
    );

    await t.step(
      "+4h extends it; 30h more is past the maximum, said under the controls",
      async () => {
        await page.click("#extend-4h");
        await textMatching(page, "#expires", /^Expires in (6h 59m|7h 0m)$/);
        await page.fill("#extend-by", "30h");
        await page.click("#extend");
        const said = await textMatching(page, "#extend-error", /maximum/);
        assert.match(
          said,
          /^Cannot update cluster "team-a\/amber": by: .*past the maximum lifetime of 24h/,
        );
        // Still as the last extend left it.
        await textMatching(page, "#expires", /^Expires in (6h 59m|7h 0m)$/);
        assertOnlyRefusals(trouble, [/\/amber\/extend: HTTP 400$/]);
      },
    );

    await t.step(
      "a typed duration extends it too, and clears the refusal",
      async () => {
        await page.fill("#extend-by", "1h");
        await page.click("#extend");
        await textMatching(page, "#expires", /^Expires in (7h 59m|8h 0m)$/);
        assert.equal(await page.locator("#extend-error").textContent(), "");
        assertOnlyRefusals(trouble);
      },
    );

    await t.step("at 375 px the page does not spill sideways", async () => {
      await page.setViewportSize({ width: 375, height: 800 });
      await page.fill("#extend-by", "30h");
      await page.click("#extend");
      await textMatching(page, "#extend-error", /maximum/);
      await assertNoSideways(page);
      if (SCREENSHOTS) {
        await page.screenshot({
          path: `${SCREENSHOTS}/console-expiry-phone.png`,
          fullPage: true,
        });
      }
      assertOnlyRefusals(trouble, [/\/amber\/extend: HTTP 400$/]);
    });

    await t.step(
      "the clusters list has the time left in its Expires column, but on a phone",
      async () => {
        await page.goto(`${origin}/console#/clusters`);
        const cell = '[data-cluster="team-a/amber"] td.expires';
        await page.locator(cell).waitFor({ state: "attached" });
        // A phone keeps the list's columns as they were: the page says it.
        assert.equal(await page.locator(cell).isVisible(), false);
        await assertNoSideways(page);
        if (SCREENSHOTS) {
          await page.screenshot({
            path: `${SCREENSHOTS}/console-expiry-list-phone.png`,
            fullPage: true,
          });
        }
        await page.setViewportSize({ width: 1280, height: 900 });
        await textMatching(page, cell, /^(7h 59m|8h 0m)$/);
        assert.match(
          await page.locator(cell).getAttribute("title") ?? "",
          /^\d{4}-\d\d-\d\dT.*Z$/,
        );
        await assertNoSideways(page);
      },
    );

    await t.step(
      "a cluster of a namespace without expiry does not expire",
      async () => {
        const tab = await context!.newPage();
        await signIn(tab, origin, "#/clusters/team-b/plum", BO);
        await textMatching(tab, "#expires", /^This cluster does not expire\.$/);
        assert.equal(await tab.locator("#expires").getAttribute("title"), null);
        assert.equal(await tab.locator("#extend-4h:visible").count(), 0);
        await tab.close();
      },
    );
  } finally {
    await context?.close();
    await teams?.close();
  }
});
