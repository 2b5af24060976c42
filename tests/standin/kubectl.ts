/**
 * kubectl for the tests that point it at the Kubernetes API stand-in: a
 * kubeconfig of the test's, and its cache and HOME in the test's directory,
 * so that nothing is read from or written to the user's.
 */
import assert from "node:assert/strict";
import { kubeconfigFor } from "../../standin/mod.ts";

/** Whether kubectl is on PATH; the kubectl tests are ignored without it. */
export function hasKubectl(): boolean {
  try {
    return new Deno.Command("kubectl", { args: ["version", "--client"] })
      .outputSync().success;
  } catch {
    return false;
  }
}

/** kubectl `args` against `kubeconfig`, its cache and HOME in `dir`. */
export function kubectlCommand(
  kubeconfig: string,
  dir: string,
  args: string[],
  options: Omit<Deno.CommandOptions, "args" | "env"> = {},
): Deno.Command {
  return new Deno.Command("kubectl", {
    args: ["--kubeconfig", kubeconfig, "--cache-dir", `${dir}/cache`, ...args],
    env: { HOME: dir },
    ...options,
  });
}

/** Runs kubectl as kubectlCommand does; asserts it succeeded; its stdout. */
export function kubectlIn(
  kubeconfig: string,
  dir: string,
): (...args: string[]) => Promise<string> {
  return async (...args) => {
    const output = await kubectlCommand(kubeconfig, dir, args).output();
    const stdout = new TextDecoder().decode(output.stdout);
    const stderr = new TextDecoder().decode(output.stderr);
    assert.ok(output.success, `kubectl ${args.join(" ")}: ${stderr}`);
    return stdout;
  };
}

/**
 * Runs `fn` with a fresh directory for kubectl's cache and HOME, holding a
 * kubeconfig for `server` (namespace team-a); removes the directory after.
 */
export async function withKubeconfig(
  server: string,
  prefix: string,
  fn: (kubeconfig: string, dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix });
  try {
    const kubeconfig = `${dir}/kubeconfig`;
    await Deno.writeTextFile(kubeconfig, kubeconfigFor(server, "team-a"));
    await fn(kubeconfig, dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
