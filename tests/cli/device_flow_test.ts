/**
 * The device grant's polling (RFC 8628 section 3.5) against the test
 * issuer, in this process with a clock of the test's: every `interval`
 * seconds, five more after each slow_down, and the clear ends of a code
 * that expires or is denied.
 */
import assert from "node:assert/strict";
import { type Clock, deviceSignIn } from "../../cli/device_flow.ts";
import { CliError } from "../../cli/errors.ts";
import { discoverIssuer, type Issuer } from "../../cli/oidc.ts";
import { SSO_CLIENT_ID, startSsoIssuer } from "./sso_issuer.ts";

/** A clock whose sleeps return at once, recorded, and move time on. */
function testClock(): Clock & { sleeps: number[] } {
  let now = 1_000_000;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: (ms) => {
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
}

const CLIENT = { clientId: SSO_CLIENT_ID, scopes: ["openid", "groups"] };

async function signIn(
  issuer: Issuer,
  clock: Clock,
  onCode: (userCode: string) => void = () => {},
) {
  const metadata = await discoverIssuer(issuer);
  const lines: string[] = [];
  const tokens = await deviceSignIn(issuer, metadata, CLIENT, (line) => {
    lines.push(line);
    const code = /enter the code (\S+)/.exec(line)?.[1];
    if (code) onCode(code);
  }, clock);
  return { tokens, lines };
}

Deno.test("deviceSignIn() polls every interval, five seconds more after each slow_down, until approved", async (t) => {
  const sso = await startSsoIssuer();
  const http = Deno.createHttpClient({ caCerts: [sso.ca.certPem] });
  const issuer: Issuer = { url: sso.url, http };
  try {
    await t.step("pending, slow_down, pending, then granted", async () => {
      sso.interval = 2;
      sso.deviceAnswers = [
        "authorization_pending",
        "slow_down",
        "authorization_pending",
      ];
      const clock = testClock();
      const { tokens, lines } = await signIn(
        issuer,
        clock,
        (code) => sso.approve(code),
      );
      assert.deepEqual(clock.sleeps, [2000, 2000, 7000, 7000]);
      assert.ok(tokens.id_token && tokens.refresh_token);
      assert.match(
        lines[0],
        new RegExp(`^To sign in, open ${sso.url}/device$`),
      );
    });

    await t.step("no interval given: 5 seconds", async () => {
      sso.interval = -1; // the issuer says none
      const clock = testClock();
      await signIn(issuer, clock, (code) => sso.approve(code));
      assert.deepEqual(clock.sleeps, [5000]);
    });

    await t.step(
      "a code never approved: expired once expires_in is over",
      async () => {
        sso.interval = 2;
        sso.expiresIn = 5;
        const clock = testClock();
        await assert.rejects(signIn(issuer, clock), (error: CliError) => {
          assert.match(error.message, /^sign-in expired: .*corral login again/);
          return true;
        });
        assert.deepEqual(clock.sleeps, [2000, 2000, 2000]);
        sso.expiresIn = 300;
      },
    );

    await t.step("expired_token from the issuer: the same error", async () => {
      sso.deviceAnswers = ["expired_token"];
      await assert.rejects(
        signIn(issuer, testClock()),
        /sign-in expired/,
      );
    });

    await t.step("a denied code: sign-in denied", async () => {
      await assert.rejects(
        signIn(issuer, testClock(), (code) => sso.deny(code)),
        (error: CliError) => {
          assert.equal(error.exitCode, 1);
          assert.match(error.message, /^sign-in denied/);
          return true;
        },
      );
    });
  } finally {
    http.close();
    await sso.close();
  }
});
