/**
 * Opening a cluster's dashboard from its console page, in a real browser
 * (Debian's chromium, headless), against main.ts in embedded mode with two
 * teams (two_teams.ts): ada, granted `proxy` in team-a, follows "Open
 * dashboard" to the simulated Ray dashboard through Corral, in a new tab
 * carrying only the session cookie, and follows its links; lin, of the
 * same team without `proxy`, is shown the refusal, which then stands in
 * place of the button and the proxied address, and no tab opens.
 */
import assert from "node:assert/strict";
import type { BrowserContext } from "playwright-core";
import { launchChromium, SCREENSHOTS, watchTrouble } from "./browser.ts";
import {
  ADA,
  assertNoSideways,
  assertOnlyRefusals,
  headOnlyCluster,
  LIN,
  signIn,
  smallTemplate,
  startTwoTeams,
  type TwoTeams,
} from "./two_teams.ts";

const PROXY_PATH = "/apis/v1alpha2/namespaces/team-a/clusters/blue/dashboard/";

Deno.test("the dashboard from a cluster page: ada with proxy opens it through Corral; lin without proxy is shown the refusal", async (t) => {
  let teams: TwoTeams | undefined;
  let context: BrowserContext | undefined;
  try {
    teams = await startTwoTeams("corral-console-dashboard-");
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

    await t.step(
      "ada's Open dashboard opens the simulated dashboard in a new tab",
      async () => {
        await signIn(page, origin, "#/clusters/team-a/blue", ADA);
        await page.locator("#open-dashboard").waitFor({ timeout: 20_000 });
        const opened = context!.waitForEvent("page");
        await page.click("#open-dashboard");
        const tab = await opened;
        const tabTrouble = watchTrouble(tab, origin);
        await tab.waitForLoadState();
        assert.equal(new URL(tab.url()).pathname, PROXY_PATH);
        await tab.getByRole("heading", { name: "Ray Dashboard (simulated)" })
          .waitFor();
        assert.match(
          await tab.locator("body").textContent() ?? "",
          /team-a\/blue/,
        );
        // The tab cannot reach the console's window (noopener), nor has it
        // the console's token: the cookie alone lets it in.
        assert.equal(await tab.evaluate("window.opener"), null);
        assert.equal(
          await tab.evaluate(`sessionStorage.getItem("corral-token")`),
          null,
        );
        if (SCREENSHOTS) {
          await tab.screenshot({
            path: `${SCREENSHOTS}/console-dashboard.png`,
          });
        }
        // A link of the dashboard's own, followed with the cookie.
        await tab.click('a[href="api/jobs/"]');
        await tab.waitForURL(`${origin}${PROXY_PATH}api/jobs/`);
        assert.deepEqual(JSON.parse(await tab.locator("body").innerText()), []);
        // A JSON answer (api/jobs/) names no icon, so the browser may ask
        // Corral's /favicon.ico, which is not there: a 404 it reports
        // without the request (playwright sees no favicon requests).
        const favicon =
          "Failed to load resource: the server responded with a status of 404 (Not Found)";
        tabTrouble.consoleErrors.splice(
          0,
          Infinity,
          ...tabTrouble.consoleErrors.filter((line) => line !== favicon),
        );
        assertOnlyRefusals(tabTrouble);
        await tab.close();
        assert.equal(await page.locator("#dashboard-error").textContent(), "");
        assertOnlyRefusals(trouble, [/(whoami|watch\/clusters): HTTP 401$/]);
      },
    );

    await t.step(
      "the dashboard's address without the cookie is refused",
      async () => {
        const fresh = await launchChromium(`${teams!.dir}/fresh`, {
          width: 1280,
          height: 900,
        });
        try {
          const answer = await fresh.page.goto(`${origin}${PROXY_PATH}`);
          assert.equal(answer?.status(), 401);
        } finally {
          await fresh.context.close();
        }
      },
    );

    await t.step(
      "lin, without proxy, is shown the refusal and no tab opens",
      async () => {
        const tab = await context!.newPage();
        const tabTrouble = watchTrouble(tab, origin);
        await signIn(tab, origin, "#/clusters/team-a/blue", LIN);
        const pages = context!.pages().length;
        await tab.click("#open-dashboard");
        await tab.locator("#dashboard-error").getByText(
          /may not proxy clusters/,
        )
          .waitFor();
        assert.match(
          await tab.locator("#dashboard-error").textContent() ?? "",
          /^Cannot open the dashboard: .*user "lin" may not proxy clusters in namespace "team-a"/,
        );
        assert.equal(context!.pages().length, pages);
        // The refusal takes the place of the button and of the proxied
        // address, and stays as the page is drawn again (ada extends the
        // cluster: the watch brings the change).
        await tab.locator("#open-dashboard").waitFor({ state: "detached" });
        assert.equal(await tab.locator("#dashboard-proxy-url").count(), 0);
        await teams!.api(
          ADA,
          "POST",
          "/apis/v1alpha2/namespaces/team-a/clusters/blue/extend",
          { by: "4h" },
        );
        await tab.locator("#expires").getByText(/^Expires in 1[12]h/).waitFor();
        assert.match(
          await tab.locator("#dashboard-error").textContent() ?? "",
          /may not proxy clusters/,
        );
        assert.equal(await tab.locator("#open-dashboard").count(), 0);
        await assertNoSideways(tab);
        await tab.setViewportSize({ width: 375, height: 800 });
        await assertNoSideways(tab);
        if (SCREENSHOTS) {
          await tab.screenshot({
            path: `${SCREENSHOTS}/console-dashboard-refused-phone.png`,
            fullPage: true,
          });
        }
        assertOnlyRefusals(tabTrouble, [
          /(whoami|watch\/clusters): HTTP 401$/,
          /dashboard:session: HTTP 403$/,
          // The cluster's jobs panel asks the dashboard too, and is refused.
          /\/jobsubmissions\/blue: HTTP 403$/,
        ]);
      },
    );
  } finally {
    await context?.close();
    await teams?.close();
  }
});
