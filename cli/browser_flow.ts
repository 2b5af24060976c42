/**
 * Signing in in a browser: the authorization code flow with PKCE (RFC
 * 7636, S256) on a loopback redirect (RFC 8252 section 7.3). The command
 * listens on http://127.0.0.1:<a free port>/callback, prints the
 * issuer's authorization URL (and opens it when it may run xdg-open or
 * open), and takes the code the issuer redirects the browser back with,
 * only with the `state` it sent: anything else is refused, and ends the
 * sign-in, since a page that sends the browser there with another state
 * is trying to sign the user in as someone else. The code is exchanged
 * with the verifier only this process knows.
 */
import { CliError, EXIT_API_ERROR } from "./errors.ts";
import {
  base64url,
  type Issuer,
  type IssuerMetadata,
  postForm,
  type Tokens,
} from "./oidc.ts";

/** A PKCE verifier and its S256 challenge. */
export interface Pkce {
  verifier: string;
  challenge: string;
}

/** A new verifier of 32 random bytes (43 characters) and its challenge. */
export async function newPkce(): Promise<Pkce> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(verifier),
  );
  return { verifier, challenge: base64url(new Uint8Array(digest)) };
}

/** Signs in through the user's browser; the tokens granted. */
export async function browserSignIn(
  issuer: Issuer,
  metadata: IssuerMetadata,
  client: { clientId: string; scopes: readonly string[] },
  print: (line: string) => void,
  /** The loopback port; 0 (any free one) unless the issuer needs one. */
  port = 0,
): Promise<Tokens> {
  if (!metadata.authorization_endpoint) {
    throw new CliError(
      `the OIDC issuer ${issuer.url} has no authorization_endpoint`,
      EXIT_API_ERROR,
    );
  }
  const pkce = await newPkce();
  const state = base64url(crypto.getRandomValues(new Uint8Array(16)));
  const callback = listenForCode(state, port);
  try {
    const redirectUri = `http://127.0.0.1:${await callback.port}/callback`;
    const url = new URL(metadata.authorization_endpoint);
    for (
      const [name, value] of Object.entries({
        response_type: "code",
        client_id: client.clientId,
        redirect_uri: redirectUri,
        scope: client.scopes.join(" "),
        state,
        code_challenge: pkce.challenge,
        code_challenge_method: "S256",
      })
    ) url.searchParams.set(name, value);
    print("To sign in, open this URL in a browser on this machine:");
    print(`  ${url}`);
    await openBrowser(url.href);
    const code = await callback.code;
    return await postForm<Tokens>(issuer, metadata.token_endpoint, {
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      client_id: client.clientId,
      code_verifier: pkce.verifier,
    });
  } finally {
    await callback.close();
  }
}

/** The loopback listener: its port, and the code it is sent. */
interface Callback {
  port: Promise<number>;
  code: Promise<string>;
  close(): Promise<void>;
}

function listenForCode(state: string, wanted: number): Callback {
  const port = Promise.withResolvers<number>();
  const code = Promise.withResolvers<string>();
  // A refusal may come before anyone awaits it; it is awaited all the same.
  code.promise.catch(() => {});
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: wanted,
    onListen: (address) => port.resolve(address.port),
  }, (request) => {
    const url = new URL(request.url);
    if (url.pathname !== "/callback") {
      return new Response("Not found\n", { status: 404 });
    }
    const answer = callbackAnswer(url.searchParams, state);
    if (answer.code) code.resolve(answer.code);
    else code.reject(answer.error);
    return new Response(`${answer.page}\n`, {
      status: answer.code ? 200 : 400,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  });
  return {
    port: port.promise,
    code: code.promise,
    close: () => server.shutdown(),
  };
}

/** What one request to /callback brings: a code, or why not. */
function callbackAnswer(
  params: URLSearchParams,
  state: string,
): { code?: string; error?: CliError; page: string } {
  if (params.get("state") !== state) {
    return {
      error: new CliError(
        "sign-in refused: the browser came back with another state than corral sent (a forged or stale redirect)",
        EXIT_API_ERROR,
      ),
      page:
        "Sign-in refused: the state does not match. Run corral login again.",
    };
  }
  const error = params.get("error");
  const code = params.get("code");
  if (error || !code) {
    const why = error
      ? `${error}${
        params.get("error_description")
          ? `: ${params.get("error_description")}`
          : ""
      }`
      : "no code";
    return {
      error: new CliError(
        `sign-in failed at the OIDC issuer: ${why}`,
        EXIT_API_ERROR,
      ),
      page: `Sign-in failed: ${why}`,
    };
  }
  return { code, page: "Signed in to Corral. You may close this window." };
}

/**
 * Opens `url` with xdg-open or open, where this process may run them
 * (`deno task cli` does not grant it); the URL is printed either way.
 */
async function openBrowser(url: string): Promise<void> {
  const opener = Deno.build.os === "darwin" ? "open" : "xdg-open";
  const { state } = await Deno.permissions.query({
    name: "run",
    command: opener,
  });
  if (state !== "granted") return;
  try {
    const child = new Deno.Command(opener, {
      args: [url],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    await child.status;
  } catch {
    // no opener on this machine: the printed URL is enough
  }
}
