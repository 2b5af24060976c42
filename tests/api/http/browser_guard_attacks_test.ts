/**
 * What browsers may not do with Corral on someone else's behalf: bodies
 * that are not application/json (415 before the chain), Host headers not
 * allowed (421), writes from other origins (403), and CORS for the listed
 * origins only. Each refusal is tried as the attack would send it, and
 * nothing is created.
 */
import assert from "node:assert/strict";
import {
  type BrowserGuardOptions,
  guardBrowsers,
} from "../../../api/http/browser_guard.ts";
import { createHttpApp, type Router } from "../../../api/http/router.ts";
import { livenessPage } from "../../../api/health.ts";
import { type Corral, startCorral } from "../../harness.ts";
import { bearer, fileAccess, ROOT } from "../auth/access_fixtures.ts";
import { NS } from "../cases.ts";

const TEMPLATES = `/apis/v1/namespaces/${NS}/compute_templates`;
const TEMPLATE = JSON.stringify({ name: "small", cpu: 1, memory: 1 });
const JSON_TYPE = { "content-type": "application/json" };
const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];

/** Corral with a token file (no policy), its HTTP app behind the guard. */
async function withGuarded(
  options: Partial<BrowserGuardOptions>,
  run: (app: Router, corral: Corral) => Promise<void>,
): Promise<void> {
  const files = await fileAccess({ noPolicy: true });
  const corral = await startCorral({ access: files.access });
  try {
    const app = guardBrowsers(
      createHttpApp({
        gateway: corral.gateway,
        pages: { "/healthz": livenessPage },
      }),
      { allowedHosts: ["*"], corsAllowedOrigins: [], ...options },
    );
    await run(app, corral);
  } finally {
    await corral.close();
    await files.close();
  }
}

function request(
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
): Request {
  return new Request(`http://corral.test${path}`, init);
}

/** The names of the templates in NS, as the API lists them. */
async function templates(app: Router): Promise<string[]> {
  const response = await app(request(TEMPLATES, {
    headers: { authorization: bearer(ROOT), host: "localhost" },
  }));
  assert.equal(response.status, 200);
  const body = await response.json();
  return body.computeTemplates.map((t: { name: string }) => t.name);
}

async function refusal(
  response: Response,
): Promise<[number, number, string]> {
  const body = await response.json();
  return [response.status, body.code, body.message];
}

Deno.test("the gateway refuses a body that is not application/json with 415 code 3, before authentication", async (t) => {
  await withGuarded({}, async (app) => {
    const refused: [string, Record<string, string>][] = [
      ["text/plain (fetch no-cors)", { "content-type": "text/plain" }],
      ["a form", { "content-type": "application/x-www-form-urlencoded" }],
      ["multipart", { "content-type": "multipart/form-data; boundary=x" }],
      ["a +json patch type", {
        "content-type": "application/merge-patch+json",
      }],
      ["JSON in another charset", {
        "content-type": "application/json; charset=iso-8859-1",
      }],
      ["no type, a length", { "content-length": String(TEMPLATE.length) }],
    ];
    for (const [name, headers] of refused) {
      await t.step(name, async () => {
        // No credentials: a chain that ran would answer 401.
        const [status, code, message] = await refusal(
          await app(request(TEMPLATES, {
            method: "POST",
            headers,
            body: TEMPLATE,
          })),
        );
        assert.deepEqual([status, code], [415, 3], message);
        assert.match(
          message,
          /^Cannot read request body: (its Content-Type ".*" is not application\/json|it has no Content-Type); send it as application\/json$/,
        );
      });
    }
    await t.step("with credentials too; nothing is created", async () => {
      const response = await app(request(TEMPLATES, {
        method: "POST",
        headers: { "content-type": "text/plain", authorization: bearer(ROOT) },
        body: TEMPLATE,
      }));
      assert.equal(response.status, 415);
      await response.body?.cancel();
      assert.deepEqual(await templates(app), []);
    });
    await t.step(
      "application/json, with or without charset utf-8",
      async () => {
        for (
          const type of ["application/json", "Application/JSON; charset=UTF-8"]
        ) {
          const response = await app(request(TEMPLATES, {
            method: "POST",
            headers: { "content-type": type, authorization: bearer(ROOT) },
            body: TEMPLATE,
          }));
          assert.notEqual(response.status, 415, await response.text());
        }
        const remove = await app(request(`${TEMPLATES}/small`, {
          method: "DELETE",
          headers: { authorization: bearer(ROOT) },
        }));
        assert.equal(
          remove.status,
          200,
          "a DELETE without a body needs no type",
        );
        await remove.body?.cancel();
      },
    );
  });
});

Deno.test("Host headers not in --allowed-hosts get 421 code 3; the probes answer any Host", async (t) => {
  await withGuarded({ allowedHosts: LOOPBACK }, async (app) => {
    const cases: [string, string | undefined, number][] = [
      ["a rebinding name", "attacker.example:8888", 421],
      ["a name ending like a loopback address", "127.0.0.1.nip.io", 421],
      ["no Host", undefined, 421],
      ["localhost with its port", "localhost:8888", 200],
      ["localhost in capitals", "LOCALHOST", 200],
      ["the IPv6 loopback", "[::1]:8888", 200],
      ["the IPv4 loopback", "127.0.0.1:8888", 200],
    ];
    for (const [name, host, status] of cases) {
      await t.step(name, async () => {
        const response = await app(request(TEMPLATES, {
          headers: {
            authorization: bearer(ROOT),
            ...(host === undefined ? {} : { host }),
          },
        }));
        const body = await response.json();
        assert.equal(response.status, status, JSON.stringify(body));
        if (status === 421) {
          assert.equal(body.code, 3);
          assert.match(
            body.message,
            /^Refused request.*--allowed-hosts/,
          );
        }
      });
    }
    await t.step("a write under a rebinding name creates nothing", async () => {
      const response = await app(request(TEMPLATES, {
        method: "POST",
        headers: {
          ...JSON_TYPE,
          authorization: bearer(ROOT),
          host: "attacker.example",
        },
        body: TEMPLATE,
      }));
      assert.equal(response.status, 421);
      await response.body?.cancel();
      assert.deepEqual(await templates(app), []);
    });
    await t.step("/healthz from kubelet, by the pod's address", async () => {
      const response = await app(request("/healthz", {
        headers: { host: "10.244.1.17:8888" },
      }));
      assert.equal(response.status, 200);
      await response.body?.cancel();
    });
  });
});

const EVIL = "http://evil.example";
const CONSOLE = "https://console.example.com";

Deno.test("writes from another origin get 403 code 7 and create nothing; Corral's own and listed origins write", async (t) => {
  await withGuarded({ corsAllowedOrigins: [CONSOLE] }, async (app) => {
    const write = (headers: Record<string, string>, method = "POST") =>
      app(request(method === "POST" ? TEMPLATES : `${TEMPLATES}/small`, {
        method,
        headers: {
          ...JSON_TYPE,
          authorization: bearer(ROOT),
          host: "localhost:8888",
          ...headers,
        },
        ...(method === "POST" ? { body: TEMPLATE } : {}),
      }));
    const refused: [string, Record<string, string>, string?][] = [
      ["another site's page", { origin: EVIL }],
      ["a sandboxed frame or a file (Origin: null)", { origin: "null" }],
      ["another port of the same host", { origin: "http://localhost:9999" }],
      ["the browser says cross-site", { "sec-fetch-site": "cross-site" }],
      ["a DELETE from another site", { origin: EVIL }, "DELETE"],
      ["a PUT from another site", { origin: EVIL }, "PUT"],
    ];
    for (const [name, headers, method] of refused) {
      await t.step(name, async () => {
        const [status, code, message] = await refusal(
          await write(headers, method),
        );
        assert.deepEqual([status, code], [403, 7], message);
        assert.match(message, /^Refused cross-(origin|site) request/);
      });
    }
    assert.deepEqual(await templates(app), []);
    await t.step("Corral's own origin (the console) writes", async () => {
      const response = await write({
        origin: "http://localhost:8888",
        "sec-fetch-site": "same-origin",
      });
      assert.equal(response.status, 200, await response.text());
      assert.equal(response.headers.get("access-control-allow-origin"), null);
    });
    await t.step(
      "a listed origin writes, and may read the answer",
      async () => {
        const response = await write(
          { origin: CONSOLE, "sec-fetch-site": "cross-site" },
          "DELETE",
        );
        assert.equal(response.status, 200, await response.text());
        assert.equal(
          response.headers.get("access-control-allow-origin"),
          CONSOLE,
        );
        assert.match(response.headers.get("vary") ?? "", /Origin/);
        assert.equal(
          response.headers.get("access-control-allow-credentials"),
          null,
        );
      },
    );
    await t.step("a client that is no browser sends no Origin", async () => {
      const response = await write({});
      assert.equal(response.status, 200, await response.text());
    });
    await t.step(
      "reads from another origin are served, unreadable",
      async () => {
        const response = await app(request(TEMPLATES, {
          headers: {
            authorization: bearer(ROOT),
            host: "localhost:8888",
            origin: EVIL,
          },
        }));
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("access-control-allow-origin"), null);
        await response.body?.cancel();
      },
    );
  });
});

Deno.test("with TLS, Corral's own origin is https only", async () => {
  await withGuarded({ secure: true }, async (app) => {
    const write = (origin: string) =>
      app(request(TEMPLATES, {
        method: "POST",
        headers: {
          ...JSON_TYPE,
          authorization: bearer(ROOT),
          host: "corral.example.com",
          origin,
        },
        body: TEMPLATE,
      }));
    const plain = await write("http://corral.example.com:443");
    assert.equal(plain.status, 403, await plain.text());
    const secure = await write("https://corral.example.com");
    assert.equal(secure.status, 200, await secure.text());
  });
});

Deno.test("a listed origin's preflight gets 204 with the path's methods; another origin's gets 403", async () => {
  await withGuarded({ corsAllowedOrigins: [CONSOLE] }, async (app) => {
    const preflight = (origin: string) =>
      app(request(`${TEMPLATES}/small`, {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "DELETE",
          "access-control-request-headers": "authorization,content-type",
        },
      }));
    const listed = await preflight(CONSOLE);
    assert.equal(listed.status, 204);
    assert.deepEqual(
      Object.fromEntries(
        [...listed.headers].filter(([name]) => name.startsWith("access-")),
      ),
      {
        "access-control-allow-origin": CONSOLE,
        "access-control-allow-methods": "GET, HEAD, DELETE",
        "access-control-allow-headers":
          "Authorization, Content-Type, X-Request-Id",
        "access-control-max-age": "600",
      },
    );
    const other = await preflight(EVIL);
    assert.deepEqual((await refusal(other)).slice(0, 2), [403, 7]);
    const plain = await app(request(TEMPLATES, { method: "OPTIONS" }));
    assert.equal(plain.status, 405, "OPTIONS without Origin: as before");
    await plain.body?.cancel();
  });
});
