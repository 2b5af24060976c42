/**
 * The path-only decoding of most reads (no body, no query string) makes
 * the message the full decoding makes, for every route it takes.
 */
import assert from "node:assert/strict";
import {
  decodeRequest,
  pathOnlyRequest,
} from "../../../api/http/request_decoding.ts";
import { compileRoutes } from "../../../api/http/rules.ts";
import { schema } from "../../schema.ts";

const OPTIONS = { maxBodyBytes: 1024, dropUnknown: false };

Deno.test("pathOnlyRequest() makes what decodeRequest() does of every route without a body, and leaves a query string or a body to it", async () => {
  const routes = compileRoutes((await schema()).services);
  let taken = 0;
  for (const route of routes) {
    const params = Object.fromEntries(
      route.segments.flatMap((segment) =>
        "variable" in segment
          ? [[segment.variable, `v-${segment.variable}`]]
          : []
      ),
    );
    const path = "http://corral.invalid" + route.template;
    const request = new Request(path, { method: route.verb });
    const plain = pathOnlyRequest(route, params, request);
    if (route.body) {
      assert.equal(plain, undefined, route.key);
      continue;
    }
    taken++;
    const { message } = await decodeRequest(route, params, request, OPTIONS);
    assert.deepEqual(plain, message, `${route.verb} ${route.template}`);
    const query = new Request(path + "?pageSize=1", { method: route.verb });
    assert.equal(pathOnlyRequest(route, params, query), undefined);
  }
  assert.ok(taken > 20, `${taken} routes without a body`);
});
