/**
 * Argument parsing for every command: the global flags (server, token,
 * namespace, ...) that any command takes, anywhere on the line, and each
 * command's own flags, through node:util's parseArgs in strict mode so that
 * an unknown or misspelt flag is a usage error that names it.
 */
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { duration } from "../settings_values.ts";
import { UsageError } from "./errors.ts";

/** A flag as a command declares it: parseArgs' shape plus its help line. */
export interface Flag {
  type: "string" | "boolean";
  short?: string;
  /** The value's placeholder in help, e.g. FILE; none for a boolean. */
  value?: string;
  help: string;
}

export type Flags = Record<string, Flag>;

/** Flags every command takes: where the server is and who is asking. */
export const GLOBAL_FLAGS: Flags = {
  server: { type: "string", value: "URL", help: "Corral's HTTP address" },
  token: { type: "string", value: "TOKEN", help: "bearer token" },
  "certificate-authority": {
    type: "string",
    value: "FILE",
    help: "PEM file of the CA that signed the server's certificate",
  },
  "client-certificate": {
    type: "string",
    value: "FILE",
    help:
      "PEM client certificate, for a Corral that takes them (with --client-key)",
  },
  "client-key": {
    type: "string",
    value: "FILE",
    help: "PEM private key of --client-certificate",
  },
  namespace: {
    type: "string",
    short: "n",
    value: "NS",
    help: "namespace (default: the context's, else default)",
  },
  context: {
    type: "string",
    value: "NAME",
    help: "context of the config file to use",
  },
  help: { type: "boolean", short: "h", help: "show this help" },
};

/** What a command gets: its flags' values and its positional words. */
export interface ParsedArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** parseArgs' option table of `flags` and the global ones. */
function optionTable(flags: Flags): ParseArgsOptionsConfig {
  const table: ParseArgsOptionsConfig = {};
  for (const [name, flag] of Object.entries({ ...GLOBAL_FLAGS, ...flags })) {
    table[name] = flag.short
      ? { type: flag.type, short: flag.short }
      : { type: flag.type };
  }
  return table;
}

/**
 * Parses `args` against `flags` and the global flags. An unknown flag, a
 * flag without its value or a value given to a boolean flag is a
 * UsageError naming the flag.
 */
export function parseFlags(args: string[], flags: Flags): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: optionTable(flags),
      allowPositionals: true,
      strict: true,
    });
    return {
      values: values as ParsedArgs["values"],
      positionals,
    };
  } catch (error) {
    throw new UsageError(flagProblem(error as Error & { code?: string }));
  }
}

/** parseArgs' complaint in the command line's words. */
function flagProblem(error: Error & { code?: string }): string {
  // "Unknown option '-z'", "Option '-o, --output <value>' argument missing"
  const quoted = /'([^']*)'/.exec(error.message)?.[1] ?? "";
  const named = /--[\w-]+/.exec(quoted)?.[0] ?? /-\w/.exec(quoted)?.[0];
  switch (error.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown flag ${named ?? error.message}`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return /argument missing/.test(error.message)
        ? `flag ${named} needs a value`
        : `flag ${named} takes no value`;
    default:
      return error.message;
  }
}

/**
 * The words of `flags` (`--namespace`, `-n`), of those `pick` keeps: the
 * same words for parsing and for the completion scripts.
 */
export function flagWords(
  flags: Flags,
  pick: (name: string, flag: Flag) => boolean = () => true,
): string[] {
  return Object.entries(flags).flatMap(([name, flag]) =>
    pick(name, flag)
      ? [`--${name}`, ...(flag.short ? [`-${flag.short}`] : [])]
      : []
  );
}

/** The global flags that take a value, with their short forms. */
const GLOBAL_VALUE_FLAGS = new Set(
  flagWords(GLOBAL_FLAGS, (_, flag) => flag.type === "string"),
);

/**
 * Splits a command line into its command words (`clusters list`) and the
 * rest, so that global flags may come before the command
 * (`corral -n team-a clusters list`) as in kubectl. `depth(words)` says how
 * many words the command has, given those read so far.
 */
export function splitCommand(
  argv: string[],
  depth: (words: string[]) => number,
): { words: string[]; rest: string[] } {
  const words: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg.startsWith("-") && arg !== "-") {
      rest.push(arg);
      if (GLOBAL_VALUE_FLAGS.has(arg) && i + 1 < argv.length) {
        rest.push(argv[++i]);
      }
    } else if (words.length < depth(words)) {
      words.push(arg);
    } else {
      rest.push(arg);
    }
  }
  return { words, rest };
}

/** The one positional a command needs, e.g. a cluster's name. */
export function onePositional(
  positionals: string[],
  what: string,
  usage: string,
): string {
  if (positionals.length === 0) {
    throw new UsageError(`${what} is required`, [`  usage: ${usage}`]);
  }
  if (positionals.length > 1) {
    throw new UsageError(
      `unexpected argument ${JSON.stringify(positionals[1])}`,
      [`  usage: ${usage}`],
    );
  }
  return positionals[0];
}

/** No positional at all: anything is a usage error naming it. */
export function noPositionals(positionals: string[], usage: string): void {
  if (positionals.length > 0) {
    throw new UsageError(
      `unexpected argument ${JSON.stringify(positionals[0])}`,
      [`  usage: ${usage}`],
    );
  }
}

/** A string flag's value, or undefined. */
export function stringFlag(
  values: ParsedArgs["values"],
  name: string,
): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

/**
 * A duration as Go and Kubernetes write it (`500ms`, `30s`, `10m`,
 * `1h30m`), in milliseconds, read as Corral's own flags read one
 * (settings_values.ts); a bare number is refused rather than guessed, and
 * so is the "0" those flags take for "no limit".
 */
export function parseDuration(text: string, flag: string): number {
  const refused = (why: string) =>
    new UsageError(`${flag} ${JSON.stringify(text)} is not a duration: ${why}`);
  if (text === "0") throw refused("write it as 30s, 10m or 1h30m");
  try {
    return duration(text);
  } catch (error) {
    throw refused((error as Error).message);
  }
}

/**
 * A flag's whole number, undefined when not given; `unit` may follow it
 * (`--memory 4Gi`).
 */
export function wholeNumber(
  values: ParsedArgs["values"],
  flag: string,
  unit = "",
): number | undefined {
  const text = stringFlag(values, flag);
  if (text === undefined) return undefined;
  const match = new RegExp(`^(\\d+)${unit ? `(?:${unit})?` : ""}$`).exec(text);
  if (!match) {
    throw new UsageError(
      `--${flag} ${JSON.stringify(text)} is not a whole number${
        unit ? ` (of ${unit})` : ""
      }`,
    );
  }
  return Number(match[1]);
}
