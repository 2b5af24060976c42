/**
 * GET /apis/v1alpha2/whoami answers the caller's own user and groups, from
 * the authentication chain every call goes through, and the API's 401 to a
 * caller it does not recognise (never someone else's identity).
 */
import assert from "node:assert/strict";
import { whoamiUnit } from "../../api/whoami.ts";
import { unitRouter } from "../unit_router.ts";
import { bearer, BOB, fileAccess } from "./auth/access_fixtures.ts";

Deno.test("whoami answers the caller's user and groups, and 401 without valid credentials", async (t) => {
  const files = await fileAccess();
  try {
    const page = await unitRouter([whoamiUnit()], { access: files.access });
    const ask = (authorization?: string) =>
      page(
        new Request("http://corral.test/apis/v1alpha2/whoami", {
          headers: authorization ? { authorization } : {},
        }),
      );

    await t.step("a known token: its user and groups", async () => {
      const response = await ask(bearer(BOB));
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("cache-control"), "no-store");
      assert.deepEqual(await response.json(), {
        user: "bob",
        groups: ["team-b", "system:authenticated"],
      });
    });

    for (
      const [name, authorization] of [
        ["no credentials", undefined],
        ["an unknown token", "Bearer unknown-0123456789abcdef0123456789abcdef"],
        ["a Basic header", "Basic YWxpY2U6c2VjcmV0"],
      ] as const
    ) {
      await t.step(`${name}: 401 with the API's error body`, async () => {
        const response = await ask(authorization);
        assert.equal(response.status, 401);
        const body = await response.json();
        assert.equal(body.code, 16, JSON.stringify(body));
        assert.equal(body.user, undefined);
      });
    }
  } finally {
    await files.close();
  }
});
