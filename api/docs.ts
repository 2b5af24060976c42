/**
 * Corral's own pages: the OpenAPI document (JSON and YAML) and the
 * interactive API reference, a Scalar page served entirely from Corral's
 * origin.
 *
 * - The standalone bundle is a copy in third_party/scalar (from the
 *   @scalar/api-reference package, tools/third_party.ts), read once at
 *   start-up.
 * - The page loads no font, script or style from anywhere else (a
 *   Content-Security-Policy of 'self' holds it to that), and "try it"
 *   sends its requests to the same origin. It works in an air-gapped
 *   cluster.
 */
import YAML from "yaml";
import type { OpenApiDocument } from "./openapi.ts";
import { assetHandler } from "./http/assets.ts";
import { contentHash } from "./http/content_hash.ts";
import type { PageHandler } from "./http/router.ts";

/** The paths of the pages. */
export const DOCS_PATHS = {
  json: "/openapi.json",
  yaml: "/openapi.yaml",
  page: "/docs",
  init: "/docs/init.js",
} as const;

export interface ScalarBundle {
  /**
   * The start of the bundle's SHA-256, part of its path: a new bundle has a
   * new path, so browsers may cache one for good.
   */
  hash: string;
  /** dist/browser/standalone.js of @scalar/api-reference. */
  script: Uint8Array;
}

const SCALAR_BUNDLE = new URL(
  "../third_party/scalar/standalone.js",
  import.meta.url,
);

/** Reads Scalar's standalone browser bundle. Needs --allow-read only. */
export async function loadScalarBundle(): Promise<ScalarBundle> {
  const script = SCALAR_BUNDLE;
  try {
    const bytes = await Deno.readFile(script);
    const hash = await contentHash(bytes, 16);
    return { hash, script: bytes };
  } catch (error) {
    throw new Error(
      `Cannot load the API reference page: cannot read ${script.href}: ${
        (error as Error).message
      }`,
      { cause: error },
    );
  }
}

/** The document as /openapi.json serves it (and the golden copy holds it). */
export function openApiJson(document: OpenApiDocument): string {
  return JSON.stringify(document, null, 2) + "\n";
}

/** The document as /openapi.yaml serves it. */
export function openApiYaml(document: OpenApiDocument): string {
  return YAML.stringify(document, { aliasDuplicateObjects: false });
}

/** The handlers of the documentation pages, by exact path. */
export function docsPages(
  document: OpenApiDocument,
  bundle: ScalarBundle,
): Record<string, PageHandler> {
  const json = openApiJson(document);
  const yaml = openApiYaml(document);
  const scriptPath = `/docs/scalar-api-reference-${bundle.hash}.js`;
  const title = String((document.info as { title?: string })?.title ?? "API");
  const html = page(title, scriptPath);
  const init = initScript();
  const docHeaders = {
    "cache-control": "no-cache",
    "access-control-allow-origin": "*",
  };
  const pageHeaders = {
    "cache-control": "no-cache",
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  };
  // HEAD is the router's: it drops the body GET answers. Every page is
  // compressed as the browser accepts (http/assets.ts).
  const htmlPage = assetHandler(html, {
    "content-type": "text/html; charset=utf-8",
    ...pageHeaders,
  });
  return {
    [DOCS_PATHS.json]: assetHandler(json, {
      "content-type": "application/json",
      ...docHeaders,
    }),
    [DOCS_PATHS.yaml]: assetHandler(yaml, {
      "content-type": "application/yaml",
      ...docHeaders,
    }),
    [DOCS_PATHS.page]: htmlPage,
    [`${DOCS_PATHS.page}/`]: htmlPage,
    [DOCS_PATHS.init]: assetHandler(init, {
      "content-type": "text/javascript; charset=utf-8",
      ...pageHeaders,
    }),
    [scriptPath]: assetHandler(bundle.script, {
      "content-type": "text/javascript; charset=utf-8",
      // The hash is in the path: a new bundle has a new path.
      "cache-control": "public, max-age=31536000, immutable",
      "x-content-type-options": "nosniff",
    }),
  };
}

/**
 * Only Corral's origin. Scalar's bundle injects its styles and evaluates
 * nothing; images may be data: URIs (icons) or blobs (downloads).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'self'",
  "base-uri 'self'",
  "form-action 'self'",
].join("; ");

function page(title: string, scriptPath: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escapeHtml(title)} API reference</title>
    <link rel="icon" href="data:,">
  </head>
  <body>
    <div id="app"></div>
    <script src="${scriptPath}"></script>
    <script src="${DOCS_PATHS.init}"></script>
  </body>
</html>
`;
}

/**
 * Scalar's configuration. Everything that would reach outside Corral is
 * off: the default fonts (fonts.scalar.com), telemetry, the AI agent and
 * MCP features, the "Open API Client" link (client.scalar.com, with this
 * document's URL), the developer toolbar, and the request proxy (requests go straight to this origin:
 * the document's one server is the relative URL "/", so "try it" calls the
 * origin the page came from).
 */
function initScript(): string {
  const configuration = {
    url: DOCS_PATHS.json,
    withDefaultFonts: false,
    telemetry: false,
    hideClientButton: true,
    agent: { disabled: true },
    mcp: { disabled: true },
    showDeveloperTools: "never",
    documentDownloadType: "both",
    defaultOpenAllTags: true,
    operationTitleSource: "summary",
    showOperationId: true,
    // A person pastes a bearer token once; "Test Request" sends it.
    authentication: { preferredSecurityScheme: "bearerAuth" },
    persistAuth: false,
  };
  return `// Corral's API reference: ${DOCS_PATHS.json} rendered by Scalar.
Scalar.createApiReference("#app", ${JSON.stringify(configuration, null, 2)});
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
