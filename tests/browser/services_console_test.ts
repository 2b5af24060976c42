/**
 * The console's services in a real browser (Debian's chromium, headless):
 * a person fills the New service form, sees the API's refusal of a Serve
 * config next to that field, creates the service from a compute template,
 * and watches its page go live from its pending cluster to Running with
 * its application RUNNING, as dev mode's simulated operator runs it (its
 * delay 4 s, so that the page's 2 s polls see each step).
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import type { BrowserContext } from "playwright-core";
import {
  assertNoTrouble,
  launchChromium,
  SCREENSHOTS,
  watchTrouble,
} from "./browser.ts";
import {
  ANONYMOUS,
  DEV_PERMISSIONS,
  FREE_PORTS,
  type MainProcess,
  NO_SHUTDOWN_DELAY,
  startMain,
} from "../main_process.ts";

const NS = "team-a";
const CONFIG = `applications:
  - name: fruit
    import_path: fruit.deployment_graph
    deployments:
      - name: MangoStand
`;

Deno.test("the console's services: New service, a refusal by field, then the service's page goes Running live", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "corral-console-services-" });
  const kubeconfig = `${dir}/standin.kubeconfig`;
  let corral: MainProcess | undefined;
  let context: BrowserContext | undefined;
  try {
    corral = await startMain({
      args: [
        "--orchestrator",
        "embedded",
        ...FREE_PORTS,
        "--operator-delay",
        "4s",
        "--write-kubeconfig",
        kubeconfig,
        ...ANONYMOUS,
        ...NO_SHUTDOWN_DELAY,
      ],
      permissions: DEV_PERMISSIONS,
      startTimeoutMs: 20_000,
    });
    const origin = corral.http;
    const standin: string = parse(await Deno.readTextFile(kubeconfig))
      .clusters[0].cluster.server;
    const template = await fetch(
      `${origin}/apis/v1/namespaces/${NS}/compute_templates`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "small", cpu: 1, memory: 1 }),
      },
    );
    assert.equal(template.status, 200, await template.text());
    const launched = await launchChromium(dir, { width: 1280, height: 800 });
    context = launched.context;
    const page = launched.page;
    const trouble = watchTrouble(page, origin);

    await t.step("the services list starts empty", async () => {
      await page.goto(`${origin}/console#/services`);
      await page.getByText("No services yet: create one.").waitFor();
      assertNoTrouble(trouble);
    });

    await t.step(
      "a Serve config the API refuses is marked, with its message beside it",
      async () => {
        await page.click("#new-service");
        await page.fill("#service-name", "fruit");
        await page.fill("#service-namespace", NS);
        await page.fill("#service-user", "ada");
        await page.fill(
          "#service-config",
          "applications:\n  - name: fruit\n",
        );
        await page.locator("#service-template option[value=small]").waitFor({
          state: "attached",
        });
        await page.selectOption("#service-template", "small");
        await page.fill("#service-version", "2.9.0");
        await page.click("#submit-service");
        await page.locator("#service-config-error")
          .filter({ hasText: /import_path/ }).waitFor();
        assert.equal(
          await page.getAttribute("#service-config", "aria-invalid"),
          "true",
        );
        assert.equal(
          await page.getAttribute("#service-name", "aria-invalid"),
          null,
        );
        assertNoTrouble(trouble, [/\/services: HTTP 400$/]);
      },
    );

    await t.step(
      "created, its page shows the pending cluster, then Running with its application RUNNING, live",
      async () => {
        await page.fill("#service-config", CONFIG);
        await page.click("#submit-service");
        await page.waitForURL(/#\/services\/team-a\/fruit$/);
        await page.locator("#service-health").getByText("Pending").waitFor();
        const stored = await (await fetch(
          `${standin}/apis/ray.io/v1/namespaces/${NS}/rayservices/fruit`,
        )).json();
        assert.equal(stored.spec.serveConfigV2, CONFIG);
        // The operator's steps, a delay each: the pending cluster, ready,
        // then the applications deployed on it and it made the active one.
        const step = { timeout: 30_000 };
        const cluster = /^fruit-[a-z0-9]{5}$/;
        await page.locator("#service-pending-cluster a").getByText(cluster)
          .waitFor(step);
        await page.locator("#service-health").getByText("Running")
          .waitFor(step);
        const active = page.locator("#service-cluster a");
        await active.getByText(cluster).waitFor(step);
        assert.match(
          await active.getAttribute("href") ?? "",
          /^#\/clusters\/team-a\/fruit-[a-z0-9]{5}$/,
        );
        const app = page.locator(
          '#applications-table [data-application="fruit"]',
        );
        await app.locator('[data-status="RUNNING"]').waitFor(step);
        await app.locator('[data-deployment="MangoStand"]')
          .locator('[data-status="HEALTHY"]').waitFor(step);
        await page.locator("#timeline").getByText("CreatedRayCluster")
          .waitFor(step);
        assert.equal(await page.textContent("#service-config"), CONFIG);
        if (SCREENSHOTS) {
          await page.screenshot({
            path: `${SCREENSHOTS}/console-service.png`,
            fullPage: true,
          });
        }
        assertNoTrouble(trouble);
      },
    );

    await t.step("the services list shows it Running", async () => {
      await page.click("[data-nav=services]");
      const row = page.locator('[data-service="team-a/fruit"]');
      await row.locator('[data-status="Running"]').waitFor();
      assert.match(await row.textContent() ?? "", /1\/1 RUNNING/);
      assertNoTrouble(trouble);
    });
  } finally {
    await context?.close();
    await corral?.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
