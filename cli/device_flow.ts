/**
 * Signing in with the device authorization grant (RFC 8628): the issuer
 * gives a user code and a page to enter it on, which the user opens in
 * any browser, perhaps on another machine; meanwhile the command polls the
 * token endpoint, every `interval` seconds (5 unless the issuer says), 5
 * more after each `slow_down`, until the issuer grants tokens, answers
 * `access_denied` or `expired_token`, or the code's `expires_in` is over.
 */
import { CliError, EXIT_API_ERROR } from "./errors.ts";
import {
  type Issuer,
  type IssuerMetadata,
  OAuthError,
  postForm,
  type Tokens,
} from "./oidc.ts";

/** The device authorization endpoint's answer (RFC 8628 section 3.2). */
interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  interval?: number;
}

/** What the polling waits with: injected by tests, real time otherwise. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const REAL_TIME: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((wake) => setTimeout(wake, ms)),
};

/** RFC 8628's default interval, and what each slow_down adds, in seconds. */
const DEFAULT_INTERVAL = 5;
const SLOW_DOWN = 5;

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

/** Signs in with the device grant; the tokens granted. */
export async function deviceSignIn(
  issuer: Issuer,
  metadata: IssuerMetadata,
  client: { clientId: string; scopes: readonly string[] },
  print: (line: string) => void,
  clock: Clock = REAL_TIME,
): Promise<Tokens> {
  const endpoint = metadata.device_authorization_endpoint;
  if (!endpoint) {
    throw new CliError(
      `the OIDC issuer ${issuer.url} offers no device authorization: sign in with corral login --browser`,
      EXIT_API_ERROR,
    );
  }
  const device = await postForm<DeviceAuthorization>(issuer, endpoint, {
    client_id: client.clientId,
    scope: client.scopes.join(" "),
  });
  print(`To sign in, open ${device.verification_uri}`);
  print(`and enter the code ${device.user_code}`);
  if (device.verification_uri_complete) {
    print(`(or open ${device.verification_uri_complete})`);
  }
  print("Waiting for the sign-in to be approved...");
  return await pollToken(issuer, metadata.token_endpoint, {
    clientId: client.clientId,
    device,
    clock,
  });
}

/** Polls the token endpoint until it grants or refuses for good. */
async function pollToken(
  issuer: Issuer,
  tokenEndpoint: string,
  { clientId, device, clock }: {
    clientId: string;
    device: DeviceAuthorization;
    clock: Clock;
  },
): Promise<Tokens> {
  const deadline = clock.now() + device.expires_in * 1000;
  let interval = typeof device.interval === "number" && device.interval >= 0
    ? device.interval
    : DEFAULT_INTERVAL;
  for (;;) {
    await clock.sleep(interval * 1000);
    if (clock.now() >= deadline) throw expired();
    try {
      return await postForm<Tokens>(issuer, tokenEndpoint, {
        grant_type: DEVICE_GRANT,
        device_code: device.device_code,
        client_id: clientId,
      });
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      switch (error.code) {
        case "authorization_pending":
          continue;
        case "slow_down":
          interval += SLOW_DOWN;
          continue;
        case "expired_token":
          throw expired();
        case "access_denied":
          throw new CliError(
            "sign-in denied: the request was refused at the OIDC issuer",
            EXIT_API_ERROR,
          );
        default:
          throw new CliError(
            `sign-in failed at the OIDC issuer: ${error.message}`,
            EXIT_API_ERROR,
          );
      }
    }
  }
}

function expired(): CliError {
  return new CliError(
    "sign-in expired: the code was not approved in time; run corral login again",
    EXIT_API_ERROR,
  );
}
