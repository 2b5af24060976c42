/**
 * `corral config ...`: named contexts (a server, with the token, CA and
 * namespace to use there) in the config file, and which one is current,
 * as kubectl's contexts work.
 */
import {
  noPositionals,
  onePositional,
  type ParsedArgs,
  stringFlag,
} from "./args.ts";
import type { CommandGroup } from "./command.ts";
import {
  configPath,
  type Context,
  loadConfig,
  noContext,
  saveConfig,
} from "./config.ts";
import { write } from "./command.ts";
import { CliError, EXIT_API_ERROR, EXIT_OK, UsageError } from "./errors.ts";
import { formatTable } from "./output.ts";
import { resolve } from "node:path";

const SET_USAGE =
  "config set-context NAME [--server URL] [--token T] [--ca FILE] [--client-certificate FILE --client-key FILE] [--namespace NS]";

/** `{[key]: the absolute path}`, or nothing when the flag is not given. */
function fileField(
  key: "clientCertificate" | "clientKey",
  path: string | undefined,
): Partial<Context> {
  // Made absolute, so the context works from any directory.
  return path === undefined ? {} : { [key]: resolve(path) };
}

/**
 * Adds a context or changes the fields given of one; the first context
 * becomes the current one, so one command is enough to get started.
 */
async function setContext(
  { values, positionals }: ParsedArgs,
): Promise<number> {
  const name = onePositional(positionals, "a context name", SET_USAGE);
  const config = await loadConfig();
  const existing = config.contexts.find((c) => c.name === name);
  const server = stringFlag(values, "server");
  if (!existing && server === undefined) {
    throw new UsageError(`a new context needs --server URL`, [
      `  usage: ${SET_USAGE}`,
    ]);
  }
  if (server !== undefined && !URL.canParse(server)) {
    throw new UsageError(`--server ${JSON.stringify(server)} is not a URL`);
  }
  const ca = stringFlag(values, "ca") ??
    stringFlag(values, "certificate-authority");
  const changes: Partial<Context> = {
    ...(server === undefined ? {} : { server }),
    ...(values.token === undefined
      ? {}
      : { token: stringFlag(values, "token") }),
    // Made absolute, so the context works from any directory.
    ...(ca === undefined ? {} : { certificateAuthority: resolve(ca) }),
    ...fileField("clientCertificate", stringFlag(values, "client-certificate")),
    ...fileField("clientKey", stringFlag(values, "client-key")),
    ...(values.namespace === undefined
      ? {}
      : { namespace: stringFlag(values, "namespace") }),
  };
  // A token given replaces a sign-in of corral login, which would be sent
  // before it.
  if (existing && changes.token !== undefined) delete existing.signIn;
  if (existing) Object.assign(existing, changes);
  else config.contexts.push({ name, server: server!, ...changes });
  config.currentContext ??= name;
  await saveConfig(config);
  console.log(
    `context ${JSON.stringify(name)} ${existing ? "changed" : "added"}${
      config.currentContext === name ? " (current)" : ""
    }`,
  );
  return EXIT_OK;
}

async function useContext({ positionals }: ParsedArgs): Promise<number> {
  const name = onePositional(
    positionals,
    "a context name",
    "config use-context NAME",
  );
  const config = await loadConfig();
  if (!config.contexts.some((c) => c.name === name)) {
    throw noContext(config, name, EXIT_API_ERROR);
  }
  config.currentContext = name;
  await saveConfig(config);
  console.log(`now using context ${JSON.stringify(name)}`);
  return EXIT_OK;
}

async function getContexts({ positionals }: ParsedArgs): Promise<number> {
  noPositionals(positionals, "config get-contexts");
  const config = await loadConfig();
  if (config.contexts.length === 0) {
    console.error(
      `No contexts in ${configPath()}: add one with corral config set-context`,
    );
    return EXIT_OK;
  }
  write(formatTable(
    ["CURRENT", "NAME", "SERVER", "NAMESPACE", "TOKEN"],
    config.contexts.map((c) => [
      c.name === config.currentContext ? "*" : "",
      c.name,
      c.server,
      c.namespace ?? "",
      c.token ? "set" : c.signIn ? "signed in" : "",
    ]),
  ));
  return EXIT_OK;
}

async function currentContext({ positionals }: ParsedArgs): Promise<number> {
  noPositionals(positionals, "config current-context");
  const config = await loadConfig();
  if (!config.currentContext) {
    throw new CliError("no current context is set", EXIT_API_ERROR, [
      "  set one with: corral config use-context NAME",
    ]);
  }
  console.log(config.currentContext);
  return EXIT_OK;
}

export const CONFIG: CommandGroup = {
  name: "config",
  summary: "manage contexts: the servers corral talks to, and as whom",
  commands: [
    {
      name: "set-context",
      summary: "add a context, or change the fields given of one",
      usage: SET_USAGE,
      flags: {
        ca: {
          type: "string",
          value: "FILE",
          help: "PEM file of the CA that signed the server's certificate",
        },
      },
      examples: [
        "corral config set-context prod --server https://corral.example.com --token $TOKEN --namespace team-a",
      ],
      run: setContext,
    },
    {
      name: "use-context",
      summary: "make a context the current one",
      usage: "config use-context NAME",
      flags: {},
      run: useContext,
    },
    {
      name: "get-contexts",
      summary: "list the contexts",
      usage: "config get-contexts",
      flags: {},
      run: getContexts,
    },
    {
      name: "current-context",
      summary: "print the current context's name",
      usage: "config current-context",
      flags: {},
      run: currentContext,
    },
  ],
};
