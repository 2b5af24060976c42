/**
 * `deno task buf` and `deno task buf:breaking` (tools/buf.ts,
 * tools/buf_breaking.ts): the pinned buf over proto/ with the repository's
 * buf.yaml, the google.api protos of third_party/googleapis linked into a
 * temporary workspace. Offline: buf gets a cache of its own and no registry.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

interface Run {
  code: number;
  output: string;
}

/**
 * tools/`script` with `args` in `cwd`, as its `deno task` runs it from the
 * repository's root.
 */
async function tool(
  script: "buf.ts" | "buf_breaking.ts",
  args: string[],
  cwd: string = ROOT.pathname,
): Promise<Run> {
  const cache = await Deno.makeTempDir({ prefix: "corral-buf-cache-" });
  try {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        // Resolved by the tests' deno.json and deno.lock, wherever `cwd` is.
        `--config=${new URL("tests/deno.json", ROOT).pathname}`,
        "--allow-read",
        "--allow-write",
        "--allow-env",
        "--allow-run",
        new URL(`tools/${script}`, ROOT).pathname,
        ...args,
      ],
      cwd,
      env: { BUF_CACHE_DIR: cache, NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return { code, output: decode(stdout) + decode(stderr) };
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
}

/** A new temporary directory holding copies of buf.yaml and proto/. */
async function apiCopy(prefix: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix });
  for (const path of ["buf.yaml", "proto"]) {
    await copy(new URL(path, ROOT), `${dir}/${path}`);
  }
  return dir;
}

/** git with `args` in `dir`, failing the test when git fails. */
async function git(dir: string, ...args: string[]): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command("git", {
    args: [
      "-c",
      "user.name=Corral tests",
      "-c",
      "user.email=tests@corral.invalid",
      "-c",
      "commit.gpgsign=false",
      ...args,
    ],
    cwd: dir,
    stdin: "null",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  assert.equal(code, 0, `git ${args.join(" ")} failed:\n${decode(stderr)}`);
  return decode(stdout);
}

/** A git repository whose one commit holds copies of buf.yaml and proto/. */
async function apiRepo(): Promise<string> {
  const dir = await apiCopy("corral-buf-breaking-");
  await git(dir, "init", "-q");
  await git(dir, "add", ".");
  await git(dir, "commit", "-q", "-m", "API");
  return dir;
}

/** Renumbers Cluster.user from 3 to 13 in `dir`/proto/cluster.proto. */
async function renumberUser(dir: string): Promise<void> {
  const file = `${dir}/proto/cluster.proto`;
  const text = await Deno.readTextFile(file);
  const edited = text.replace("string user = 3 ", "string user = 13 ");
  assert.notEqual(edited, text, "cluster.proto has no `string user = 3`");
  await Deno.writeTextFile(file, edited);
}

const USER_DELETED =
  /proto\/cluster\.proto:\d+:\d+:Previously present field "3" with name "user" on message "Cluster" was deleted\./;

Deno.test("buf lint passes on proto/", async () => {
  const { code, output } = await tool("buf.ts", [
    "lint",
    "--error-format=text",
  ]);
  assert.equal(code, 0, `buf lint failed:\n${output}`);
});

Deno.test("buf lint still fails a proto that breaks the rules buf.yaml keeps", async () => {
  // buf.yaml and proto/ plus a file with a message without a comment and a
  // field not in snake_case: the exceptions must not hide either.
  const dir = await apiCopy("corral-buf-lint-");
  try {
    await Deno.writeTextFile(
      `${dir}/proto/extra.proto`,
      [
        'syntax = "proto3";',
        "",
        "// Extra things.",
        "package proto;",
        "",
        'option go_package = "github.com/corral/corral/proto";',
        "",
        "message Extra {",
        "  // A field.",
        "  string badName = 1;",
        "}",
        "",
      ].join("\n"),
    );
    const { code, output } = await tool(
      "buf.ts",
      ["lint", "--error-format=text"],
      dir,
    );
    assert.notEqual(code, 0, `buf lint passed a bad file:\n${output}`);
    assert.match(
      output,
      /proto\/extra\.proto:8:1:Message "Extra" should have a non-empty comment/,
    );
    assert.match(
      output,
      /proto\/extra\.proto:10:10:Field name "badName" should be lower_snake_case/,
    );
    assert.doesNotMatch(output, /cluster\.proto|compute_template\.proto/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("buf:breaking reports a field renumbered since HEAD~1, its default", async () => {
  const dir = await apiRepo();
  try {
    await renumberUser(dir);
    await git(dir, "commit", "-q", "-a", "-m", "Renumber Cluster.user");
    const { code, output } = await tool("buf_breaking.ts", [], dir);
    assert.notEqual(code, 0, `buf breaking passed a renumbering:\n${output}`);
    assert.match(output, USER_DELETED);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("buf:breaking compares the work tree's uncommitted proto/ with REF", async (t) => {
  const dir = await apiRepo();
  try {
    await t.step("unchanged: passes", async () => {
      const { code, output } = await tool("buf_breaking.ts", ["HEAD"], dir);
      assert.equal(code, 0, `buf breaking failed:\n${output}`);
    });
    await t.step("a field renumbered: fails, naming it", async () => {
      await renumberUser(dir);
      const { code, output } = await tool("buf_breaking.ts", ["HEAD"], dir);
      assert.notEqual(code, 0, `buf breaking passed a renumbering:\n${output}`);
      assert.match(output, USER_DELETED);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("buf:breaking names a REF that is not a commit", async () => {
  const dir = await apiRepo();
  try {
    const { code, output } = await tool("buf_breaking.ts", ["no-such"], dir);
    assert.notEqual(code, 0);
    assert.match(output, /Cannot compare with "no-such": not a commit of /);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

async function copy(from: URL, to: string): Promise<void> {
  const info = await Deno.stat(from);
  if (!info.isDirectory) {
    await Deno.copyFile(from, to);
    return;
  }
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    await copy(
      new URL(entry.isDirectory ? `${entry.name}/` : entry.name, `${from}/`),
      `${to}/${entry.name}`,
    );
  }
}
