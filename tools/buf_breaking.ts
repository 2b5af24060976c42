/**
 * buf breaking: proto/ of the work tree, edits not yet committed included,
 * against proto/ as commit REF has it (default HEAD~1), by buf.yaml's
 * breaking rules.
 *
 *   deno task buf:breaking          against HEAD~1, the commit before yours
 *   deno task buf:breaking main     against the branch you will merge into
 *   deno task buf:breaking HEAD     your uncommitted edits only
 *
 * Flags after REF go to buf (`--error-format=json`). buf's own
 * `--against '.git#ref=...'` cannot be used: that input holds committed
 * files only, laid out as that commit's buf.yaml says. So each side is a
 * temporary buf workspace (tools/buf.ts) with the work tree's copies of the
 * google.api protos (third_party/googleapis). Only proto/ is taken from
 * REF: both sides are laid out by the work tree's buf.yaml, so any commit
 * with a proto/ can be compared with.
 */
import { addGoogleProtos, makeWorkspace, runBuf } from "./buf.ts";

export const DEFAULT_REF = "HEAD~1";

/**
 * Runs buf breaking for the git work tree `source` against `ref`, passing
 * `flags` on to buf; answers its exit code.
 */
export async function bufBreaking(
  source: string,
  ref: string,
  flags: string[] = [],
): Promise<number> {
  const against = await Deno.makeTempDir({ prefix: "corral-buf-against-" });
  try {
    await extractProto(source, ref, against);
    await Deno.copyFile(`${source}/buf.yaml`, `${against}/buf.yaml`);
    await addGoogleProtos(against);
    const workspace = await makeWorkspace(source);
    try {
      return await runBuf(
        ["breaking", ".", "--against", against, ...flags],
        workspace,
      );
    } finally {
      await Deno.remove(workspace, { recursive: true });
    }
  } finally {
    await Deno.remove(against, { recursive: true });
  }
}

/** Writes the files under proto/ in commit `ref` of `repo` into `into`. */
async function extractProto(
  repo: string,
  ref: string,
  into: string,
): Promise<void> {
  let commit: string;
  try {
    commit = (await git(repo, [
      "rev-parse",
      "--verify",
      "--end-of-options",
      `${ref}^{commit}`,
    ])).trim();
  } catch {
    throw new Error(`Cannot compare with "${ref}": not a commit of ${repo}`);
  }
  // <mode> SP <type> SP <object> TAB <path> NUL, for every file below proto/.
  const entries = (await git(repo, [
    "ls-tree",
    "-r",
    "-z",
    "--full-tree",
    commit,
    "--",
    "proto/",
  ])).split("\0").filter((entry) => entry !== "");
  const files = entries.map((entry) => {
    const [meta, path] = entry.split("\t");
    const [mode, type, object] = meta.split(" ");
    return { mode, type, object, path };
  }).filter(({ type }) => type === "blob");
  if (!files.some(({ path }) => path.endsWith(".proto"))) {
    throw new Error(`Cannot compare with "${ref}": it has no proto/*.proto`);
  }
  for (const { mode, object, path } of files) {
    // A symbolic link's blob is its target, not a file to compare.
    if (mode === "120000") continue;
    const file = `${into}/${path}`;
    await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(
      file,
      await git(repo, ["cat-file", "blob", object]),
    );
  }
}

/** git's output for `args` in `repo`; throws with its message on failure. */
async function git(repo: string, args: string[]): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command("git", {
    args,
    cwd: repo,
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  if (code !== 0) {
    throw new Error(
      `Cannot run git ${args[0]}: ${decoder.decode(stderr).trim()}`,
    );
  }
  return decoder.decode(stdout);
}

if (import.meta.main) {
  const [first, ...rest] = Deno.args;
  const [ref, flags] = first === undefined || first.startsWith("-")
    ? [DEFAULT_REF, Deno.args]
    : [first, rest];
  try {
    Deno.exit(await bufBreaking(Deno.cwd(), ref, flags));
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    Deno.exit(2);
  }
}
