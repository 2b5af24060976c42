/**
 * buf lint over proto/ with the repository's buf.yaml, run through the buf
 * pinned in deno.json (the npm package ships the binary for each platform).
 * Offline: the google.api protos are a local module (third_party/googleapis).
 */
import assert from "node:assert/strict";
import { presentCopies, wantedCopies } from "../../tools/googleapis.ts";

const ROOT = new URL("../../", import.meta.url);

interface Run {
  code: number;
  output: string;
}

/** `deno task buf ...` in `cwd`, with a cache of its own. */
async function buf(args: string[], cwd: URL | string = ROOT): Promise<Run> {
  const cache = await Deno.makeTempDir({ prefix: "corral-buf-cache-" });
  try {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-env",
        "--allow-run",
        // Resolved by the tests' deno.json and deno.lock, wherever `cwd` is.
        `--config=${new URL("tests/deno.json", ROOT).pathname}`,
        "@bufbuild/buf/buf",
        ...args,
      ],
      cwd,
      env: { BUF_CACHE_DIR: cache, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return { code, output: decode(stdout) + decode(stderr) };
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
}

Deno.test("buf lint passes on proto/", async () => {
  const { code, output } = await buf(["lint", "--error-format=text"]);
  assert.equal(code, 0, `buf lint failed:\n${output}`);
});

Deno.test("buf lint still fails a proto that breaks the rules buf.yaml keeps", async () => {
  // A copy of the workspace plus a file with a message without a comment and
  // a field not in snake_case: the exceptions must not hide either.
  const dir = await Deno.makeTempDir({ prefix: "corral-buf-lint-" });
  try {
    for (const path of ["buf.yaml", "proto", "third_party"]) {
      await copy(new URL(path, ROOT), `${dir}/${path}`);
    }
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
    const { code, output } = await buf(["lint", "--error-format=text"], dir);
    assert.notEqual(code, 0, `buf lint passed a bad file:\n${output}`);
    assert.match(
      output,
      /extra\.proto:8:1:Message "Extra" should have a non-empty comment/,
    );
    assert.match(
      output,
      /extra\.proto:10:10:Field name "badName" should be lower_snake_case/,
    );
    assert.doesNotMatch(output, /cluster\.proto|compute_template\.proto/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("third_party/googleapis holds google-proto-files' copies of the protos proto/ imports", async () => {
  const want = await wantedCopies();
  const got = await presentCopies();
  assert.deepEqual(
    [...got.keys()],
    [...want.keys()],
    "run `deno task googleapis:sync`",
  );
  for (const [path, text] of want) {
    assert.ok(
      got.get(path) === text,
      `third_party/googleapis/${path} differs from google-proto-files' copy: run \`deno task googleapis:sync\``,
    );
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
