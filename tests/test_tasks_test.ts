/**
 * `deno task test:unit` (deno.json) runs the test files that start no
 * process, and runs them without --allow-run, so that one which tries fails
 * at once. Its --ignore list names the others: the test files whose own code,
 * or a module of this repository they import (statically or not), runs a
 * command through Deno's or Node's process API. This keeps that list and the
 * rule in step: a new test that starts main.ts, the CLI, python or kubectl
 * joins the list, and a file that stops doing so leaves it.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);

/** Starts a process. Spelt so that this file does not match itself. */
const STARTS_A_PROCESS = /\bDeno\.(Command|run)\b|node:child_[p]rocess/;

/** Relative module specifiers: `from "./x.ts"`, `import "./x.ts"`, `import("./x.ts")`. */
const RELATIVE_IMPORT =
  /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g;

/** Paths relative to the repository root of every test file under `dir`. */
async function testFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory) found.push(...await testFiles(`${path}/`));
    else if (entry.name.endsWith("_test.ts")) found.push(path);
  }
  return found;
}

/** Whether `url`, or a repository module it imports, starts a process. */
async function startsProcess(
  url: URL,
  visited = new Set<string>(),
): Promise<boolean> {
  // Visited: answered already, or being answered further up (a cycle).
  if (visited.has(url.href)) return false;
  visited.add(url.href);
  let text: string;
  try {
    text = await Deno.readTextFile(url);
  } catch (error) {
    // Text that reads like an import, in a string or a comment.
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  if (STARTS_A_PROCESS.test(text)) return true;
  for (const [, specifier] of text.matchAll(RELATIVE_IMPORT)) {
    if (await startsProcess(new URL(specifier, url), visited)) return true;
  }
  return false;
}

/** A deno.json task's command line, whether written as a string or not. */
async function task(name: string): Promise<{ command: string }> {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", ROOT)),
  );
  const value = config.tasks[name];
  return typeof value === "string" ? { command: value } : value;
}

Deno.test("test:unit ignores exactly the test files that start a process, and may not start one", async () => {
  const { command } = await task("test:unit");
  assert.doesNotMatch(command, /--allow-run|--allow-all|-A\b/);
  const ignored = command.match(/--ignore=(\S+)/)?.[1].split(",") ?? [];
  assert.ok(ignored.includes("tests/browser/"), command);

  const starting: string[] = [];
  for (const path of await testFiles("tests/")) {
    if (path.startsWith("tests/browser/")) continue;
    if (await startsProcess(new URL(path, ROOT))) starting.push(path);
  }
  assert.deepEqual(
    ignored.filter((p) => p.endsWith(".ts")).sort(),
    starting.sort(),
    "got: test:unit's --ignore list; want: the test files that start a process",
  );
});

Deno.test("test runs the whole suite but the browser tests, with one job per CPU", async () => {
  const { command } = await task("test");
  assert.match(command, /--ignore=tests\/browser\/(\s|$)/);
  assert.doesNotMatch(
    command,
    /DENO_JOBS/,
    "Deno's --parallel runs as many jobs as there are CPUs",
  );
});
