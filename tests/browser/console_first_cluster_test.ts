/**
 * A first cluster in one try, in the console (issue 37): in dev mode
 * without authentication, in a namespace with templates, the create form
 * with only a name typed gives a ready cluster (the newest Ray version
 * Corral knows, shown; the smallest template chosen; system:anonymous as
 * the owner); errors sit under the fields they are about; a template made
 * in the form is its selection. Then the cluster's job panel: a local
 * working directory is refused saying why, Stop is disabled once the job
 * ended, the entry boxes take the panel's width, and scaling past Max says
 * Max's rule under Max. At 375 px the tables' words stay whole.
 *
 * Runs in `deno task test:browser` (needs /usr/bin/chromium).
 */
import assert from "node:assert/strict";
import type { BrowserContext, Page } from "playwright-core";
import { assertNoTrouble, launchChromium, watchTrouble } from "./browser.ts";
import {
  ANONYMOUS,
  DEV_PERMISSIONS,
  EMBEDDED,
  type MainProcess,
  NO_SHUTDOWN_DELAY,
  startMain,
} from "../main_process.ts";
import { until } from "../eventually.ts";
import { NEWEST_RAY_VERSION } from "../../domain/ray_versions.ts";

/** The namespace a new form starts in when no cluster exists yet. */
const NS = "default";

/**
 * The words of the tables under `scope` that do not sit whole on one line
 * ("SUC" / "CEE" / "DED"), or that are wider than their cell: each as
 * "word (lines, word's width > cell's width)".
 */
function brokenWords(page: Page, scope: string): Promise<string[]> {
  return page.evaluate(`(() => {
    const broken = [];
    for (const cell of document.querySelectorAll("${scope} td, ${scope} th")) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const match of node.textContent.matchAll(/\\S+/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const lines = new Set(
            [...range.getClientRects()].map((r) => Math.round(r.top)),
          ).size;
          const word = range.getBoundingClientRect().width;
          const box = node.parentElement.getBoundingClientRect().width;
          if (lines > 1 || word > box + 0.5) {
            broken.push(match[0] + " (" + lines + ", " + word + " > " + box + ")");
          }
        }
      }
    }
    return broken;
  })()`) as Promise<string[]>;
}

/** Submits `entrypoint` from the job panel; the new job's heading shown. */
async function submitJob(page: Page, entrypoint: string): Promise<void> {
  await page.fill("#submission-entrypoint", entrypoint);
  await page.fill("#submission-runtime-env", "");
  await page.click("#submit-submission");
  await page.locator("#submission h3").filter({ hasText: /^Job raysubmit_/ })
    .waitFor();
}

Deno.test("a first cluster in the console with only a name typed, its job panel, and 375 px", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "corral-first-cluster-" });
  let corral: MainProcess | undefined;
  let context: BrowserContext | undefined;
  try {
    corral = await startMain({
      args: [...EMBEDDED, ...ANONYMOUS, ...NO_SHUTDOWN_DELAY],
      permissions: DEV_PERMISSIONS,
      startTimeoutMs: 20_000,
    });
    const origin = corral.http;
    const api = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${origin}${path}`, {
        method,
        headers: { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = await response.json();
      assert.ok(response.ok, JSON.stringify(json));
      return json;
    };
    // Listed first by name, the bigger one must not be the choice.
    for (const [name, cpu, memory] of [["a-big", 8, 32], ["small", 1, 2]]) {
      await api("POST", `/apis/v1/namespaces/${NS}/compute_templates`, {
        name,
        cpu,
        memory,
      });
    }
    const launched = await launchChromium(dir, { width: 1280, height: 900 });
    context = launched.context;
    const page = launched.page;
    const trouble = watchTrouble(page, origin);

    await t.step(
      "the form shows the newest version, the smallest template and a default owner",
      async () => {
        await page.goto(`${origin}/console#/create`);
        await page.locator("#create-form").waitFor();
        assert.equal(await page.inputValue("#namespace"), NS);
        await until(
          "the newest version filled in",
          async () => await page.inputValue("#version") === NEWEST_RAY_VERSION,
        );
        await page.locator("#version-hint").getByText(NEWEST_RAY_VERSION)
          .waitFor();
        await until(
          "the templates offered",
          async () => await page.inputValue("#g0-template") === "small",
        );
        assert.equal(await page.inputValue("#head-template"), "small");
        await until(
          "the owner filled in",
          async () => await page.inputValue("#user") === "system:anonymous",
        );
        assertNoTrouble(trouble);
      },
    );

    await t.step(
      "without a version, the error is under Version, not Image",
      async () => {
        await page.fill("#name", "red");
        await page.fill("#version", "");
        await page.click("#create");
        await page.locator("#version-error").getByText(/is required/)
          .waitFor();
        assert.equal(await page.textContent("#image-error"), "");
        assert.equal(
          await page.getAttribute("#version", "aria-invalid"),
          "true",
        );
        assert.equal(await page.textContent("#create-form .banner"), "");
        assertNoTrouble(trouble, [/namespaces\/default\/clusters: HTTP 400$/]);
      },
    );

    await t.step(
      "with only a name typed, the cluster is created and becomes ready",
      async () => {
        // A fresh form: the name is all that is typed.
        await page.goto(`${origin}/console#/clusters`);
        await page.goto(`${origin}/console#/create`);
        await until(
          "the form filled in",
          async () =>
            await page.inputValue("#version") === NEWEST_RAY_VERSION &&
            await page.inputValue("#g0-template") === "small" &&
            await page.inputValue("#user") === "system:anonymous",
        );
        await page.fill("#name", "red");
        await page.click("#create");
        await page.waitForURL(/#\/clusters\/default\/red$/);
        await page.locator("h1 .state.ready").waitFor({ timeout: 30_000 });
        const red = await api(
          "GET",
          `/apis/v1alpha2/namespaces/${NS}/clusters/red`,
        );
        assert.equal(red.version, NEWEST_RAY_VERSION);
        assert.equal(red.user, "system:anonymous");
        assert.equal(red.clusterSpec.headGroupSpec.computeTemplate, "small");
        assert.equal(
          red.clusterSpec.workerGroupSpec[0].computeTemplate,
          "small",
        );
        assertNoTrouble(trouble);
      },
    );

    await t.step(
      "a template made in the form, in a namespace without any, is the selection",
      async () => {
        await page.goto(`${origin}/console#/create`);
        await page.fill("#namespace", "team-new");
        await page.dispatchEvent("#namespace", "change");
        await page.locator("#template-offer").waitFor({ state: "visible" });
        await page.fill("#nt-name", "starter");
        await page.click("#nt-create");
        await page.locator("#template-offer").waitFor({ state: "hidden" });
        assert.equal(await page.inputValue("#head-template"), "starter");
        assert.equal(await page.inputValue("#g0-template"), "starter");
        assertNoTrouble(trouble);
      },
    );

    await t.step(
      "the job panel: a local working directory is refused saying why; the entry boxes take the width",
      async () => {
        await page.goto(`${origin}/console#/clusters/${NS}/red`);
        await page.locator("#cluster-jobs").waitFor({ timeout: 20_000 });
        for (
          const box of ["#submission-entrypoint", "#submission-runtime-env"]
        ) {
          const width = (await page.locator(box).boundingBox())?.width ?? 0;
          assert.ok(width >= 600, `${box} is ${width} px wide`);
        }
        await page.fill("#submission-entrypoint", "python train.py");
        await page.fill("#submission-runtime-env", "working_dir: ./\n");
        await page.click("#submit-submission");
        const error = page.locator("#submission-form-error");
        await error.getByText(/a browser cannot upload/).waitFor();
        assert.match(await error.textContent() ?? "", /--working-dir \.\//);
        assert.equal(await page.locator("#submission").textContent(), "");
        assertNoTrouble(trouble);
      },
    );

    await t.step("Stop is disabled once the job ended", async () => {
      await submitJob(page, "python -c \"print('hello')\"");
      await page.locator("#submission-status [data-status=SUCCEEDED]")
        .waitFor({ timeout: 20_000 });
      await page.locator("#stop-submission:disabled").waitFor();
      assert.equal(
        await page.locator("#delete-submission").isEnabled(),
        true,
      );
      assertNoTrouble(trouble);
    });

    await t.step("scaling past Max says Max's rule under Max", async () => {
      await page.fill("#replicas-0", "9");
      await page.click("#scale-0");
      await page.locator("#max-0-error").getByText(/less than replicas/)
        .waitFor();
      assert.equal(await page.textContent("#replicas-0-error"), "");
      assertNoTrouble(trouble, [/clusters\/red\?updateMask=\S*: HTTP 400$/]);
    });

    await t.step(
      "at 375 px the tables' words stay whole and nothing spills sideways",
      async () => {
        await page.setViewportSize({ width: 375, height: 800 });
        await page.fill("#replicas-0", "1");
        await page.locator("[data-submission] [data-status=SUCCEEDED]")
          .waitFor();
        assert.deepEqual(await brokenWords(page, "#cluster-jobs"), []);
        assert.deepEqual(await brokenWords(page, "#workers"), []);
        await page.goto(`${origin}/console#/clusters`);
        await page.locator("#clusters [data-status], #clusters .state.ready")
          .first().waitFor();
        assert.deepEqual(await brokenWords(page, "main"), []);
        const scrollWidth = await page.evaluate(
          "document.scrollingElement.scrollWidth",
        ) as number;
        assert.ok(scrollWidth <= 375, `${scrollWidth} px wide`);
        assertNoTrouble(trouble);
      },
    );
  } finally {
    await context?.close();
    await corral?.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
