/**
 * What the console's quota, expiry and dashboard tests share: main.ts in
 * embedded mode with a token file and a policy for two teams, quotas and
 * an expiry maximum; calls to its API as one of its people; signing in
 * the console; and whether a page spills sideways.
 *
 * team-a: ada (with a quota of her own) and lin, both in group
 * team-a; ada may also `proxy` there, lin may not. team-b: bo, group
 * team-b, a namespace without quotas. cy may create clusters in team-c but
 * not read its quotas.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import type { Trouble } from "./browser.ts";
import {
  DEV_PERMISSIONS,
  FREE_PORTS,
  type MainProcess,
  NO_SHUTDOWN_DELAY,
  startMain,
} from "../main_process.ts";
import {
  allow,
  allowAll,
  groups,
  policyText,
  users,
} from "../api/auth/policy_fixtures.ts";

export interface Person {
  user: string;
  token: string;
}

export const ADA: Person = {
  user: "ada",
  token: "ada-console-token-0123456789abcdef0123",
};
export const LIN: Person = {
  user: "lin",
  token: "lin-console-token-0123456789abcdef0123",
};
export const BO: Person = {
  user: "bo",
  token: "bo-console-token-0123456789abcdef01234",
};
export const CY: Person = {
  user: "cy",
  token: "cy-console-token-0123456789abcdef01234",
};

const TOKENS = `${ADA.token},ada,1,"team-a"
${LIN.token},lin,2,"team-a"
${BO.token},bo,3,"team-b"
${CY.token},cy,4,""
`;

/**
 * team-a's quota: two clusters, 8 CPUs, 16 GiB; ada's own: 4 CPUs. Its
 * clusters live at most 24h, 8h when they say nothing.
 */
export const POLICY = policyText([
  allowAll(groups("team-a"), ["team-a"]),
  allow(users("ada"), ["team-a"], ["clusters"], ["proxy"]),
  allowAll(groups("team-b"), ["team-b"]),
  allow(users("cy"), ["team-c"], ["clusters", "computetemplates"], ["*"]),
], {
  quotas: [
    { namespaces: ["team-a"], maxClusters: 2, cpu: 8, memory: 16 },
    { namespaces: ["team-a"], users: ["ada"], cpu: 4 },
    { namespaces: ["team-c"], maxClusters: 5 },
  ],
  expiry: [{ namespaces: ["team-a"], default: "8h", max: "24h" }],
});

export interface TwoTeams {
  corral: MainProcess;
  origin: string;
  dir: string;
  /** Calls the API as `person`; the answer's JSON, asserting `status`. */
  api(
    person: Person,
    method: string,
    path: string,
    body?: unknown,
    status?: number,
  ): Promise<unknown>;
  /** Stops Corral and removes the directory. */
  close(): Promise<void>;
}

/**
 * Corral with the people above and `policy` (the policy above unless
 * given), its files in a new directory.
 */
export async function startTwoTeams(
  prefix: string,
  policy = POLICY,
): Promise<TwoTeams> {
  const dir = await Deno.makeTempDir({ prefix });
  await Deno.writeTextFile(`${dir}/tokens.csv`, TOKENS);
  await Deno.writeTextFile(`${dir}/policy.yaml`, policy);
  const corral = await startMain({
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
  return {
    corral,
    origin,
    dir,
    api: async (person, method, path, body, status = 200) => {
      const answer = await fetch(`${origin}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${person.token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await answer.text();
      assert.equal(answer.status, status, text);
      return text ? JSON.parse(text) : {};
    },
    close: async () => {
      await corral.stop();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** A template of 1 CPU and 2 GiB, `small`, in `namespace`, made by `person`. */
export async function smallTemplate(
  teams: TwoTeams,
  person: Person,
  namespace: string,
): Promise<void> {
  await teams.api(
    person,
    "POST",
    `/apis/v1/namespaces/${namespace}/compute_templates`,
    { name: "small", cpu: 1, memory: 2 },
  );
}

/** A cluster of a head of `small`, created through the API. */
export async function headOnlyCluster(
  teams: TwoTeams,
  person: Person,
  namespace: string,
  name: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await teams.api(
    person,
    "POST",
    `/apis/v1alpha2/namespaces/${namespace}/clusters`,
    {
      name,
      user: person.user,
      version: "2.9.0",
      clusterSpec: { headGroupSpec: { computeTemplate: "small" } },
      ...extra,
    },
  );
}

/** Opens `hash` of the console and signs in as `person`. */
export async function signIn(
  page: Page,
  origin: string,
  hash: string,
  person: Person,
): Promise<void> {
  await page.goto(`${origin}/console${hash}`);
  await page.fill("#token", person.token);
  await page.click("#sign-in-form button[type=submit]");
  await page.locator("#who").getByText(`Signed in as ${person.user}`).waitFor();
}

/** Asserts the page is no wider than its viewport: nothing spills sideways. */
export async function assertNoSideways(page: Page): Promise<void> {
  const widths = await page.evaluate(
    `({ page: document.documentElement.scrollWidth, view: innerWidth })`,
  ) as { page: number; view: number };
  assert.ok(
    widths.page <= widths.view,
    `the page is ${widths.page} px wide in a ${widths.view} px viewport`,
  );
}

/**
 * Asserts nothing went wrong on the page but the refused requests
 * `expected` allows (any status: browser.ts's assertNoTrouble knows the
 * browser's words for 400 and 401 only, and these tests expect 403s),
 * each also logged by the browser as "Failed to load resource"; then
 * forgets it all.
 */
export function assertOnlyRefusals(
  trouble: Trouble,
  expected: RegExp[] = [],
): void {
  const failed = trouble.failedRequests.splice(0);
  const outside = trouble.outsideRequests.splice(0);
  const errors = trouble.consoleErrors.splice(0);
  const allowed = failed.filter((line) => expected.some((p) => p.test(line)));
  assert.deepEqual({
    failedRequests: failed.filter((line) => !allowed.includes(line)),
    outsideRequests: outside,
    consoleErrors: errors.filter((line) =>
      !(allowed.length &&
        /^Failed to load resource: the server responded with a status of 4\d\d /
          .test(line))
    ),
  }, { failedRequests: [], outsideRequests: [], consoleErrors: [] });
}
