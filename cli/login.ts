/**
 * `corral login` and `corral logout`: single sign-on with the OIDC issuer
 * the server names at /apis/v1alpha2/auth-config (issue 38). Login signs
 * in with the device authorization grant when the issuer offers it
 * (device_flow.ts), else, or with --browser, with the authorization code
 * and PKCE on a loopback redirect (browser_flow.ts); it checks the new ID
 * token with the server (whoami) and keeps it, with its refresh token, in
 * the context, which later commands then send and refresh
 * (sso_tokens.ts). Logout forgets them.
 */
import { resolve } from "node:path";
import {
  noPositionals,
  type ParsedArgs,
  stringFlag,
  wholeNumber,
} from "./args.ts";
import { browserSignIn } from "./browser_flow.ts";
import { connect } from "./client.ts";
import type { Command } from "./command.ts";
import {
  type Config,
  type Connection,
  type Context,
  DEFAULT_SERVER,
  resolveConnection,
  saveConfig,
  selectContext,
} from "./config.ts";
import { deviceSignIn } from "./device_flow.ts";
import { CliError, EXIT_API_ERROR, EXIT_OK, UsageError } from "./errors.ts";
import {
  discoverIssuer,
  type Issuer,
  issuerClient,
  type SignInConfig,
  type Tokens,
} from "./oidc.ts";
import { type KeptSignIn, keptSignIn } from "./sso_tokens.ts";

/** api/auth_config.ts's path. */
const AUTH_CONFIG_PATH = "/apis/v1alpha2/auth-config";
const WHOAMI_PATH = "/apis/v1alpha2/whoami";
/** The context login makes when none is chosen and none is current. */
const NEW_CONTEXT = "default";

async function login({ values, positionals }: ParsedArgs): Promise<number> {
  noPositionals(positionals, "login [--browser]");
  const port = wholeNumber(values, "callback-port") ?? 0;
  if (port > 65535) {
    throw new UsageError(`--callback-port ${port} is not a port`);
  }
  const { config, context } = await selectContext(values);
  const connection = await resolveConnection(values, { signIn: false });
  checkKeptWithItsServer(connection, keptIn(config, context));
  const signIn = await signInConfig(connection);
  const caFlag = stringFlag(values, "issuer-certificate-authority");
  const certificateAuthority = caFlag === undefined
    ? context?.signIn?.issuerUrl === signIn.issuerUrl
      ? context.signIn.issuerCertificateAuthority
      : undefined
    : resolve(caFlag);
  const http = await issuerClient(certificateAuthority);
  let tokens: Tokens;
  try {
    const issuer: Issuer = { url: signIn.issuerUrl, http };
    const metadata = await discoverIssuer(issuer);
    const print = (line: string) => console.log(line);
    const browser = values.browser === true ||
      !metadata.device_authorization_endpoint;
    tokens = browser
      ? await browserSignIn(issuer, metadata, signIn, print, port)
      : await deviceSignIn(issuer, metadata, signIn, print);
  } finally {
    http?.close();
  }
  const kept = keptSignIn(
    { url: signIn.issuerUrl, certificateAuthority },
    signIn.clientId,
    tokens,
  );
  const user = await whoami({ ...connection, token: kept.idToken });
  const name = keep(config, context, connection.server, kept);
  await saveConfig(config);
  console.log(
    `Signed in to ${connection.server} as ${user} (context ${
      JSON.stringify(name)
    })`,
  );
  return EXIT_OK;
}

/** What the server says of its issuer; an error when it has none. */
async function signInConfig(
  connection: Connection,
): Promise<SignInConfig> {
  const client = await connect(connection);
  try {
    const answer = await client.call<{ oidc: SignInConfig | null }>(
      "GET",
      AUTH_CONFIG_PATH,
    );
    if (!answer.oidc) {
      throw new CliError(
        `${connection.server} has no single sign-on configured`,
        EXIT_API_ERROR,
        [
          "  ask its operators for a token, and keep it with: corral config set-context NAME --token TOKEN",
        ],
      );
    }
    return answer.oidc;
  } finally {
    client.close();
  }
}

/** Who the server takes the new token's bearer to be. */
async function whoami(
  connection: Connection,
): Promise<string> {
  const client = await connect(connection);
  try {
    const { user } = await client.call<{ user: string }>("GET", WHOAMI_PATH);
    return user;
  } finally {
    client.close();
  }
}

/**
 * The context a sign-in is kept in: the chosen one (--context, else the
 * current), else the one login made before; undefined when login is to
 * make it.
 */
function keptIn(
  config: Config,
  context: Context | undefined,
): Context | undefined {
  return context ?? config.contexts.find((c) => c.name === NEW_CONTEXT);
}

/**
 * Refuses to sign in to a server named by --server or CORRAL_SERVER that
 * is not the server of the context the sign-in would be kept in: that
 * context's commands would send one server's token to another.
 */
function checkKeptWithItsServer(
  connection: Connection,
  target: Context | undefined,
) {
  const { server, serverFrom } = connection;
  if (serverFrom !== "--server" && serverFrom !== "CORRAL_SERVER") return;
  const targetServer = target && (target.server || DEFAULT_SERVER);
  if (!target || targetServer === server) return;
  throw new UsageError(
    `${server} (from ${serverFrom}) is not the server of context ${
      JSON.stringify(target.name)
    } (${targetServer}), where the sign-in would be kept`,
    [
      `  sign in to a context of ${server} with: corral login --context NAME`,
      `  or set one up with: corral config set-context NAME --server ${server}`,
    ],
  );
}

/**
 * Keeps `signIn` in `context`, in place of its static token; without a
 * context, in a new one of `server`, made current. Its name.
 */
function keep(
  config: Config,
  context: Context | undefined,
  server: string,
  signIn: KeptSignIn,
): string {
  let target = keptIn(config, context);
  if (!target) {
    target = { name: NEW_CONTEXT, server };
    config.contexts.push(target);
  }
  delete target.token;
  target.signIn = signIn;
  config.currentContext ??= target.name;
  return target.name;
}

async function logout({ values, positionals }: ParsedArgs): Promise<number> {
  noPositionals(positionals, "logout");
  const { config, context } = await selectContext(values);
  if (!context?.signIn) {
    console.log(
      context
        ? `context ${JSON.stringify(context.name)} is not signed in`
        : "no context is signed in",
    );
    return EXIT_OK;
  }
  delete context.signIn;
  await saveConfig(config);
  console.log(`Signed out of context ${JSON.stringify(context.name)}`);
  return EXIT_OK;
}

export const LOGIN: Command = {
  name: "login",
  summary: "sign in with the server's single sign-on (OIDC)",
  usage:
    "login [--browser [--callback-port N]] [--issuer-certificate-authority FILE]",
  flags: {
    browser: {
      type: "boolean",
      help:
        "sign in in a browser on this machine (authorization code with PKCE on a 127.0.0.1 redirect) rather than with a code (device grant)",
    },
    "callback-port": {
      type: "string",
      value: "N",
      help:
        "with --browser: the port of the 127.0.0.1 redirect, for an issuer that allows only the one registered (default: any free port)",
    },
    "issuer-certificate-authority": {
      type: "string",
      value: "FILE",
      help:
        "PEM file of the CA that signed the OIDC issuer's certificate, when the system does not trust it",
    },
  },
  examples: [
    "corral login --server https://corral.example.com",
    "corral login --browser",
  ],
  run: login,
};

export const LOGOUT: Command = {
  name: "logout",
  summary: "forget the context's single sign-on tokens",
  usage: "logout",
  flags: {},
  run: logout,
};
