/**
 * The console at /console: a page, a script and a stylesheet (api/console/),
 * read once at start-up and served from Corral's origin
 * alone. The page reaches nothing else (a strict Content-Security-Policy
 * holds it to that) and works air-gapped; it talks to Corral's API as any
 * client does, with the token a person pastes.
 *
 * The script and stylesheet are served under paths holding their hash, so
 * browsers keep them for good; the page itself is never cached. Answers are
 * Brotli- or gzip-compressed when the browser accepts it (http/assets.ts).
 */
import { assetHandler } from "./http/assets.ts";
import { contentHash } from "./http/content_hash.ts";
import type { PageHandler } from "./http/router.ts";

export const CONSOLE_PATH = "/console";

const SOURCE = new URL("./console/", import.meta.url);

/** Only Corral's origin; no inline script or style. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** One of the console's files: its path, type and bytes. */
export interface Asset {
  path: string;
  type: string;
  identity: Uint8Array;
}

function asset(path: string, type: string, text: string): Asset {
  return { path, type, identity: new TextEncoder().encode(text) };
}

/** The console's files, read. */
export async function loadConsole(): Promise<Asset[]> {
  const read = (name: string) => Deno.readTextFile(new URL(name, SOURCE));
  const [html, js, css] = await Promise.all([
    read("index.html"),
    read("console.js"),
    read("console.css"),
  ]);
  const jsPath = `${CONSOLE_PATH}/console-${await contentHash(js, 12)}.js`;
  const cssPath = `${CONSOLE_PATH}/console-${await contentHash(css, 12)}.css`;
  const page = html.replace("{{js}}", jsPath).replace("{{css}}", cssPath);
  return [
    asset(CONSOLE_PATH, "text/html; charset=utf-8", page),
    asset(jsPath, "text/javascript; charset=utf-8", js),
    asset(cssPath, "text/css; charset=utf-8", css),
  ];
}

/** The handlers of the console's paths. */
export function consolePages(assets: Asset[]): Record<string, PageHandler> {
  const pages: Record<string, PageHandler> = {};
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
          "content-security-policy": CONTENT_SECURITY_POLICY,
          "referrer-policy": "no-referrer",
        }
        : {}),
    });
    pages[file.path] = handler;
    if (isPage) pages[`${CONSOLE_PATH}/`] = handler;
  }
  return pages;
}
