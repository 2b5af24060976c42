/**
 * The console's jobs for a caller who may not watch them (the policy's
 * verb `watch` is not implied by `list`): the watch of every namespace is
 * refused, so the page turns to one watch per namespace it knows of (from
 * the clusters it sees); that too is refused, so it reads that
 * namespace's jobs every 2 s, and the job still shows, and moves, live.
 */
import assert from "node:assert/strict";
import type { BrowserContext } from "playwright-core";
import { launchChromium, watchTrouble } from "./browser.ts";
import {
  ADA,
  assertOnlyRefusals,
  headOnlyCluster,
  signIn,
  smallTemplate,
  startTwoTeams,
  type TwoTeams,
} from "./two_teams.ts";
import { allow, groups, policyText } from "../api/auth/policy_fixtures.ts";

/** team-a may do anything with clusters and templates, and list jobs. */
const LIST_NOT_WATCH = policyText([
  allow(groups("team-a"), ["team-a"], ["clusters", "computetemplates"], ["*"]),
  allow(groups("team-a"), ["team-a"], ["jobs"], [
    "get",
    "list",
    "create",
    "delete",
  ]),
]);

/** Submits a job of `name` in `namespace` as Ada. */
function submitJob(teams: TwoTeams, namespace: string, name: string) {
  return teams.api(ADA, "POST", `/apis/v1alpha2/namespaces/${namespace}/jobs`, {
    name,
    user: ADA.user,
    version: "2.9.0",
    entrypoint: "python train.py",
    clusterSpec: { headGroupSpec: { computeTemplate: "small" } },
  });
}

/**
 * Chromium on the console's jobs, signed in as Ada: the page, its
 * trouble, and the paths of the jobs' GET requests it makes (lists and
 * watches).
 */
async function jobsPage(teams: TwoTeams) {
  const launched = await launchChromium(teams.dir, {
    width: 1280,
    height: 800,
  });
  const { page } = launched;
  const trouble = watchTrouble(page, teams.origin);
  const reads: string[] = [];
  page.on("request", (request) => {
    const path = new URL(request.url()).pathname;
    if (request.method() === "GET" && /\/jobs$/.test(path)) reads.push(path);
  });
  await signIn(page, teams.origin, "#/jobs", ADA);
  return { context: launched.context, page, trouble, reads };
}

/**
 * Asserts the page asked to watch every namespace's jobs, then team-a's,
 * and read team-a's: its jobs may be listed there, not watched.
 */
function assertTeamAReadNotWatched(reads: string[]): void {
  for (
    const path of [
      "/apis/v1alpha2/watch/jobs",
      "/apis/v1alpha2/watch/namespaces/team-a/jobs",
      "/apis/v1alpha2/namespaces/team-a/jobs",
    ]
  ) {
    assert.ok(reads.includes(path), `${path} not asked: ${reads}`);
  }
}

Deno.test("the console's jobs for a caller who may list but not watch them: refused watches, then the namespace's jobs read, live", async () => {
  let teams: TwoTeams | undefined;
  let context: BrowserContext | undefined;
  try {
    teams = await startTwoTeams(
      "corral-console-jobs-fallback-",
      LIST_NOT_WATCH,
    );
    await smallTemplate(teams, ADA, "team-a");
    await headOnlyCluster(teams, ADA, "team-a", "blue");
    await submitJob(teams, "team-a", "train");
    const opened = await jobsPage(teams);
    context = opened.context;
    const { page, trouble, reads } = opened;
    const row = page.locator('[data-job="team-a/train"]');
    await row.waitFor();
    // Dev mode's operator runs it to the end (300 ms a step).
    await row.getByText("SUCCEEDED").waitFor({ timeout: 30_000 });
    assertTeamAReadNotWatched(reads);
    assert.ok(
      !reads.includes("/apis/v1alpha2/jobs"),
      "the jobs of every namespace were listed, where watching was refused",
    );
    assertOnlyRefusals(trouble, [
      // Before signing in, and the watches the policy refuses.
      / HTTP 401$/,
      /\/watch\/(namespaces\/team-a\/)?jobs: HTTP 403$/,
    ]);
  } finally {
    await context?.close();
    await teams?.close();
  }
});

/**
 * team-a may watch jobs in team-b, and only list them in team-a: the watch
 * of every namespace is accepted and has team-b's jobs only.
 */
const WATCH_ONE_LIST_OTHER = policyText([
  allow(
    groups("team-a"),
    ["team-a", "team-b"],
    ["clusters", "computetemplates"],
    ["*"],
  ),
  allow(groups("team-a"), ["team-a"], ["jobs"], [
    "get",
    "list",
    "create",
    "delete",
  ]),
  allow(groups("team-a"), ["team-b"], ["jobs"], ["*"]),
]);

Deno.test("the console's jobs for a caller who may watch them in one namespace and only list them in another: both namespaces' jobs show, one watched, the other read", async () => {
  let teams: TwoTeams | undefined;
  let context: BrowserContext | undefined;
  try {
    teams = await startTwoTeams(
      "corral-console-jobs-mixed-",
      WATCH_ONE_LIST_OTHER,
    );
    for (const namespace of ["team-a", "team-b"]) {
      await smallTemplate(teams, ADA, namespace);
      await headOnlyCluster(teams, ADA, namespace, "blue");
    }
    await submitJob(teams, "team-a", "listed");
    await submitJob(teams, "team-b", "watched");
    const opened = await jobsPage(teams);
    context = opened.context;
    const { page, trouble, reads } = opened;
    for (const key of ["team-a/listed", "team-b/watched"]) {
      await page.locator(`[data-job="${key}"]`).getByText("SUCCEEDED")
        .waitFor({ timeout: 30_000 });
    }
    assertTeamAReadNotWatched(reads);
    assert.ok(
      !reads.includes("/apis/v1alpha2/namespaces/team-b/jobs"),
      `team-b's jobs were read, where they are watched: ${reads}`,
    );
    // A job added in the namespace that is only read shows too.
    await submitJob(teams, "team-a", "later");
    await page.locator('[data-job="team-a/later"]').waitFor();
    assertOnlyRefusals(trouble, [
      / HTTP 401$/,
      /\/watch\/namespaces\/team-a\/jobs: HTTP 403$/,
    ]);
  } finally {
    await context?.close();
    await teams?.close();
  }
});
