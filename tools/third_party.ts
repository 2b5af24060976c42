/**
 * The files of third_party/: copies of files from two npm packages that the
 * service loads at run time. They are committed rather than installed so that
 * the service's own dependencies stay small (the first `deno task dev` on a
 * fresh machine fetches only what the service runs): the two packages weigh
 * about 100 MB and bring some 200 packages with them, for 4.4 MB of files.
 *
 * The packages stay pinned in tests/deno.json, where this tool reads them:
 *
 *   deno task third-party          checks every copy is byte-for-byte the
 *                                  pinned package's (tests/third_party_test.ts
 *                                  runs the same check in `deno task test`)
 *   deno task third-party --write  rewrites the copies from the packages,
 *                                  after a version bump in tests/deno.json
 */

/** One package's files: path in the package -> path in the repository. */
export interface VendoredPackage {
  /** The import name tests/deno.json pins. */
  name: string;
  files: Record<string, string>;
}

/** Read by api/docs.ts. */
const SCALAR_BUNDLE = "third_party/scalar/standalone.js";

/** Read by api/schema.ts; buf's googleapis module (tools/buf.ts). */
const GOOGLEAPIS_DIR = "third_party/googleapis";

const GOOGLE_PROTOS = [
  "google/api/annotations.proto",
  "google/api/http.proto",
  "google/api/field_behavior.proto",
  "google/rpc/status.proto",
  "google/rpc/error_details.proto",
];

export const VENDORED: VendoredPackage[] = [
  {
    name: "@scalar/api-reference",
    files: { "dist/browser/standalone.js": SCALAR_BUNDLE },
  },
  {
    name: "google-proto-files",
    files: {
      LICENSE: `${GOOGLEAPIS_DIR}/LICENSE`,
      ...Object.fromEntries(
        GOOGLE_PROTOS.map((path) => [path, `${GOOGLEAPIS_DIR}/${path}`]),
      ),
    },
  },
];

const ROOT = new URL("../", import.meta.url);

/**
 * The directory of an installed package, found from its main module, which
 * sits at most a few directories below the package.json.
 */
export async function packageDir(name: string): Promise<URL> {
  let dir = new URL("./", import.meta.resolve(name));
  for (let depth = 0; depth < 4; depth++) {
    try {
      const pkg = JSON.parse(
        await Deno.readTextFile(new URL("package.json", dir)),
      );
      if (pkg.name === name) return dir;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    dir = new URL("../", dir);
  }
  throw new Error(`Cannot find the package.json of ${name}`);
}

/** A copy that differs from its package's file (or is missing). */
export interface Drift {
  copy: string;
  source: string;
}

/** Compares (or with `write`, rewrites) every copy; answers what differed. */
export async function syncThirdParty(
  write: boolean,
  root: URL = ROOT,
): Promise<Drift[]> {
  const drift: Drift[] = [];
  for (const { name, files } of VENDORED) {
    const dir = await packageDir(name);
    for (const [inPackage, copy] of Object.entries(files)) {
      const source = new URL(inPackage, dir);
      const wanted = await Deno.readFile(source);
      const target = new URL(copy, root);
      const have = await Deno.readFile(target).catch((error) => {
        if (error instanceof Deno.errors.NotFound) return undefined;
        throw error;
      });
      if (have && equalBytes(have, wanted)) continue;
      drift.push({ copy, source: `${name}/${inPackage}` });
      if (write) {
        await Deno.mkdir(new URL("./", target), { recursive: true });
        await Deno.writeFile(target, wanted);
      }
    }
  }
  return drift;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

if (import.meta.main) {
  const write = Deno.args.includes("--write");
  const drift = await syncThirdParty(write);
  for (const { copy, source } of drift) {
    console.log(`${write ? "wrote" : "differs"}: ${copy} (${source})`);
  }
  if (!write && drift.length > 0) {
    console.log("Run `deno task third-party --write` to update the copies.");
    Deno.exit(1);
  }
  if (drift.length === 0) console.log("third_party/ matches the packages.");
}
