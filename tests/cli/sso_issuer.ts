/**
 * An OIDC issuer that signs users in, for the tests of `corral login` and
 * the console's sign-in: HTTPS on 127.0.0.1:0 with its own CA
 * (test_issuer.ts's), serving discovery, its keys, the device
 * authorization endpoint (RFC 8628), an authorize endpoint that redirects
 * at once with a code for `user`, as a browser whose user is signed in
 * there sees it, and the token endpoint's device_code,
 * authorization_code (PKCE S256 checked, RFC 7636) and refresh_token
 * grants. The test plays the user who approves or denies a device code
 * (`approve`, `deny`).
 */
import {
  makeSigningKey,
  makeTestCa,
  sign,
  type SigningKey,
  type TestCa,
} from "../api/auth/test_issuer.ts";

export const SSO_CLIENT_ID = "corral";

/** A device code's fate, as the user decides it. */
type DeviceState = "pending" | "approved" | "denied";

export interface SsoIssuer {
  /** https://127.0.0.1:PORT */
  url: string;
  ca: TestCa;
  key: SigningKey;
  /** Whose tokens it grants: `sub`, and `groups`. */
  user: { sub: string; email: string; groups: string[] };
  /** The `interval` it tells device clients, in seconds; none if < 0. */
  interval: number;
  /** The `expires_in` of its device codes, in seconds. */
  expiresIn: number;
  /**
   * OAuth errors the token endpoint answers device code polls with, one
   * each, before it answers as the code's user decided.
   */
  deviceAnswers: string[];
  /**
   * The `exp` of the next ID token it grants, in seconds since the epoch;
   * ten minutes from the grant when unset. Cleared once used.
   */
  nextExp?: number;
  /**
   * Origins whose pages may read its answers (CORS), as an issuer lists
   * the console's: discovery and the token endpoint are called from there.
   */
  corsOrigins: string[];
  /** Token requests by grant type, and other requests by path. */
  counts: Record<string, number>;
  /** The device codes' user codes, in the order asked for. */
  userCodes: string[];
  /** Approves (or denies) the device code of `userCode`, as its user. */
  approve(userCode: string): void;
  deny(userCode: string): void;
  /** A signed ID token of `user` with these claims over the usual ones. */
  idToken(claims?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

interface CodeGrant {
  challenge: string;
  redirectUri: string;
  clientId: string;
}

/** Starts the issuer. */
export async function startSsoIssuer(): Promise<SsoIssuer> {
  const ca = await makeTestCa("Corral SSO test CA");
  const key = await makeSigningKey("ES256", "sso-1");
  const devices = new Map<string, { userCode: string; state: DeviceState }>();
  const codes = new Map<string, CodeGrant>();
  const refreshTokens = new Set<string>();
  const issuer: SsoIssuer = {
    url: "",
    ca,
    key,
    user: { sub: "u-1", email: "ann@example.com", groups: ["ml-team"] },
    interval: 1,
    expiresIn: 300,
    deviceAnswers: [],
    corsOrigins: [],
    counts: {},
    userCodes: [],
    approve: (userCode) => decide(userCode, "approved"),
    deny: (userCode) => decide(userCode, "denied"),
    idToken: (claims = {}) => idToken(claims),
    close: () => server.shutdown(),
  };

  function decide(userCode: string, state: DeviceState): void {
    const device = [...devices.values()].find((d) => d.userCode === userCode);
    if (!device) throw new Error(`no device code of user code ${userCode}`);
    device.state = state;
  }

  function idToken(claims: Record<string, unknown>): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const exp = issuer.nextExp ?? now + 600;
    issuer.nextExp = undefined;
    return sign(key, {
      iss: issuer.url,
      aud: SSO_CLIENT_ID,
      iat: now,
      exp,
      ...issuer.user,
      ...claims,
    });
  }

  async function grant(): Promise<Response> {
    const refreshToken = random();
    refreshTokens.add(refreshToken);
    return Response.json({
      id_token: await idToken({}),
      access_token: random(),
      token_type: "Bearer",
      expires_in: 600,
      refresh_token: refreshToken,
    });
  }

  async function token(form: URLSearchParams): Promise<Response> {
    const type = form.get("grant_type") ?? "";
    issuer.counts[type] = (issuer.counts[type] ?? 0) + 1;
    if (form.get("client_id") !== SSO_CLIENT_ID) {
      return oauthError("invalid_client", 401);
    }
    if (type === "urn:ietf:params:oauth:grant-type:device_code") {
      const device = devices.get(form.get("device_code") ?? "");
      if (!device) return oauthError("invalid_grant");
      const scripted = issuer.deviceAnswers.shift();
      if (scripted) return oauthError(scripted);
      if (device.state === "pending") {
        return oauthError("authorization_pending");
      }
      devices.delete(form.get("device_code")!);
      return device.state === "denied"
        ? oauthError("access_denied")
        : await grant();
    }
    if (type === "authorization_code") {
      const code = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      if (
        !code || code.redirectUri !== form.get("redirect_uri") ||
        code.challenge !== await s256(form.get("code_verifier") ?? "")
      ) return oauthError("invalid_grant");
      return await grant();
    }
    if (type === "refresh_token") {
      // Rotated: each refresh token is good once.
      if (!refreshTokens.delete(form.get("refresh_token") ?? "")) {
        return oauthError("invalid_grant");
      }
      return await grant();
    }
    return oauthError("unsupported_grant_type");
  }

  function authorize(url: URL): Response {
    const q = url.searchParams;
    const redirectUri = q.get("redirect_uri") ?? "";
    if (
      q.get("client_id") !== SSO_CLIENT_ID ||
      q.get("response_type") !== "code" ||
      q.get("code_challenge_method") !== "S256" || !q.get("code_challenge") ||
      !/^http:\/\/127\.0\.0\.1:\d+\//.test(redirectUri) &&
        !redirectUri.startsWith("http://corral.test/")
    ) return new Response("bad authorization request", { status: 400 });
    const code = random();
    codes.set(code, {
      challenge: q.get("code_challenge")!,
      redirectUri,
      clientId: SSO_CLIENT_ID,
    });
    const back = new URL(redirectUri);
    back.searchParams.set("code", code);
    back.searchParams.set("state", q.get("state") ?? "");
    return new Response(null, {
      status: 302,
      headers: { location: back.href },
    });
  }

  function deviceAuthorization(form: URLSearchParams): Response {
    if (form.get("client_id") !== SSO_CLIENT_ID) {
      return oauthError("invalid_client", 401);
    }
    const deviceCode = random();
    const userCode = random().slice(0, 8).toUpperCase();
    devices.set(deviceCode, { userCode, state: "pending" });
    issuer.userCodes.push(userCode);
    return Response.json({
      device_code: deviceCode,
      user_code: userCode,
      verification_uri: `${issuer.url}/device`,
      verification_uri_complete: `${issuer.url}/device?user_code=${userCode}`,
      expires_in: issuer.expiresIn,
      ...(issuer.interval >= 0 ? { interval: issuer.interval } : {}),
    });
  }

  const { promise: listening, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: ca.serverCertPem,
    key: ca.serverKeyPem,
    onListen: ({ port }) => resolve(port),
    onError: () => new Response("error", { status: 500 }),
  }, async (request) => {
    const response = await serve(request);
    const origin = request.headers.get("origin");
    if (origin && issuer.corsOrigins.includes(origin)) {
      response.headers.set("access-control-allow-origin", origin);
    }
    return response;
  });
  issuer.url = `https://127.0.0.1:${await listening}`;
  return issuer;

  async function serve(request: Request): Promise<Response> {
    const url = new URL(request.url);
    issuer.counts[url.pathname] = (issuer.counts[url.pathname] ?? 0) + 1;
    switch (`${request.method} ${url.pathname}`) {
      case "GET /.well-known/openid-configuration":
        return Response.json(discovery(issuer.url));
      case "GET /keys":
        return Response.json({ keys: [key.publicJwk] });
      case "GET /authorize":
        return authorize(url);
      case "POST /device/code":
        return deviceAuthorization(
          new URLSearchParams(await request.text()),
        );
      case "POST /token":
        return await token(new URLSearchParams(await request.text()));
      default:
        return new Response("not found", { status: 404 });
    }
  }
}

function discovery(url: string) {
  return {
    issuer: url,
    jwks_uri: `${url}/keys`,
    authorization_endpoint: `${url}/authorize`,
    token_endpoint: `${url}/token`,
    device_authorization_endpoint: `${url}/device/code`,
    response_types_supported: ["code"],
    grant_types_supported: [
      "authorization_code",
      "refresh_token",
      "urn:ietf:params:oauth:grant-type:device_code",
    ],
    code_challenge_methods_supported: ["S256"],
    id_token_signing_alg_values_supported: ["ES256"],
  };
}

function oauthError(error: string, status = 400): Response {
  return Response.json({ error }, { status });
}

function random(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(24)));
}

async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(verifier),
  );
  return base64url(new Uint8Array(digest));
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-")
    .replaceAll("/", "_").replace(/=+$/, "");
}
