/**
 * Reading the object a create sends: a YAML or JSON file (JSON is YAML),
 * or standard input for `-f -`, and the namespace it goes to.
 */
import { parse } from "yaml";
import { type ParsedArgs, stringFlag } from "./args.ts";
import { CliError, EXIT_USAGE, UsageError } from "./errors.ts";

/** The object in `path` (`-` for standard input); `what` names it in errors. */
export async function readObjectFile(
  path: string,
  what: string,
): Promise<Record<string, unknown>> {
  const source = path === "-" ? "standard input" : path;
  let text: string;
  try {
    text = path === "-"
      ? await new Response(Deno.stdin.readable).text()
      : await Deno.readTextFile(path);
  } catch (error) {
    throw new CliError(
      `cannot read ${source}: ${(error as Error).message}`,
      EXIT_USAGE,
    );
  }
  let object: unknown;
  try {
    object = parse(text);
  } catch (error) {
    throw new CliError(
      `${source} is not YAML or JSON: ${(error as Error).message}`,
      EXIT_USAGE,
    );
  }
  if (typeof object !== "object" || object === null || Array.isArray(object)) {
    throw new CliError(
      `${source} does not hold a ${what}: expected a mapping of its fields`,
      EXIT_USAGE,
    );
  }
  return object as Record<string, unknown>;
}

/**
 * The namespace a file's object goes to: its own, else the command's; a
 * -n that contradicts the file is refused rather than one of them chosen.
 */
export function namespaceOf(
  object: { namespace?: unknown },
  values: ParsedArgs["values"],
  fallback: string,
): string {
  const inFile = typeof object.namespace === "string" && object.namespace
    ? object.namespace
    : undefined;
  const flag = stringFlag(values, "namespace");
  if (inFile && flag && inFile !== flag) {
    throw new UsageError(
      `the file's namespace ${JSON.stringify(inFile)} is not -n ${
        JSON.stringify(flag)
      }`,
    );
  }
  return inFile ?? fallback;
}
