/**
 * The documentation holds together: README.md, every page of docs/ (and
 * clients/python/README.md where there is one) link only to files that
 * exist and to headings that are there, and every flag `--help` prints,
 * Corral's and the command line's, has its reference entry in docs/
 * exactly once. Pure file reading: no process, no socket.
 *
 * Links. Every Markdown link or image `[text](target)` outside code (fenced
 * blocks and inline code spans) whose target has no scheme is relative: its
 * path, taken from the linking file's folder, must exist (a file or a
 * folder), and its `#anchor`, on a Markdown file or on the linking file
 * itself, must be one of that file's headings as GitHub makes them: the
 * heading's text (a link's text, not its target) in lower case, every
 * character but letters, digits, spaces, `-` and `_` dropped, each space a
 * `-`, and `-1`, `-2`, ... after a heading whose slug came before.
 *
 * Flags. A flag's reference entry is a row of a Markdown table whose first
 * column is headed `Flag`, the row's first cell starting with a code span
 * of a flag and naming it in one of its code spans (`--http-port`,
 * `` `--crd` (repeatable) ``, `` `-n`, `--namespace NS` ``,
 * `` `--oidc-issuer-url`, `--oidc-client-id` ``). A flag mentioned anywhere
 * else (in prose, in a table of ports or of errors) is no entry.
 * Corral's flags (settings_flags.ts, in --help order, with --version and
 * --help) each have exactly one such row among the pages of docs/ other
 * than cli.md (the table of configuration.md); the command line's flags
 * (every command's table in cli/, the global flags, and `corral --version`)
 * each have exactly one such row in docs/cli.md, whose one entry for a
 * flag several commands take says what it does for each. A row naming a
 * flag that does not exist fails too, so that a flag taken out leaves no
 * entry behind.
 */
import assert from "node:assert/strict";
import { FLAGS } from "../settings_flags.ts";
import { ENTRIES } from "../cli/main.ts";
import { GLOBAL_FLAGS } from "../cli/args.ts";
import { isGroup } from "../cli/command.ts";

const ROOT = new URL("../", import.meta.url);

/** The Markdown files the links of which are checked, from the root. */
async function markdownFiles(): Promise<string[]> {
  const files = ["README.md"];
  for await (const entry of Deno.readDir(new URL("docs/", ROOT))) {
    if (entry.isFile && entry.name.endsWith(".md")) {
      files.push(`docs/${entry.name}`);
    }
  }
  if (await exists("clients/python/README.md")) {
    files.push("clients/python/README.md");
  }
  return files.sort();
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(new URL(path, ROOT));
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** The lines of `text` outside fenced code blocks (others blanked). */
function proseLines(text: string): string[] {
  let fence: string | undefined;
  return text.split("\n").map((line) => {
    const opening = line.match(/^\s*(```+|~~~+)/);
    if (opening) {
      if (fence === undefined) fence = opening[1];
      else if (opening[1].startsWith(fence)) fence = undefined;
      return "";
    }
    return fence === undefined ? line : "";
  });
}

/** A line without its inline code spans. */
function withoutCode(line: string): string {
  return line.replace(/(`+)[^`]*?\1/g, "");
}

/** GitHub's anchor of a heading's text. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a Markdown text's headings, duplicates numbered. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(text)) {
    const heading = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
    if (!heading) continue;
    const base = slug(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/**
 * The link targets of a Markdown text, with the numbers of the lines their
 * `](` is on (a link's text may run over a line break; its target does not).
 */
export function linksOf(text: string): { line: number; target: string }[] {
  const links: { line: number; target: string }[] = [];
  proseLines(text).map(withoutCode).forEach((line, i) => {
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?[^)]*\)/g)) {
      links.push({ line: i + 1, target: match[1] });
    }
  });
  return links;
}

/** What is wrong with one link of `file`, or undefined. */
async function problemOf(
  file: string,
  target: string,
  anchors: (file: string) => Promise<Set<string>>,
): Promise<string | undefined> {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // http:, mailto:
  const [path, anchor] = target.split("#", 2);
  const resolved = path === ""
    ? file
    : decodeURIComponent(new URL(path, new URL(file, ROOT)).pathname)
      .slice(decodeURIComponent(ROOT.pathname).length);
  if (!(await exists(resolved))) return `${target}: no file ${resolved}`;
  if (anchor === undefined || !resolved.endsWith(".md")) return undefined;
  if (!(await anchors(resolved)).has(anchor)) {
    return `${target}: no heading of ${resolved} has the anchor #${anchor}`;
  }
  return undefined;
}

Deno.test("every relative link and anchor of README.md and docs/ resolves", async () => {
  const cache = new Map<string, Set<string>>();
  const anchors = async (file: string) => {
    if (!cache.has(file)) {
      cache.set(file, anchorsOf(await Deno.readTextFile(new URL(file, ROOT))));
    }
    return cache.get(file)!;
  };
  const problems: string[] = [];
  let checked = 0;
  for (const file of await markdownFiles()) {
    const text = await Deno.readTextFile(new URL(file, ROOT));
    for (const { line, target } of linksOf(text)) {
      checked++;
      const problem = await problemOf(file, target, anchors);
      if (problem) problems.push(`${file}:${line}: ${problem}`);
    }
  }
  assert.ok(checked > 100, `only ${checked} links found: is the parser right?`);
  assert.deepEqual(problems, []);
});

Deno.test("anchors are made as GitHub makes them", () => {
  const text = [
    "# KubeRay compatibility",
    "## KubeRay v0.6.0's wire contract",
    "## The reference page at `/docs`",
    "## Queues (Kueue)",
    "## A cluster's dashboard",
    "```sh",
    "# Not a heading: a comment in code",
    "```",
    "## Tests",
    "### Tests",
    "## [Linked](elsewhere.md) heading",
  ].join("\n");
  assert.deepEqual([...anchorsOf(text)], [
    "kuberay-compatibility",
    "kuberay-v060s-wire-contract",
    "the-reference-page-at-docs",
    "queues-kueue",
    "a-clusters-dashboard",
    "tests",
    "tests-1",
    "linked-heading",
  ]);
});

Deno.test("links are found in prose, across a line break, and not in code", () => {
  const text = [
    "See [the policy](policy.md#rules) and [Job",
    "submission](http-api.md#job-submission); `[not](a-link.md)`.",
    "```md",
    "[not a link either](nowhere.md)",
    "```",
    "![An image](console.png)",
  ].join("\n");
  assert.deepEqual(linksOf(text), [
    { line: 1, target: "policy.md#rules" },
    { line: 2, target: "http-api.md#job-submission" },
    { line: 6, target: "console.png" },
  ]);
});

/** How many table rows of each flag the texts have, by flag. */
export function flagRows(texts: string[]): Map<string, number> {
  const rows = new Map<string, number>();
  for (const text of texts) {
    // Whether the table the line is in has its first column headed Flag.
    let flagTable: boolean | undefined;
    for (const line of proseLines(text)) {
      if (!line.startsWith("|")) {
        flagTable = undefined;
        continue;
      }
      const first = line.split("|")[1].trim();
      if (flagTable === undefined) {
        flagTable = first === "Flag";
        continue;
      }
      if (!flagTable || !first.startsWith("`-")) continue;
      const named = new Set<string>();
      for (const span of first.matchAll(/`([^`]+)`/g)) {
        const flag = span[1].match(/^(--[a-z0-9-]+)/);
        if (flag) named.add(flag[1]);
      }
      for (const flag of named) rows.set(flag, (rows.get(flag) ?? 0) + 1);
    }
  }
  return rows;
}

/** Flags documented other than once, and rows naming flags that are none. */
function mismatches(want: string[], rows: Map<string, number>): string[] {
  const problems = want
    .filter((flag) => rows.get(flag) !== 1)
    .map((flag) => `${flag}: ${rows.get(flag) ?? 0} reference entries`);
  for (const flag of rows.keys()) {
    if (!want.includes(flag)) problems.push(`${flag}: no such flag`);
  }
  return problems;
}

/** Every flag of the command line's --help: each command's and the global ones. */
function cliFlags(): string[] {
  const flags = new Set(["version", ...Object.keys(GLOBAL_FLAGS)]);
  for (const entry of ENTRIES) {
    for (const command of isGroup(entry) ? entry.commands : [entry]) {
      for (const name of Object.keys(command.flags)) flags.add(name);
    }
  }
  return [...flags].map((flag) => `--${flag}`).sort();
}

Deno.test("every flag Corral's --help prints has one reference entry in docs/", async () => {
  const texts: string[] = [];
  for (const file of await markdownFiles()) {
    if (file.startsWith("docs/") && file !== "docs/cli.md") {
      texts.push(await Deno.readTextFile(new URL(file, ROOT)));
    }
  }
  const want = [...FLAGS.map((flag) => `--${flag}`), "--version", "--help"];
  assert.deepEqual(mismatches(want, flagRows(texts)), []);
});

Deno.test("every flag the command line's --help prints has one reference entry in docs/cli.md", async () => {
  const text = await Deno.readTextFile(new URL("docs/cli.md", ROOT));
  assert.deepEqual(mismatches(cliFlags(), flagRows([text])), []);
});

Deno.test("a flag's reference entry is a row of a table headed Flag whose first cell names it", () => {
  const rows = flagRows([[
    "| Flag | Meaning |",
    "| ---- | ------- |",
    "| `--crd` (repeatable) | a CRD |",
    "| `--oidc-issuer-url`, `--oidc-client-id` | OIDC |",
    "| `-n`, `--namespace NS` | the namespace |",
    "| a limit | `--max-body-bytes` (3Mi) |",
    "| a `Host` not in `--allowed-hosts` | 421 |",
    "",
    "| Port | For |",
    "| ---- | --- |",
    "| `--grpc-port` (8887) | a table of ports, not of flags |",
    "```",
    "| `--in-code` | not a row |",
    "```",
  ].join("\n")]);
  assert.deepEqual(Object.fromEntries(rows), {
    "--crd": 1,
    "--oidc-issuer-url": 1,
    "--oidc-client-id": 1,
    "--namespace": 1,
  });
});
