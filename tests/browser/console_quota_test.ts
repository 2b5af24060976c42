/**
 * Quotas in the console, in a real browser (Debian's chromium, headless),
 * against main.ts in embedded mode with two teams (two_teams.ts): the
 * clusters list and the create form show each quota that applies to the
 * signed-in person, "used / limit" per dimension, read again as clusters
 * come and go; a create refused by a quota (code 8) says the API's
 * message under the form; a namespace without quotas, or whose quotas the
 * person may not read, shows none and no error. At 1280 and 375 px wide
 * nothing spills sideways.
 */
import assert from "node:assert/strict";
import type { BrowserContext, Page } from "playwright-core";
import { launchChromium, SCREENSHOTS, watchTrouble } from "./browser.ts";
import {
  ADA,
  assertNoSideways,
  assertOnlyRefusals,
  BO,
  CY,
  headOnlyCluster,
  signIn,
  smallTemplate,
  type TwoTeams,
} from "./two_teams.ts";
import { startTwoTeams } from "./two_teams.ts";

/** What a quota block's rows say, by dimension: "1 / 2". */
async function rows(
  page: Page,
  block: string,
): Promise<Record<string, string>> {
  const locator = page.locator(`${block} .quota-row`);
  await locator.first().waitFor();
  const result: Record<string, string> = {};
  for (const row of await locator.all()) {
    const dimension = await row.getAttribute("data-dimension") ?? "";
    result[dimension] = await row.locator(".quota-numbers").textContent() ??
      "";
  }
  return result;
}

/** Waits until the quota `block` reads `want`, dimension by dimension. */
async function waitForRows(
  page: Page,
  block: string,
  want: Record<string, string>,
): Promise<void> {
  for (const [dimension, text] of Object.entries(want)) {
    await page.locator(
      `${block} .quota-row[data-dimension="${dimension}"] .quota-numbers`,
    ).getByText(text, { exact: true }).waitFor();
  }
  assert.deepEqual(await rows(page, block), want);
}

/** Waits for the create form's refusal, and asserts it says `want`. */
async function refusal(page: Page, want: string): Promise<void> {
  await page.locator("#create-refusal:not(:empty)").waitFor();
  assert.equal(await page.locator("#create-refusal").textContent(), want);
}

const TEAM_A = '#quota-team-a [data-scope="team-a"]';
const ADA_OWN = `#quota-team-a [data-scope='user "ada" in team-a']`;
const FORM_TEAM_A = '#create-quota [data-scope="team-a"]';

Deno.test("quotas in the console: the list and the form show used / limit, a create over a quota says why under the form, deletes free it", async (t) => {
  let teams: TwoTeams | undefined;
  let context: BrowserContext | undefined;
  try {
    teams = await startTwoTeams("corral-console-quota-");
    const { origin } = teams;
    await smallTemplate(teams, ADA, "team-a");
    await headOnlyCluster(teams, ADA, "team-a", "blue");
    const launched = await launchChromium(teams.dir, {
      width: 1280,
      height: 900,
    });
    context = launched.context;
    const page = launched.page;
    const trouble = watchTrouble(page, origin);
    const signInRefusals = [/(whoami|watch\/clusters): HTTP 401$/];

    await t.step(
      "the clusters list shows the team's quota and ada's own",
      async () => {
        await signIn(page, origin, "#/clusters", ADA);
        await waitForRows(page, TEAM_A, {
          clusters: "1 / 2",
          cpu: "1 / 8",
          memory: "2 GiB / 16 GiB",
        });
        await waitForRows(page, ADA_OWN, { cpu: "1 / 4" });
        assert.equal(
          await page.locator("#quota-team-a h2").textContent(),
          "Quota in team-a",
        );
        await assertNoSideways(page);
        if (SCREENSHOTS) {
          await page.screenshot({
            path: `${SCREENSHOTS}/console-quota.png`,
            fullPage: true,
          });
        }
        assertOnlyRefusals(trouble, signInRefusals);
      },
    );

    await t.step(
      "a create over ada's own CPUs is refused under the form, with the API's message",
      async () => {
        await page.goto(`${origin}/console#/create`);
        await waitForRows(page, FORM_TEAM_A, {
          clusters: "1 / 2",
          cpu: "1 / 8",
          memory: "2 GiB / 16 GiB",
        });
        await page.fill("#name", "green");
        await page.fill("#namespace", "team-a");
        await page.fill("#version", "2.9.0");
        await page.selectOption("#head-template", "small");
        await page.selectOption("#g0-template", "small");
        // A head and up to 4 workers of 1 CPU: 5 CPUs, ada has 4 of her own.
        await page.click("#create");
        await refusal(
          page,
          `Cannot create cluster "team-a/green": quota exceeded: user "ada" in team-a: CPUs 1 of 4 used, this cluster asks for 5`,
        );
        assert.equal(
          await page.locator("#create-form .banner").textContent(),
          "",
        );
        assertOnlyRefusals(trouble, [/\/clusters: HTTP 403$/]);
      },
    );

    await t.step(
      "within the quota it is created, and the form counts it",
      async () => {
        await page.fill("#g0-max", "1");
        await page.click("#create");
        await page.waitForURL(/#\/clusters\/team-a\/green$/);
        await page.goto(`${origin}/console#/create`);
        await waitForRows(page, FORM_TEAM_A, {
          clusters: "2 / 2",
          cpu: "3 / 8",
          memory: "6 GiB / 16 GiB",
        });
        assert.equal(
          await page.locator("#create-quota .quota-row[data-full]")
            .getAttribute(
              "data-dimension",
            ),
          "clusters",
        );
        assertOnlyRefusals(trouble);
      },
    );

    await t.step("the team's cluster count refuses a third", async () => {
      await page.fill("#name", "red");
      await page.fill("#namespace", "team-a");
      await page.fill("#version", "2.9.0");
      await page.selectOption("#head-template", "small");
      await page.click('[aria-label="Remove this worker group"]');
      await page.click("#create");
      await refusal(
        page,
        'Cannot create cluster "team-a/red": quota exceeded: team-a: clusters 2 of 2 used, this cluster asks for 1',
      );
      assertOnlyRefusals(trouble, [/\/clusters: HTTP 403$/]);
    });

    await t.step("at 375 px nothing spills sideways", async () => {
      await page.setViewportSize({ width: 375, height: 800 });
      await assertNoSideways(page);
      if (SCREENSHOTS) {
        await page.screenshot({
          path: `${SCREENSHOTS}/console-quota-refused-phone.png`,
          fullPage: true,
        });
      }
      await page.goto(`${origin}/console#/clusters`);
      await page.locator(TEAM_A).waitFor();
      await assertNoSideways(page);
      if (SCREENSHOTS) {
        await page.screenshot({
          path: `${SCREENSHOTS}/console-quota-phone.png`,
          fullPage: true,
        });
      }
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    await t.step("a delete frees quota: the list reads it again", async () => {
      await teams!.api(
        ADA,
        "DELETE",
        "/apis/v1alpha2/namespaces/team-a/clusters/blue",
      );
      await waitForRows(page, TEAM_A, {
        clusters: "1 / 2",
        cpu: "2 / 8",
        memory: "4 GiB / 16 GiB",
      });
      assertOnlyRefusals(trouble);
    });
  } finally {
    await context?.close();
    await teams?.close();
  }
});

Deno.test("quotas in the console: none shown where none applies, nor where the person may not read them", async (t) => {
  let teams: TwoTeams | undefined;
  let context: BrowserContext | undefined;
  try {
    teams = await startTwoTeams("corral-console-no-quota-");
    const { origin } = teams;
    await smallTemplate(teams, BO, "team-b");
    await headOnlyCluster(teams, BO, "team-b", "plum");
    await smallTemplate(teams, CY, "team-c");
    await headOnlyCluster(teams, CY, "team-c", "teal");
    const launched = await launchChromium(teams.dir, {
      width: 1280,
      height: 900,
    });
    context = launched.context;
    const page = launched.page;
    const trouble = watchTrouble(page, origin);

    await t.step(
      "team-b has no quota: no panel on the list or the form",
      async () => {
        await signIn(page, origin, "#/clusters", BO);
        await page.locator('[data-cluster="team-b/plum"]').waitFor();
        await page.goto(`${origin}/console#/create`);
        await page.locator("#create-quota").waitFor({ state: "attached" });
        // The form has read team-b's usage (no quotas) by the time its
        // templates are offered; the panel stays hidden.
        await page.locator("#head-template option[value=small]").waitFor({
          state: "attached",
        });
        await page.goto(`${origin}/console#/clusters`);
        await page.locator('[data-cluster="team-b/plum"]').waitFor();
        assert.equal(await page.locator("#quotas .quota-row").count(), 0);
        assert.equal(await page.locator("#create-quota:visible").count(), 0);
        assertOnlyRefusals(trouble, [/(whoami|watch\/clusters): HTTP 401$/]);
      },
    );

    await t.step(
      "cy may not get team-c's quotas: nothing shown, no error",
      async () => {
        // A tab of its own: the token is the tab's.
        const tab = await context!.newPage();
        const tabTrouble = watchTrouble(tab, origin);
        const quotaRead = tab.waitForResponse((r) =>
          /\/team-c\/quota$/.test(r.url())
        );
        await signIn(tab, origin, "#/clusters", CY);
        await tab.locator('[data-cluster="team-c/teal"]').waitFor();
        assert.equal((await quotaRead).status(), 403);
        assert.equal(await tab.locator("#quotas .quota-row").count(), 0);
        assert.doesNotMatch(
          await tab.locator("main").textContent() ?? "",
          /quota|cannot|may not/i,
        );
        assertOnlyRefusals(tabTrouble, [
          /(whoami|watch\/clusters): HTTP 401$/,
          /\/team-c\/quota: HTTP 403$/,
        ]);
      },
    );
  } finally {
    await context?.close();
    await teams?.close();
  }
});
