/**
 * What a command is (its name, usage, flags and what it runs), how help is
 * written from that, and the client a command gets for its connection. The
 * same declarations drive parsing, help and the completion scripts, so they
 * never disagree.
 */
import { type Flags, GLOBAL_FLAGS, type ParsedArgs } from "./args.ts";
import { connect, type CorralClient } from "./client.ts";
import { type Connection, resolveConnection } from "./config.ts";

export interface Command {
  name: string;
  /** One line, lower case, no full stop. */
  summary: string;
  /** The usage line after `corral`, e.g. `clusters get NAME [-n NS]`. */
  usage: string;
  flags: Flags;
  /** Lines of examples for help. */
  examples?: string[];
  /** What the positionals complete to: nothing, or a fixed set of words. */
  completeWords?: string[];
  /**
   * The group whose objects' names the positionals complete to, asked of
   * the server when completing ("clusters", "templates").
   */
  completeNames?: string;
  /** Runs the command; resolves with its exit code. */
  run(args: ParsedArgs): Promise<number>;
}

/** A word with subcommands, such as `clusters`. */
export interface CommandGroup {
  name: string;
  summary: string;
  commands: Command[];
}

/** What may follow `corral`: a group, or a command of its own (`version`). */
export type TopLevel = CommandGroup | Command;

export function isGroup(entry: TopLevel): entry is CommandGroup {
  return "commands" in entry;
}

/** A flag as help shows it: `-n, --namespace NS`. */
function flagTitle(name: string, flag: Flags[string]): string {
  const long = `--${name}${flag.value ? ` ${flag.value}` : ""}`;
  return flag.short ? `-${flag.short}, ${long}` : `    ${long}`;
}

function flagLines(flags: Flags): string[] {
  const entries = Object.entries(flags);
  const titles = entries.map(([name, flag]) => flagTitle(name, flag));
  const width = Math.max(...titles.map((t) => t.length));
  return entries.map(([, flag], i) =>
    `  ${titles[i].padEnd(width)}   ${flag.help}`
  );
}

/** A list of names with their summaries, aligned. */
function summaryLines(items: { name: string; summary: string }[]): string[] {
  const width = Math.max(...items.map((item) => item.name.length));
  return items.map((item) => `  ${item.name.padEnd(width)}   ${item.summary}`);
}

/** The help of one command. */
export function commandHelp(command: Command): string {
  const lines = [
    `${command.summary[0].toUpperCase()}${command.summary.slice(1)}.`,
    "",
    "Usage:",
    `  corral ${command.usage}`,
  ];
  if (Object.keys(command.flags).length > 0) {
    lines.push("", "Flags:", ...flagLines(command.flags));
  }
  if (command.examples) {
    lines.push("", "Examples:", ...command.examples.map((e) => `  ${e}`));
  }
  lines.push("", "Global flags:", ...flagLines(GLOBAL_FLAGS));
  return lines.join("\n");
}

/** The help of a group: its commands. */
export function groupHelp(group: CommandGroup): string {
  return [
    `${group.summary[0].toUpperCase()}${group.summary.slice(1)}.`,
    "",
    "Usage:",
    `  corral ${group.name} <command> [flags]`,
    "",
    "Commands:",
    ...summaryLines(group.commands),
    "",
    `Run "corral ${group.name} <command> --help" for a command's flags.`,
  ].join("\n");
}

/** The top-level help. */
export function rootHelp(groups: TopLevel[]): string {
  return [
    "corral creates, scales, watches and deletes compute clusters through a Corral server.",
    "",
    "Usage:",
    "  corral <command> [flags]",
    "",
    "Commands:",
    ...summaryLines(groups),
    "",
    "Global flags:",
    ...flagLines(GLOBAL_FLAGS),
    "",
    "Environment: CORRAL_SERVER, CORRAL_TOKEN, CORRAL_CA, CORRAL_NAMESPACE,",
    "CORRAL_CONFIG (the config file, else ~/.config/corral/config.yaml).",
    "",
    'Run "corral <command> --help" for more about a command.',
  ].join("\n");
}

/**
 * Runs `fn` with a client for the command's connection, closing the client
 * after it.
 */
export async function withClient<T>(
  values: ParsedArgs["values"],
  fn: (client: CorralClient, connection: Connection) => Promise<T>,
): Promise<T> {
  const connection = await resolveConnection(values);
  const client = await connect(connection);
  try {
    return await fn(client, connection);
  } finally {
    client.close();
  }
}

/** Writes text to standard output as it is, without a newline added. */
export function write(text: string): void {
  const bytes = new TextEncoder().encode(text);
  let written = 0;
  while (written < bytes.length) {
    written += Deno.stdout.writeSync(bytes.subarray(written));
  }
}
