/**
 * The console's first hour, as a new user meets it (issue 28): signing in
 * with a wrong token and then the right one, the header saying who is
 * signed in; the create form choosing the smallest template for the
 * person (and asking for one left unchosen), showing the templates'
 * sizes, filling in the owner, saying each error once and where it
 * belongs, and making a template where the namespace has none; a
 * cluster without environment variables showing no stray text; and the
 * pages at 375 px wide without sideways scrolling.
 *
 * Runs in `deno task test:browser` (needs /usr/bin/chromium).
 */
import assert from "node:assert/strict";
import type { BrowserContext, Page } from "playwright-core";
import { assertNoTrouble, launchChromium, watchTrouble } from "./browser.ts";
import {
  DEV_PERMISSIONS,
  EMBEDDED,
  type MainProcess,
  startMain,
} from "../main_process.ts";
import { until } from "../eventually.ts";

const TOKEN = "first-hour-token-0123456789abcdef0123";
const USER = "alice@example.com";

/** The text of the whole page, header and dialog included. */
function pageText(page: Page): Promise<string> {
  return page.evaluate("document.body.innerText") as Promise<string>;
}

/** The texts of a select's options. */
function optionTexts(page: Page, select: string): Promise<string[]> {
  return page.locator(`${select} option`).allTextContents();
}

Deno.test("the console's first hour: sign-in, the create form, a cluster without env vars, and 375 px", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "corral-first-hour-" });
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
    const api = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${origin}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          "content-type": "application/json",
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = await response.json();
      assert.ok(response.ok, JSON.stringify(json));
      return json;
    };
    const launched = await launchChromium(dir, { width: 1280, height: 800 });
    context = launched.context;
    const page = launched.page;
    const trouble = watchTrouble(page, origin);

    await t.step("a wrong token keeps the dialog open, saying so", async () => {
      await page.goto(`${origin}/console`);
      const dialog = page.locator("#sign-in");
      await dialog.waitFor({ state: "visible" });
      assert.equal(await page.textContent("#account"), "Sign in");
      await page.fill("#token", "wrong-token-0123456789abcdef0123456789");
      await page.click("#sign-in-form button[type=submit]");
      await page.locator("#sign-in-error").getByText("Token not accepted")
        .waitFor();
      assert.equal(await dialog.isVisible(), true);
      assert.equal(await page.textContent("#account"), "Sign in");
      assert.doesNotMatch(await pageText(page), /Signed out/);
      assertNoTrouble(trouble, [
        /watch\/clusters: HTTP 401$/,
        /whoami: HTTP 401$/,
      ]);
    });

    await t.step(
      "the right one: the header says who, and Sign out",
      async () => {
        await page.fill("#token", TOKEN);
        await page.click("#sign-in-form button[type=submit]");
        await page.locator("#sign-in").waitFor({ state: "hidden" });
        await page.locator("#who").getByText(`Signed in as ${USER}`).waitFor();
        assert.equal(await page.textContent("#account"), "Sign out");
        const text = await pageText(page);
        assert.doesNotMatch(text, /Signed out/);
        assert.doesNotMatch(text, /Sign in\b/);
        assertNoTrouble(trouble);
      },
    );

    await t.step(
      "a namespace without templates offers to make one there",
      async () => {
        await page.click("text=Create cluster");
        await page.fill("#namespace", "team-a");
        await page.dispatchEvent("#namespace", "change");
        await page.locator("#template-offer").waitFor({ state: "visible" });
        await page.fill("#nt-name", "small");
        await page.click("#nt-create");
        await page.locator("#template-offer").waitFor({ state: "hidden" });
        assert.deepEqual(await optionTexts(page, "#head-template"), [
          "Choose a template…",
          "small: 1 CPU, 1 GiB",
        ]);
        // Made for this form: it is the selection.
        assert.equal(await page.inputValue("#head-template"), "small");
        assert.equal(await page.inputValue("#g0-template"), "small");
        assertNoTrouble(trouble);
      },
    );

    await t.step(
      "the smallest template is chosen for the person, the sizes show, and an unchosen one is asked for",
      async () => {
        await api("POST", "/apis/v1/namespaces/team-a/compute_templates", {
          name: "gpu",
          namespace: "team-a",
          cpu: 4,
          memory: 16,
          gpu: 1,
        });
        await page.click("text=Clusters");
        await page.click("text=Create cluster");
        await page.fill("#namespace", "team-a");
        await page.dispatchEvent("#namespace", "change");
        await until(
          "both templates offered",
          async () => (await optionTexts(page, "#g0-template")).length === 3,
        );
        for (const select of ["#head-template", "#g0-template"]) {
          assert.deepEqual(await optionTexts(page, select), [
            "Choose a template…",
            "gpu: 4 CPU, 16 GiB, 1 GPU",
            "small: 1 CPU, 1 GiB",
          ]);
          assert.equal(await page.inputValue(select), "small", select);
        }
        await page.fill("#name", "plain");
        await page.fill("#version", "2.9.0");
        await page.selectOption("#head-template", "");
        await page.selectOption("#g0-template", "");
        await page.click("#create");
        assert.match(
          await page.textContent("#head-template-error") ?? "",
          /choose a compute template/,
        );
        assert.match(
          await page.textContent("#g0-template-error") ?? "",
          /choose a compute template/,
        );
        assertNoTrouble(trouble);
      },
    );

    await t.step(
      "the owner is who is signed in, and need not be typed",
      async () => {
        await page.locator("#user-hint").getByText("Optional").waitFor();
        assert.equal(await page.inputValue("#user"), USER);
        assert.equal(await page.getAttribute("#user", "required"), null);
      },
    );

    await t.step(
      "replicas above max is said under Replicas; the image error once",
      async () => {
        await page.selectOption("#head-template", "small");
        await page.selectOption("#g0-template", "small");
        await page.fill("#image", "bad image");
        await page.fill("#g0-replicas", "5");
        await page.fill("#g0-max", "2");
        await page.click("#create");
        await page.locator("#g0-replicas-error").getByText(
          "must not be more than Max",
        ).waitFor();
        assert.equal(await page.textContent("#g0-max-error"), "");
        assert.equal(
          await page.textContent("#image-error"),
          "must not contain whitespace",
        );
        assertNoTrouble(trouble, [/namespaces\/team-a\/clusters: HTTP 400$/]);
      },
    );

    await t.step(
      "with the owner left empty, the cluster is the signed-in user's; no stray text without env vars",
      async () => {
        await page.fill("#image", "");
        await page.fill("#g0-replicas", "1");
        await page.fill("#g0-max", "4");
        await page.fill("#user", "");
        await page.click("#create");
        await page.waitForURL(/#\/clusters\/team-a\/plain$/);
        await page.locator("h1 .state").waitFor();
        assert.doesNotMatch(await page.innerText("main"), /false/);
        await page.locator("h1 .state.ready").waitFor();
        assert.doesNotMatch(await page.innerText("main"), /false/);
        const cluster = await api(
          "GET",
          "/apis/v1alpha2/namespaces/team-a/clusters/plain",
        );
        assert.equal(cluster.user, USER);
        assert.deepEqual(cluster.envs ?? {}, {});
        assertNoTrouble(trouble);
      },
    );

    await t.step(
      "at 375 px nothing scrolls sideways and the form's boxes stay usable",
      async () => {
        await page.setViewportSize({ width: 375, height: 800 });
        for (
          const hash of [
            "#/clusters",
            "#/clusters/team-a/plain",
            "#/create",
            "#/templates",
          ]
        ) {
          await page.goto(`${origin}/console${hash}`);
          await page.locator("main h1").waitFor();
          if (hash === "#/clusters/team-a/plain") {
            await page.locator("#replicas-0").waitFor();
            const fits = await page.evaluate(`(() => {
            const table = document.getElementById("replicas-0").closest("table");
            const panel = table.parentElement;
            return [table.scrollWidth, table.getBoundingClientRect().right,
              panel.getBoundingClientRect().right];
          })()`) as number[];
            assert.ok(
              fits[1] <= fits[2] + 0.5,
              `table ends at ${fits[1]}, panel at ${fits[2]}`,
            );
          }
          if (hash === "#/create") {
            for (const box of ["#g0-replicas", "#g0-min", "#g0-max"]) {
              const width = (await page.locator(box).boundingBox())?.width ?? 0;
              assert.ok(width >= 60, `${box} is ${width} px wide`);
            }
          }
          const scrollWidth = await page.evaluate(
            "document.scrollingElement.scrollWidth",
          ) as number;
          assert.ok(scrollWidth <= 375, `${hash}: ${scrollWidth} px wide`);
        }
        assertNoTrouble(trouble);
      },
    );
  } finally {
    await context?.close();
    await corral?.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
