/**
 * `deno task install:cli`: installs the `corral` command line as a script
 * in Deno's install root (`$DENO_INSTALL_ROOT/bin`, else `~/.deno/bin`),
 * pinned to the repository's lockfile, with `deno task cli`'s permissions.
 *
 * Why not a bare `deno install -g ... cli/main.ts`: a global install copies
 * deno.json into `<root>/bin/.corral/` and looks for the lockfile beside
 * that copy, where there is none, so `--frozen` (deno.json's `"lock":
 * {"frozen": true}`) fails with "The lockfile is out of date". This gives
 * the install the repository's lockfile by its absolute path, then puts a
 * copy of it beside the copied deno.json, so that every run of `corral` is
 * checked against the same integrity hashes as `deno task cli`, and nothing
 * is resolved anew.
 *
 * Exits 0 having printed where the command is; otherwise with deno
 * install's code, its error on standard error.
 */

const ROOT = new URL("../", import.meta.url).pathname;
/** What `deno task cli` grants: the API, the config file, the CA file. */
export const CLI_PERMISSIONS = [
  "--allow-net",
  "--allow-read",
  "--allow-env",
  "--allow-write",
];

/** The install root `deno install -g` uses. */
export function installRoot(env: (name: string) => string | undefined) {
  const root = env("DENO_INSTALL_ROOT");
  if (root) return root.replace(/\/+$/, "");
  const home = env("HOME");
  if (!home) throw new Error("neither DENO_INSTALL_ROOT nor HOME is set");
  return `${home}/.deno`;
}

/** The config the generated script runs with: `--config PATH`. */
export function configOfScript(script: string): string | undefined {
  return /--config '?([^'\s]+)'?/.exec(script)?.[1];
}

async function install(root: string): Promise<number> {
  const lock = `${ROOT}deno.lock`;
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: [
      "install",
      "--global",
      "--force",
      "--name",
      "corral",
      "--root",
      root,
      "--frozen",
      "--config",
      `${ROOT}deno.json`,
      `--lock=${lock}`,
      ...CLI_PERMISSIONS,
      `${ROOT}cli/main.ts`,
    ],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) return code;
  const script = await Deno.readTextFile(`${root}/bin/corral`);
  const config = configOfScript(script);
  if (!config) {
    console.error(`error: ${root}/bin/corral names no --config:\n${script}`);
    return 1;
  }
  await Deno.copyFile(lock, config.replace(/[^/]+$/, "deno.lock"));
  // One run now: it proves the script works, and Deno's one-time notes on
  // setting up the npm packages are printed here, not on the first use.
  const check = await new Deno.Command(`${root}/bin/corral`, {
    args: ["--version"],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (check.code !== 0) return check.code;
  console.log(`installed ${root}/bin/corral`);
  if (!(Deno.env.get("PATH") ?? "").split(":").includes(`${root}/bin`)) {
    console.log(`add it to PATH: export PATH="${root}/bin:$PATH"`);
  }
  console.log(`shell completion: source <(corral completion bash)   # or zsh`);
  return 0;
}

if (import.meta.main) {
  Deno.exit(await install(installRoot((name) => Deno.env.get(name))));
}
