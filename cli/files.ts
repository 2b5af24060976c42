/**
 * Reading the object a create sends: a YAML or JSON file (JSON is YAML),
 * or standard input for `-f -`.
 */
import { parse } from "yaml";
import { CliError, EXIT_USAGE } from "./errors.ts";

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
