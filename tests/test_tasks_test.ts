/**
 * `deno task test:unit` (deno.json) runs the test files that start no
 * process and open no socket, and runs them without --allow-run and
 * without --allow-net, so that one which tries either fails at once. Its
 * --ignore list names the others, the integration tests: those about a
 * process (main.ts, the CLI, python, kubectl) or about the wire (a server
 * on 127.0.0.1:0, the stand-in over HTTP, TLS, gRPC between a client and a
 * server). This keeps that list and the rules in step: a new test that does
 * either joins the list, and a file that stops doing so leaves it.
 *
 * Starts a process: the file's own code, or a module of this repository it
 * imports (statically or not), runs a command through Deno's or Node's
 * process API.
 *
 * Opens a socket: the file's own code, or a test-side module it imports
 * (under tests/, or the stand-in and simulated operator under standin/,
 * which are servers and clients by nature), listens, connects or fetches.
 * Product modules are not followed for this: that api/auth/oidc.ts can
 * fetch an issuer's keys opens nothing until a test gives it an issuer, and
 * a test that does starts that issuer's server itself. Product functions
 * that listen when called (serveHttp, bindGrpc) or make a Kubernetes client
 * (client-node's makeApiClient) count where a test calls them. A type-only
 * import runs nothing and is not followed.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);

/** Starts a process. Spelt so that this file does not match itself. */
const STARTS_A_PROCESS = /\bDeno\.(Command|run)\b|node:child_[p]rocess/;

/**
 * Opens a socket: Deno's listeners and connections, fetch (not a method of
 * that name), grpc-js' bind, a WebSocket, client-node's API clients, and
 * Corral's own listeners. A regular expression literal, so that its own
 * text (`\(` where a call has `(`) does not match it.
 */
const OPENS_A_SOCKET =
  /\bDeno\.(serve|listen|listenTls|connect|connectTls)\b|(?<![.\w])fetch\(|\.bindAsync\(|\bnew WebSocket\(|\bmakeApiClient\(|\b(serveHttp|bindGrpc)\(/;

/** Relative module specifiers: `from "./x.ts"`, `import "./x.ts"`, `import("./x.ts")`. */
const RELATIVE_IMPORT =
  /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g;

/** `import type {…} from "…"` and `export type {…} from "…"`: they run nothing. */
const TYPE_IMPORT =
  /\b(?:import|export)\s+type\s*\{[^}]*\}\s*from\s*["'][^"']+["']/g;

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

/** What a rule looks for, and which imported modules it follows. */
interface Rule {
  pattern: RegExp;
  /** Whether the module at `path` (from the repository root) is read. */
  follows(path: string): boolean;
  /** Whether `import type` is followed. */
  typeImports: boolean;
}

const PROCESS_RULE: Rule = {
  pattern: STARTS_A_PROCESS,
  follows: () => true,
  typeImports: true,
};

const SOCKET_RULE: Rule = {
  pattern: OPENS_A_SOCKET,
  follows: (path) => path.startsWith("tests/") || path.startsWith("standin/"),
  typeImports: false,
};

/** Whether `url`, or a module it imports that `rule` follows, matches it. */
async function matches(
  url: URL,
  rule: Rule,
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
  if (rule.pattern.test(text)) return true;
  const imports = rule.typeImports ? text : text.replace(TYPE_IMPORT, "");
  for (const [, specifier] of imports.matchAll(RELATIVE_IMPORT)) {
    const next = new URL(specifier, url);
    if (!rule.follows(next.href.slice(ROOT.href.length))) continue;
    if (await matches(next, rule, visited)) return true;
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

Deno.test("test:unit ignores exactly the test files that start a process or open a socket, and may do neither", async () => {
  const { command } = await task("test:unit");
  assert.doesNotMatch(command, /--allow-run|--allow-net|--allow-all|-A\b/);
  const ignored = command.match(/--ignore=(\S+)/)?.[1].split(",") ?? [];
  assert.ok(ignored.includes("tests/browser/"), command);

  const integration: string[] = [];
  for (const path of await testFiles("tests/")) {
    if (path.startsWith("tests/browser/")) continue;
    const url = new URL(path, ROOT);
    if (
      await matches(url, PROCESS_RULE) || await matches(url, SOCKET_RULE)
    ) integration.push(path);
  }
  assert.deepEqual(
    ignored.filter((p) => p.endsWith(".ts")).sort(),
    integration.sort(),
    "got: test:unit's --ignore list; want: the test files that start a process or open a socket",
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
