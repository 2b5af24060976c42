/**
 * The `corral` command line: clusters, jobs, services and compute templates through
 * Corral's HTTP API, for people who do not know Kubernetes. Finds the
 * command, parses its flags, runs it and exits with its code (0 ok, 1 API
 * error or failed cluster or job, 2 usage error or timeout, 3 server
 * unreachable, 4 a job stopped),
 * every error printed in plain words on standard error.
 *
 * Run it with `deno task cli -- <command>`, or install it as `corral` with
 * `deno task install:cli` (tools/install_cli.ts).
 */
import { parseFlags, splitCommand } from "./args.ts";
import { CLUSTERS } from "./clusters.ts";
import {
  type Command,
  commandHelp,
  groupHelp,
  isGroup,
  rootHelp,
  type TopLevel,
} from "./command.ts";
import { completionCommand } from "./completion.ts";
import { CONFIG } from "./config_commands.ts";
import { JOBS } from "./jobs.ts";
import { LOGIN, LOGOUT } from "./login.ts";
import { QUOTA } from "./quota.ts";
import { CliError, EXIT_OK, EXIT_USAGE, UsageError } from "./errors.ts";
import { SERVICES } from "./services.ts";
import { TEMPLATES } from "./templates.ts";
import { CLIENT_VERSION, VERSION } from "./version.ts";

/** Every command group and command, in help order. */
export const ENTRIES: TopLevel[] = [
  CLUSTERS,
  JOBS,
  SERVICES,
  TEMPLATES,
  QUOTA,
  VERSION,
  CONFIG,
  LOGIN,
  LOGOUT,
  completionCommand(() => ENTRIES),
];

function isHelp(args: string[]): boolean {
  return args.includes("-h") || args.includes("--help");
}

function unknown(word: string, where: string, known: string[]): UsageError {
  return new UsageError(
    `unknown command ${JSON.stringify(word)} for ${where}`,
    [
      `  commands: ${known.join(", ")}`,
    ],
  );
}

/** Finds and runs the command `argv` names; resolves with the exit code. */
export async function run(argv: string[]): Promise<number> {
  const { words, rest } = splitCommand(argv, (read) => {
    const entry = ENTRIES.find((e) => e.name === read[0]);
    return entry && isGroup(entry) ? 2 : 1;
  });
  if (words.length === 0) {
    // `corral --version`: this command line's only, no server asked.
    if (rest.length === 1 && rest[0] === "--version") {
      console.log(`corral ${CLIENT_VERSION}`);
      return EXIT_OK;
    }
    parseFlags(rest, {}); // names an unknown flag, if there is one
    if (isHelp(rest)) {
      console.log(rootHelp(ENTRIES));
      return EXIT_OK;
    }
    console.error(rootHelp(ENTRIES));
    return EXIT_USAGE;
  }
  const entry = ENTRIES.find((e) => e.name === words[0]);
  if (!entry) throw unknown(words[0], "corral", ENTRIES.map((e) => e.name));
  let command: Command;
  if (isGroup(entry)) {
    if (words.length < 2) {
      if (isHelp(rest)) {
        console.log(groupHelp(entry));
        return EXIT_OK;
      }
      console.error(groupHelp(entry));
      return EXIT_USAGE;
    }
    const found = entry.commands.find((c) => c.name === words[1]);
    if (!found) {
      throw unknown(
        words[1],
        `corral ${entry.name}`,
        entry.commands.map((c) => c.name),
      );
    }
    command = found;
  } else {
    command = entry;
  }
  const args = parseFlags(rest, command.flags);
  if (args.values.help) {
    console.log(commandHelp(command));
    return EXIT_OK;
  }
  return await command.run(args);
}

if (import.meta.main) {
  let code: number;
  try {
    // `deno task cli -- clusters list` hands the "--" on: it is no argument.
    code = await run(Deno.args[0] === "--" ? Deno.args.slice(1) : Deno.args);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    for (const line of error.lines()) console.error(line);
    code = error.exitCode;
  }
  Deno.exit(code);
}
