/**
 * Runs the pinned buf (@bufbuild/buf in tests/deno.json) on the API
 * definition of the current directory, in a temporary buf workspace that
 * holds:
 *
 *   buf.yaml, proto/   links to the current directory's, so buf reports
 *                      paths as they are here (`buf format -w` edits them)
 *   googleapis/        a link to third_party/googleapis: the google.api protos
 *                      proto/ imports (tools/third_party.ts)
 *
 * buf cannot reach its registry from here, so buf.yaml names the copies as a
 * module of their own; the workspace keeps buf from linting or comparing
 * anything else of the repository, and is removed after each run.
 *
 *   deno task buf lint              the style rules of buf.yaml
 *   deno task buf:breaking [REF]    see tools/buf_breaking.ts
 */
/** The module buf.yaml reads the google.api protos from. */
export const GOOGLEAPIS_MODULE = "googleapis";

/** The tests' and tooling's deno.json, which pins @bufbuild/buf. */
const TOOLING_CONFIG = new URL("../tests/deno.json", import.meta.url).pathname;

/**
 * A new temporary buf workspace for buf.yaml and proto/ of `source` (see
 * above). The caller removes it.
 */
export async function makeWorkspace(source: string): Promise<string> {
  for (const path of ["buf.yaml", "proto"]) {
    await Deno.stat(`${source}/${path}`).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      throw new Error(`Cannot run buf: no ${path} in ${source}`);
    });
  }
  const workspace = await Deno.makeTempDir({ prefix: "corral-buf-" });
  try {
    await Deno.symlink(`${source}/buf.yaml`, `${workspace}/buf.yaml`, {
      type: "file",
    });
    await Deno.symlink(`${source}/proto`, `${workspace}/proto`, {
      type: "dir",
    });
    await addGoogleProtos(workspace);
    return workspace;
  } catch (error) {
    await Deno.remove(workspace, { recursive: true });
    throw error;
  }
}

/** The repository's copies of the google.api protos, for buf. */
const GOOGLEAPIS = new URL("../third_party/googleapis", import.meta.url)
  .pathname;

/** Links the google.api protos into `workspace` as buf.yaml's module. */
export async function addGoogleProtos(workspace: string): Promise<void> {
  await Deno.symlink(GOOGLEAPIS, `${workspace}/${GOOGLEAPIS_MODULE}`, {
    type: "dir",
  });
}

/** Runs buf with `args` in `cwd`, output to ours; answers its exit code. */
export async function runBuf(args: string[], cwd: string): Promise<number> {
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      `--config=${TOOLING_CONFIG}`,
      "--allow-read",
      "--allow-env",
      "--allow-run",
      "@bufbuild/buf/buf",
      ...args,
    ],
    cwd,
  }).spawn().status;
  return code;
}

/** Runs buf with `args` on the API definition of `source`. */
export async function buf(args: string[], source: string): Promise<number> {
  const workspace = await makeWorkspace(source);
  try {
    return await runBuf(args, workspace);
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
}

if (import.meta.main) {
  if (Deno.args[0] === "breaking") {
    // Its --against input would not be laid out as buf.yaml expects.
    console.error(
      "Cannot run buf breaking through this task: run `deno task buf:breaking [REF]`",
    );
    Deno.exit(2);
  }
  try {
    Deno.exit(await buf(Deno.args, Deno.cwd()));
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    Deno.exit(2);
  }
}
