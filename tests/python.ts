/**
 * The Python the tests run: Debian's /usr/bin/python3, whose python3-*
 * packages `.ci/run` installs (grpcio, grpc_tools, requests, yaml,
 * kubernetes, venv). A test that needs modules it lacks is reported as
 * ignored, saying which.
 */

/** Debian's python3. */
export const PYTHON = "/usr/bin/python3";

/**
 * What `python` lacks of `modules` ("requests, yaml"): the last line of
 * the ImportError, or why it does not run; "" when it imports them all.
 */
export function missingModules(modules: string, python = PYTHON): string {
  try {
    const { success, stderr } = new Deno.Command(python, {
      args: ["-c", `import ${modules}`],
      stdout: "null",
      stderr: "piped",
    }).outputSync();
    return success
      ? ""
      : new TextDecoder().decode(stderr).trim().split("\n").at(-1) ?? "";
  } catch (error) {
    return `${python}: ${(error as Error).message}`;
  }
}

/**
 * Debian's python3 when it imports `modules`, else the first python3 on
 * PATH that does; undefined when none does.
 */
export function pythonImporting(modules: string): string | undefined {
  return [PYTHON, "python3"].find((python) =>
    missingModules(modules, python) === ""
  );
}
