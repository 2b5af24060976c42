/**
 * The console at /console: a page, its modules and a stylesheet
 * (api/console/), read once at start-up and served from Corral's origin
 * alone. The page reaches nothing else (a strict Content-Security-Policy
 * holds it to that) and works air-gapped; it talks to Corral's API as any
 * client does, with the token a person pastes or gets from the OIDC issuer
 * ("Sign in with SSO"), whose origin alone the policy then lets it call
 * too (discovery and the token endpoint).
 *
 * The modules are served as they are, under a folder named by the hash of
 * them all (so their imports of each other, "./api.js", hold), and the
 * stylesheet under a path holding its hash: browsers keep them for good;
 * the page itself, which names them, is never cached. Answers are Brotli-
 * or gzip-compressed when the browser accepts it (http/assets.ts).
 */
import { assetHandler } from "./http/assets.ts";
import { contentHash } from "./http/content_hash.ts";
import type { PageHandler } from "./http/router.ts";

export const CONSOLE_PATH = "/console";

const SOURCE = new URL("./console/", import.meta.url);

/** The module the page runs, which imports the others. */
const ENTRY = "console.js";

/**
 * Only Corral's origin, and the issuer's for calls; no inline script or
 * style.
 */
function contentSecurityPolicy(connectOrigins: readonly string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    ["connect-src 'self'", ...connectOrigins].join(" "),
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** One of the console's files: its path, type and bytes. */
export interface Asset {
  path: string;
  type: string;
  identity: Uint8Array;
}

function asset(path: string, type: string, text: string): Asset {
  return { path, type, identity: new TextEncoder().encode(text) };
}

function read(name: string): Promise<string> {
  return Deno.readTextFile(new URL(name, SOURCE));
}

/** The console's modules (every .js file of api/console/), by name. */
async function readModules(): Promise<{ name: string; text: string }[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(SOURCE)) {
    if (entry.isFile && entry.name.endsWith(".js")) names.push(entry.name);
  }
  names.sort();
  return await Promise.all(
    names.map(async (name) => ({ name, text: await read(name) })),
  );
}

/**
 * The console's files, read: the page first, then the stylesheet and the
 * modules.
 */
export async function loadConsole(): Promise<Asset[]> {
  const [html, css, modules] = await Promise.all([
    read("index.html"),
    read("console.css"),
    readModules(),
  ]);
  const cssPath = `${CONSOLE_PATH}/console-${await contentHash(css, 12)}.css`;
  const everyModule = modules.map((m) => `${m.name}\n${m.text}`).join("\n");
  const folder = `${CONSOLE_PATH}/${await contentHash(everyModule, 12)}`;
  // The page asks for every module at once, not as each import is found.
  const preloads = modules.filter((m) => m.name !== ENTRY).map((m) =>
    `<link rel="modulepreload" href="${folder}/${m.name}">`
  ).join("\n    ");
  const page = html.replace("{{css}}", cssPath)
    .replace("{{js}}", `${folder}/${ENTRY}`)
    .replace("<!-- {{modulepreload}} -->", preloads);
  return [
    asset(CONSOLE_PATH, "text/html; charset=utf-8", page),
    asset(cssPath, "text/css; charset=utf-8", css),
    ...modules.map((m) =>
      asset(`${folder}/${m.name}`, "text/javascript; charset=utf-8", m.text)
    ),
  ];
}

/**
 * The handlers of the console's paths; the page may call `connectOrigins`
 * besides Corral (the OIDC issuer's, as "https://dex.example.com").
 */
export function consolePages(
  assets: Asset[],
  connectOrigins: readonly string[] = [],
): Record<string, PageHandler> {
  const pages: Record<string, PageHandler> = {};
  const policy = contentSecurityPolicy(connectOrigins);
  for (const file of assets) {
    const isPage = file.path === CONSOLE_PATH;
    const handler = assetHandler(file.identity, {
      "content-type": file.type,
      "cache-control": isPage
        ? "no-cache"
        : "public, max-age=31536000, immutable",
      "x-content-type-options": "nosniff",
      ...(isPage
        ? {
          "content-security-policy": policy,
          "referrer-policy": "no-referrer",
        }
        : {}),
    });
    pages[file.path] = handler;
    if (isPage) pages[`${CONSOLE_PATH}/`] = handler;
  }
  return pages;
}
