/**
 * What the browser tests share: Debian's chromium, headless, under
 * playwright-core; and what went wrong on a page under test, by kind
 * (failed requests, requests to any origin but Corral's, console errors),
 * every list to stay empty but for what a step expects.
 */
import assert from "node:assert/strict";
import { type BrowserContext, chromium, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

/** Where `deno task docs:screenshots` has the tests save pictures. */
export const SCREENSHOTS = Deno.env.get("CORRAL_SCREENSHOTS");

/**
 * Headless chromium with its profile in `dir`, offline but for what a page
 * asks (no background networking), and its page. A step that waits for
 * something the page never shows fails in seconds, not playwright's
 * default 30 s per action. `args` are more of chromium's switches (such
 * as --host-resolver-rules, to point a name at Corral).
 */
export async function launchChromium(
  dir: string,
  viewport: { width: number; height: number },
  args: string[] = [],
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await chromium.launchPersistentContext(`${dir}/chromium`, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-background-networking", ...args],
    viewport,
  });
  context.setDefaultTimeout(10_000);
  const page = context.pages()[0] ?? await context.newPage();
  return { context, page };
}

export interface Trouble {
  failedRequests: string[];
  outsideRequests: string[];
  consoleErrors: string[];
}

export function watchTrouble(page: Page, origin: string): Trouble {
  const trouble: Trouble = {
    failedRequests: [],
    outsideRequests: [],
    consoleErrors: [],
  };
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.protocol === "data:") return;
    if (url.origin !== origin) trouble.outsideRequests.push(request.url());
  });
  page.on("requestfailed", (request) => {
    // A watch the page ends itself (reconnecting after sign-in) is aborted.
    if (request.failure()?.errorText === "net::ERR_ABORTED") return;
    trouble.failedRequests.push(
      `${request.method()} ${request.url()}: ${request.failure()?.errorText}`,
    );
  });
  page.on("response", (response) => {
    if (response.status() >= 400) {
      trouble.failedRequests.push(
        `${response.request().method()} ${response.url()}: HTTP ${response.status()}`,
      );
    }
  });
  page.on("console", (message) => {
    if (message.type() === "error") trouble.consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => trouble.consoleErrors.push(String(error)));
  return trouble;
}

/**
 * Asserts nothing went wrong but the failed requests `expected` allows
 * (which the browser also logs, as "Failed to load resource"); then
 * forgets it all, so that one step's trouble is not the next one's.
 */
export function assertNoTrouble(
  trouble: Trouble,
  expected: RegExp[] = [],
): void {
  const seen = {
    failedRequests: trouble.failedRequests.splice(0),
    outsideRequests: trouble.outsideRequests.splice(0),
    consoleErrors: trouble.consoleErrors.splice(0),
  };
  const statuses = seen.failedRequests.filter((line) =>
    expected.some((pattern) => pattern.test(line))
  ).map((line) => line.replace(/.*HTTP /, ""));
  assert.deepEqual({
    failedRequests: seen.failedRequests.filter((line) =>
      !expected.some((pattern) => pattern.test(line))
    ),
    outsideRequests: seen.outsideRequests,
    consoleErrors: seen.consoleErrors.filter((line) =>
      !statuses.some((status) =>
        line ===
          `Failed to load resource: the server responded with a status of ${status} (${
            status === "401" ? "Unauthorized" : "Bad Request"
          })`
      )
    ),
  }, { failedRequests: [], outsideRequests: [], consoleErrors: [] });
}
