/**
 * A ready cluster's "Jobs on this cluster" panel in a real browser
 * (Debian's chromium, headless), against dev mode's simulated operator and
 * its simulated Ray dashboard (a log line every 0.5 s): a person submits a
 * job with a runtime environment, watches its log lines arrive while it
 * runs and its status reach SUCCEEDED; a second job ending `exit 1` shows
 * FAILED; an ended job is deleted from the list; a running one is
 * stopped; an empty entrypoint is refused under the form; and with Corral
 * gone, the panel's writes are disabled.
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
  ANONYMOUS,
  DEV_PERMISSIONS,
  FREE_PORTS,
  type MainProcess,
  NO_SHUTDOWN_DELAY,
  startMain,
} from "../main_process.ts";
import { allowAll, groups, policyText } from "../api/auth/policy_fixtures.ts";

const NS = "team-a";
const CLUSTER = "blue";

/** The selected job's status, as its badge says it. */
function selectedStatus(page: Page): Promise<string> {
  return page.locator("#submission-status [data-status]").getAttribute(
    "data-status",
  ) as Promise<string>;
}

/** Submits `entrypoint` from the panel's form; its submission id. */
async function submit(
  page: Page,
  entrypoint: string,
  runtimeEnv = "",
): Promise<string> {
  const heading = page.locator("#submission h3");
  // The heading names the job selected before until this one's answer
  // comes: wait for another name than that.
  const before = await heading.count() > 0 ? await heading.textContent() : "";
  await page.fill("#submission-entrypoint", entrypoint);
  await page.fill("#submission-runtime-env", runtimeEnv);
  await page.click("#submit-submission");
  const job = /^Job raysubmit_/;
  await (before
    ? heading.filter({ hasText: job, hasNotText: before })
    : heading.filter({ hasText: job })).waitFor();
  return (await heading.textContent() ?? "").replace(/^Job /, "");
}

Deno.test("a cluster's jobs in the console: submit, the log live to SUCCEEDED, exit 1 is FAILED, delete, stop, offline", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "corral-cluster-jobs-" });
  let corral: MainProcess | undefined;
  let context: BrowserContext | undefined;
  try {
    corral = await startMain({
      args: [
        "--orchestrator",
        "embedded",
        ...FREE_PORTS,
        "--operator-delay",
        "300ms",
        ...ANONYMOUS,
        ...NO_SHUTDOWN_DELAY,
      ],
      permissions: DEV_PERMISSIONS,
      startTimeoutMs: 20_000,
    });
    const origin = corral.http;
    const api = async (path: string, body: unknown) => {
      const answer = await fetch(`${origin}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      assert.equal(answer.status, 200, await answer.text());
    };
    await api(`/apis/v1/namespaces/${NS}/compute_templates`, {
      name: "small",
      cpu: 1,
      memory: 1,
    });
    await api(`/apis/v1alpha2/namespaces/${NS}/clusters`, {
      name: CLUSTER,
      user: "ada",
      version: "2.9.0",
      clusterSpec: { headGroupSpec: { computeTemplate: "small" } },
    });
    const launched = await launchChromium(dir, { width: 1280, height: 900 });
    context = launched.context;
    const page = launched.page;
    const trouble = watchTrouble(page, origin);

    await t.step("a ready cluster's page has the panel, empty", async () => {
      await page.goto(`${origin}/console#/clusters/${NS}/${CLUSTER}`);
      await page.locator("#cluster-jobs").waitFor({ timeout: 20_000 });
      await page.getByText("No jobs yet: submit one.").waitFor();
      assertNoTrouble(trouble);
    });

    await t.step(
      "a submitted job's log lines arrive while it runs, then SUCCEEDED",
      async () => {
        const id = await submit(
          page,
          "python -c \"print('hello')\"",
          "env_vars:\n  GREETING: hello\n",
        );
        // Live: the log has its first line while the job still runs, and
        // the last line only later.
        // (The simulated dashboard writes a line every 0.5 s: "Done." comes
        // a second after the first line.)
        await page.locator("#submission-log").getByText(/Running entrypoint/)
          .waitFor();
        const early = await page.evaluate(`({
          status: document.querySelector("#submission-status [data-status]")
            .getAttribute("data-status"),
          log: document.getElementById("submission-log").textContent,
        })`) as { status: string; log: string };
        assert.equal(early.status, "RUNNING");
        assert.doesNotMatch(early.log, /Done\./);
        await page.locator("#submission-status [data-status=SUCCEEDED]")
          .waitFor();
        const log = await page.locator("#submission-log").textContent() ?? "";
        assert.match(log, /Running entrypoint: python -c "print\('hello'\)"/);
        assert.match(log, /Running\.\.\.\nDone\.\n$/);
        await page.locator("#submission-log-note").getByText(
          "The job ended: SUCCEEDED.",
        ).waitFor();
        // The list has it too, with its times and entrypoint, and the
        // details the runtime environment the dashboard keeps.
        const row = page.locator(`[data-submission="${id}"]`);
        await row.locator("[data-status=SUCCEEDED]").waitFor();
        assert.match(await row.textContent() ?? "", /print\('hello'\)/);
        await page.locator("#submission").getByText(/env_vars/).waitFor();
        if (SCREENSHOTS) {
          await page.screenshot({
            path: `${SCREENSHOTS}/console-cluster-jobs.png`,
            fullPage: true,
          });
        }
        assertNoTrouble(trouble);
      },
    );

    await t.step("a job ending `exit 1` shows FAILED", async () => {
      const id = await submit(page, "python fail.py; exit 1");
      await page.locator("#submission-status [data-status=FAILED]").waitFor();
      assert.equal(await selectedStatus(page), "FAILED");
      assert.match(
        await page.locator("#submission-log").textContent() ?? "",
        /Exited with code 1\n$/,
      );
      await page.locator(`[data-submission="${id}"] [data-status=FAILED]`)
        .waitFor();
      await page.locator("#submission-message").getByText(/exit code 1/)
        .waitFor();
      assertNoTrouble(trouble);
    });

    await t.step("an ended job is deleted, and leaves the list", async () => {
      const id = (await page.locator("#submission h3").textContent() ?? "")
        .replace(/^Job /, "");
      await page.click("#delete-submission");
      await page.locator(`[data-submission="${id}"]`).waitFor({
        state: "detached",
      });
      assert.equal(await page.locator("#submission h3").count(), 0);
      assert.equal(await page.locator("[data-submission]").count(), 1);
      assertNoTrouble(trouble);
    });

    await t.step("a running job is stopped: STOPPED", async () => {
      // A working directory that was never uploaded is one more log line:
      // the job runs for about 2 s, time enough to press Stop.
      await submit(
        page,
        "python long.py",
        "working_dir: gcs://_ray_pkg_0123456789abcdef.zip\n",
      );
      await page.locator("#submission-status [data-status=RUNNING]").waitFor();
      await page.click("#stop-submission");
      await page.locator("#submission-status [data-status=STOPPED]").waitFor();
      await page.locator("#submission-log-note").getByText(
        "The job ended: STOPPED.",
      ).waitFor();
      assertNoTrouble(trouble);
    });

    await t.step("a refused submission says why, under the form", async () => {
      await page.fill("#submission-entrypoint", "");
      await page.click("#submit-submission");
      await page.locator("#submission-form-error").getByText(
        /^Cannot submit the job: .*entrypoint/i,
      ).waitFor();
      assertNoTrouble(trouble, [/jobsubmissions\/blue: HTTP 400$/]);
    });
    await t.step(
      "with Corral gone, Submit, Stop and Delete are disabled",
      async () => {
        await corral?.stop();
        corral = undefined;
        await page.locator("#offline").waitFor({ state: "visible" });
        for (
          const id of [
            "#submit-submission",
            "#stop-submission",
            "#delete-submission",
          ]
        ) {
          await page.locator(`${id}:disabled`).waitFor();
        }
        await page.locator("#submissions-error").getByText(
          /^Cannot list the jobs: Cannot reach Corral/,
        ).waitFor();
      },
    );
  } finally {
    await context?.close();
    await corral?.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

const BOB_TOKEN = "bob-cluster-jobs-token-0123456789abcdef";

/**
 * Bob's team does "*" in team-a, which never includes `proxy`: he sees the
 * cluster, but not its jobs, and cannot submit one.
 */
const POLICY = policyText([allowAll(groups("team-a"), ["team-a"])]);

Deno.test("a cluster's jobs in the console: without proxy, the panel says the refusal and a submission is refused", async () => {
  const dir = await Deno.makeTempDir({ prefix: "corral-cluster-jobs-" });
  let corral: MainProcess | undefined;
  let context: BrowserContext | undefined;
  try {
    await Deno.writeTextFile(
      `${dir}/tokens.csv`,
      `${BOB_TOKEN},bob@example.com,1,"team-a"\n`,
    );
    await Deno.writeTextFile(`${dir}/policy.yaml`, POLICY);
    corral = await startMain({
      args: [
        "--orchestrator",
        "embedded",
        ...FREE_PORTS,
        "--operator-delay",
        "300ms",
        "--token-auth-file",
        `${dir}/tokens.csv`,
        "--authorization-policy-file",
        `${dir}/policy.yaml`,
        ...NO_SHUTDOWN_DELAY,
      ],
      permissions: DEV_PERMISSIONS,
      startTimeoutMs: 20_000,
    });
    const origin = corral.http;
    const api = async (path: string, body: unknown) => {
      const answer = await fetch(`${origin}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${BOB_TOKEN}`,
          "content-type": "application/json",
        },
        body: JSON.stringify(body),
      });
      assert.equal(answer.status, 200, await answer.text());
    };
    await api(`/apis/v1/namespaces/${NS}/compute_templates`, {
      name: "small",
      cpu: 1,
      memory: 1,
    });
    await api(`/apis/v1alpha2/namespaces/${NS}/clusters`, {
      name: CLUSTER,
      user: "bob@example.com",
      version: "2.9.0",
      clusterSpec: { headGroupSpec: { computeTemplate: "small" } },
    });
    const launched = await launchChromium(dir, { width: 1280, height: 900 });
    context = launched.context;
    const page = launched.page;
    const trouble = watchTrouble(page, origin);
    await page.goto(`${origin}/console#/clusters/${NS}/${CLUSTER}`);
    await page.fill("#token", BOB_TOKEN);
    await page.click("#sign-in-form button[type=submit]");
    await page.locator("#submissions-error").getByText(
      /^Cannot list the jobs: .*may not proxy clusters/,
    ).waitFor({ timeout: 20_000 });
    await page.fill("#submission-entrypoint", "python steal.py");
    await page.click("#submit-submission");
    await page.locator("#submission-form-error").getByText(
      /^Cannot submit the job: .*may not proxy clusters/,
    ).waitFor();
    // Refusals only: the 401s before signing in, the 403s of the panel.
    // (assertNoTrouble knows the browser's words for 400 and 401 only.)
    assert.deepEqual(trouble.outsideRequests, []);
    assert.deepEqual(
      trouble.failedRequests.filter((line) =>
        !/(whoami|watch\/clusters): HTTP 401$/.test(line) &&
        !/\/jobsubmissions\/blue: HTTP 403$/.test(line)
      ),
      [],
    );
    assert.deepEqual(
      trouble.consoleErrors.filter((line) =>
        !/^Failed to load resource: .* (401|403) /.test(line)
      ),
      [],
    );
  } finally {
    await context?.close();
    await corral?.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
