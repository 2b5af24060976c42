/**
 * The console's jobs in a real browser (Debian's chromium, headless):
 * a person fills the New job form, sees a refusal next to the field it
 * names, submits the job on a cluster of its own from a compute template,
 * and watches its page go from pending to running to succeeded, live, as
 * dev mode's simulated operator runs it: each step of the job's life takes
 * the operator's delay (4 s). The page follows WatchRayJobs, so it never
 * lists the jobs: watch streams end within 3 s here
 * (--watch-max-duration), and each is resumed from where it ended.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import type { BrowserContext, Page } from "playwright-core";
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

/**
 * The jobs' requests a page made: lists of jobs, watches of them, and the
 * watches of one namespace that only ask whether it may be watched
 * (jobs_watch.js, probeNamespaces).
 */
interface JobReads {
  lists: string[];
  watches: string[];
  probes: string[];
}

/** Counts the page's requests that read jobs, from now on. */
function countJobReads(page: Page): JobReads {
  const reads: JobReads = { lists: [], watches: [], probes: [] };
  page.on("request", (request) => {
    if (request.method() !== "GET") return;
    const url = new URL(request.url());
    if (/^\/apis\/v1alpha2\/(namespaces\/[^/]+\/)?jobs$/.test(url.pathname)) {
      reads.lists.push(`${url.pathname}${url.search}`);
    }
    if (
      /^\/apis\/v1alpha2\/watch\/namespaces\/[^/]+\/jobs$/.test(url.pathname)
    ) {
      reads.probes.push(`${url.pathname}${url.search}`);
    } else if (/^\/apis\/v1alpha2\/watch\/jobs$/.test(url.pathname)) {
      reads.watches.push(`${url.pathname}${url.search}`);
    }
  });
  return reads;
}

Deno.test("the console's jobs: New job, a refusal by field, then the job's page goes running and succeeded live", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "corral-console-jobs-" });
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
        "--watch-max-duration",
        "3s",
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
    const reads = countJobReads(page);

    await t.step("the jobs list starts empty", async () => {
      await page.goto(`${origin}/console#/jobs`);
      await page.getByText("No jobs yet: submit one.").waitFor();
      assertNoTrouble(trouble);
    });

    await t.step(
      "a refusal shows the API's message next to the field it names",
      async () => {
        await page.click("#new-job");
        await page.fill("#job-name", "Bad_Job");
        await page.fill("#job-namespace", NS);
        await page.fill("#job-user", "ada");
        await page.fill("#job-entrypoint", "python train.py");
        await page.locator("#job-template option[value=small]").waitFor({
          state: "attached",
        });
        await page.check("#job-fresh");
        await page.selectOption("#job-template", "small");
        await page.fill("#job-version", "2.9.0");
        await page.click("#submit-job");
        await page.locator("#job-name-error").filter({ hasText: /\S/ })
          .waitFor();
        assert.equal(
          await page.getAttribute("#job-name", "aria-invalid"),
          "true",
        );
        assertNoTrouble(trouble, [/\/jobs: HTTP 400$/]);
      },
    );

    await t.step(
      "submitted, the job's page shows it pending, then running, then succeeded, live",
      async () => {
        reads.lists.length = 0;
        reads.watches.length = 0;
        reads.probes.length = 0;
        await page.fill("#job-name", "train");
        await page.fill("#job-runtime-env", "pip:\n  - numpy\n");
        await page.check("#job-shutdown");
        await page.click("#submit-job");
        await page.waitForURL(/#\/jobs\/team-a\/train$/);
        await page.locator("#job-status").getByText("PENDING").waitFor();
        const stored = await (await fetch(
          `${standin}/apis/ray.io/v1/namespaces/${NS}/rayjobs/train`,
        )).json();
        assert.equal(stored.spec.entrypoint, "python train.py");
        assert.equal(stored.spec.runtimeEnvYAML, "pip:\n  - numpy\n");
        assert.equal(stored.spec.shutdownAfterJobFinishes, true);
        // The operator's steps: its cluster, ready after a delay, then the
        // job pending, running and succeeded, a delay each.
        const step = { timeout: 30_000 };
        await page.locator("#job-status").getByText("RUNNING").waitFor(step);
        await page.locator("#job-cluster a").getByText(/^train-[a-z0-9]{5}$/)
          .waitFor(step);
        await page.locator("#job-status").getByText("SUCCEEDED").waitFor(step);
        await page.locator("#job-message").getByText(/./).waitFor(step);
        // Its log, the submitter's, followed to its end.
        await page.locator("#job-log").getByText(/Job '.*' succeeded/)
          .waitFor(step);
        assert.match(
          await page.locator("#job-log").textContent() ?? "",
          /Running entrypoint: python train\.py\n/,
        );
        await page.locator("#job-log-note").getByText(/whole log/)
          .waitFor(step);
        // Live without polling: no list of jobs over the job's life, one
        // watch from scratch as its page opened, and every later one
        // resumed from where the one before ended.
        assert.deepEqual(reads.lists, [], "the page listed the jobs");
        assert.equal(reads.watches[0], "/apis/v1alpha2/watch/jobs");
        const resumed = reads.watches.slice(1);
        assert.ok(
          resumed.length >= 1,
          `no stream ended and resumed over the job's life: ${reads.watches}`,
        );
        for (const watch of resumed) {
          assert.match(
            watch,
            /^\/apis\/v1alpha2\/watch\/jobs\?resourceVersion=\d/,
          );
        }
        // Whether its namespace may be watched is asked once, not again.
        assert.ok(
          reads.probes.length <= 1 &&
            reads.probes.every((probe) =>
              probe === `/apis/v1alpha2/watch/namespaces/${NS}/jobs`
            ),
          `${reads.probes}`,
        );
        if (SCREENSHOTS) {
          await page.screenshot({
            path: `${SCREENSHOTS}/console-job.png`,
            fullPage: true,
          });
        }
        assertNoTrouble(trouble);
      },
    );

    await t.step("the jobs list shows it with its status", async () => {
      await page.click("text=Jobs");
      const row = page.locator('[data-job="team-a/train"]');
      await row.getByText("SUCCEEDED").waitFor();
      assert.match(await row.textContent() ?? "", /Complete/);
      assert.deepEqual(reads.lists, [], "the page listed the jobs");
      assertNoTrouble(trouble);
    });
  } finally {
    await context?.close();
    await corral?.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
