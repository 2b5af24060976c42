/**
 * The TokenReview authenticator over client-node's AuthenticationV1Api and
 * a real HTTP server: the path, body and credentials on the wire, and a
 * review the server holds past the time limit, which the test reaches by
 * moving the clock once the server has the request (no real-time budget).
 */
import assert from "node:assert/strict";
import { AuthenticationV1Api, KubeConfig } from "@kubernetes/client-node";
import type { V1TokenReview } from "@kubernetes/client-node";
import { tokenReviewAuthenticator } from "../../../api/auth/token_review.ts";
import { ManualClock } from "../../manual_clock.ts";
import { recordingLogger } from "./helpers.ts";

const SA_TOKEN = "eyJhbGciOiJSUzI1NiJ9.service-account.signature";

Deno.test("tokenReviewAuthenticator() works over client-node's AuthenticationV1Api", async () => {
  const received: {
    path: string;
    body: V1TokenReview;
    authorization: string | null;
  }[] = [];
  // The slow review: the server tells when it has it, and answers only
  // once the test lets it (after the time limit has fired).
  const slowArrived = Promise.withResolvers<void>();
  const slowAnswer = Promise.withResolvers<void>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const body = await request.json() as V1TokenReview;
      received.push({
        path: new URL(request.url).pathname,
        body,
        authorization: request.headers.get("authorization"),
      });
      if (body.spec.token === "slow") {
        slowArrived.resolve();
        await slowAnswer.promise;
      }
      return Response.json({
        ...body,
        status: body.spec.token === SA_TOKEN
          ? {
            authenticated: true,
            user: { username: "dashboard", groups: ["g"] },
          }
          : { authenticated: false },
      }, { status: 201 });
    },
  );
  try {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{
        name: "c",
        server: `http://127.0.0.1:${server.addr.port}`,
        skipTLSVerify: true,
      }],
      users: [{ name: "corral", token: "corral-own-token" }],
      contexts: [{ name: "ctx", cluster: "c", user: "corral" }],
      currentContext: "ctx",
    });
    const clock = new ManualClock();
    const auth = tokenReviewAuthenticator({
      api: kubeConfig.makeApiClient(AuthenticationV1Api),
      timeoutMs: 200,
      timer: clock.timeoutSignal,
      log: recordingLogger(),
    });
    assert.deepEqual(await auth.authenticate(SA_TOKEN), {
      user: "dashboard",
      groups: ["g"],
      authenticator: "token-review",
    });
    assert.equal(await auth.authenticate("unknown"), undefined);
    const slow = auth.authenticate("slow");
    await slowArrived.promise;
    clock.advance(200);
    await assert.rejects(slow, /did not answer in time/);
    assert.deepEqual(
      received.map((r) => [r.path, r.body.spec.token, r.authorization]),
      [
        [
          "/apis/authentication.k8s.io/v1/tokenreviews",
          SA_TOKEN,
          "Bearer corral-own-token",
        ],
        [
          "/apis/authentication.k8s.io/v1/tokenreviews",
          "unknown",
          "Bearer corral-own-token",
        ],
        [
          "/apis/authentication.k8s.io/v1/tokenreviews",
          "slow",
          "Bearer corral-own-token",
        ],
      ],
    );
  } finally {
    slowAnswer.resolve();
    await server.shutdown();
  }
});
