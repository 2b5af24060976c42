/**
 * The command line's config file and how a command finds its server:
 * named contexts as in a kubeconfig, kept in `$CORRAL_CONFIG` or
 * `~/.config/corral/config.yaml`, and the connection a command uses, each
 * part taken from its flag, else its environment variable, else the
 * context.
 */
import { dirname } from "node:path";
import { parse, stringify } from "yaml";
import { type ParsedArgs, stringFlag } from "./args.ts";
import { CliError, EXIT_USAGE, UsageError } from "./errors.ts";
import { currentIdToken, type KeptSignIn } from "./sso_tokens.ts";

/** One named server with what to send it. */
export interface Context {
  name: string;
  server: string;
  token?: string;
  /** Path of a PEM file of the CA that signed the server's certificate. */
  certificateAuthority?: string;
  /** Path of a PEM client certificate, for a Corral that verifies them. */
  clientCertificate?: string;
  /** Path of the PEM private key of clientCertificate. */
  clientKey?: string;
  namespace?: string;
  /**
   * What `corral login` got from the OIDC issuer: the ID token sent in
   * place of `token`, and the refresh token that renews it.
   */
  signIn?: KeptSignIn;
}

export interface Config {
  currentContext?: string;
  contexts: Context[];
}

/** What `deno task dev` serves. */
export const DEFAULT_SERVER = "http://127.0.0.1:8888";
export const DEFAULT_NAMESPACE = "default";

/** Where the config file is: $CORRAL_CONFIG, else under the home directory. */
export function configPath(): string {
  const explicit = Deno.env.get("CORRAL_CONFIG");
  if (explicit) return explicit;
  const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE");
  if (!home) {
    throw new UsageError(
      "cannot find the config file: set HOME or CORRAL_CONFIG",
    );
  }
  return `${home}/.config/corral/config.yaml`;
}

/** The config file's contents; an absent file is an empty config. */
export async function loadConfig(path = configPath()): Promise<Config> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { contexts: [] };
    throw new CliError(
      `cannot read config file ${path}: ${(error as Error).message}`,
      EXIT_USAGE,
    );
  }
  let parsed: unknown;
  try {
    parsed = parse(text) ?? {};
  } catch (error) {
    throw new CliError(
      `config file ${path} is not YAML: ${(error as Error).message}`,
      EXIT_USAGE,
    );
  }
  return checkConfig(parsed, path);
}

/** The parsed file as a Config, or a usage error saying what is wrong. */
function checkConfig(parsed: unknown, path: string): Config {
  const problem = (what: string) =>
    new CliError(`config file ${path}: ${what}`, EXIT_USAGE);
  if (typeof parsed !== "object" || parsed === null) {
    throw problem("is not a mapping");
  }
  const { currentContext, contexts = [] } = parsed as Record<string, unknown>;
  if (currentContext !== undefined && typeof currentContext !== "string") {
    throw problem("currentContext is not a string");
  }
  if (!Array.isArray(contexts)) throw problem("contexts is not a list");
  contexts.forEach((context, i) => {
    if (
      typeof context !== "object" || context === null ||
      typeof context.name !== "string" || typeof context.server !== "string"
    ) {
      throw problem(`contexts[${i}] needs a name and a server`);
    }
  });
  return { currentContext, contexts: contexts as Context[] };
}

/**
 * Writes the config file, readable by its owner only since it may hold
 * tokens, creating its directory.
 */
export async function saveConfig(
  config: Config,
  path = configPath(),
): Promise<void> {
  await Deno.mkdir(dirname(path), { recursive: true });
  const text = stringify({
    ...(config.currentContext ? { currentContext: config.currentContext } : {}),
    contexts: config.contexts,
  });
  await Deno.writeTextFile(path, text, { mode: 0o600 });
}

/** Where a command sends its requests and as whom. */
export interface Connection {
  server: string;
  /**
   * Where `server` was named, for the hint of a server that does not
   * answer: "--server", "CORRAL_SERVER", `context "NAME"`, or "the
   * default" (DEFAULT_SERVER).
   */
  serverFrom?: string;
  token?: string;
  /** The CA file's path, when the server's certificate needs one. */
  certificateAuthority?: string;
  /** The client certificate and key files' paths: both or neither. */
  clientCertificate?: string;
  clientKey?: string;
  namespace: string;
}

/** The config, and the context a command uses (--context, else current). */
export async function selectContext(
  values: ParsedArgs["values"],
): Promise<{ config: Config; context?: Context }> {
  const config = await loadConfig();
  const contextName = stringFlag(values, "context") ?? config.currentContext;
  let context: Context | undefined;
  if (contextName !== undefined) {
    context = config.contexts.find((c) => c.name === contextName);
    if (!context) throw noContext(config, contextName, EXIT_USAGE);
  }
  return { config, context };
}

/**
 * The connection of a command: flag, else environment, else the context
 * (--context, else the config's current context), else the defaults. The
 * context's token is the ID token of its sign-in, refreshed when it is
 * about to expire (sso_tokens.ts), else its static token; `signIn: false`
 * sends none of the context's (corral login, which is getting one).
 */
export async function resolveConnection(
  values: ParsedArgs["values"],
  options: { signIn?: boolean } = {},
): Promise<Connection> {
  const { config, context } = await selectContext(values);
  const env = (name: string) => Deno.env.get(name) || undefined;
  const caFlag = stringFlag(values, "certificate-authority");
  const explicitToken = stringFlag(values, "token") ?? env("CORRAL_TOKEN");
  const signIn = options.signIn ?? true;
  const [server, serverFrom] = serverOf(values, context);
  return {
    server,
    serverFrom,
    token: explicitToken ??
      (!signIn ? undefined : context?.signIn
        ? await currentIdToken(
          context.signIn,
          context.name,
          async (refreshed) => {
            context.signIn = refreshed;
            await saveConfig(config);
          },
        )
        : context?.token),
    certificateAuthority: caFlag ?? env("CORRAL_CA") ??
      context?.certificateAuthority,
    clientCertificate: stringFlag(values, "client-certificate") ??
      env("CORRAL_CLIENT_CERT") ?? context?.clientCertificate,
    clientKey: stringFlag(values, "client-key") ?? env("CORRAL_CLIENT_KEY") ??
      context?.clientKey,
    namespace: stringFlag(values, "namespace") ?? env("CORRAL_NAMESPACE") ??
      context?.namespace ?? DEFAULT_NAMESPACE,
  };
}

/**
 * The server a command talks to, and where it was named: --server, else
 * CORRAL_SERVER, else the context's, else the default.
 */
function serverOf(
  values: ParsedArgs["values"],
  context: Context | undefined,
): [string, string] {
  const flag = stringFlag(values, "server");
  if (flag !== undefined) return [flag, "--server"];
  const variable = Deno.env.get("CORRAL_SERVER");
  if (variable) return [variable, "CORRAL_SERVER"];
  if (context?.server) {
    return [context.server, `context ${JSON.stringify(context.name)}`];
  }
  return [DEFAULT_SERVER, "the default"];
}

/**
 * A context name `config` does not have, with the names it has: a usage
 * error for --context, an error of its own for `config use-context`.
 */
export function noContext(
  config: Config,
  name: string,
  exitCode: number,
): CliError {
  return new CliError(`no context named ${JSON.stringify(name)}`, exitCode, [
    `  contexts: ${config.contexts.map((c) => c.name).join(", ") || "(none)"}`,
  ]);
}
