/**
 * The google.api protos that proto/ imports, copied from the
 * google-proto-files package (the copies the service loads at run time) into
 * third_party/googleapis/, where buf reads them: buf cannot reach its
 * registry from here, and a `.git#ref=...` input sees committed files only.
 *
 *   deno task googleapis:sync   rewrite the copies (after upgrading the package)
 *
 * tests/tools/buf_test.ts fails when a copy differs from the package's.
 */
import { getProtoPath } from "google-proto-files";

const ROOT = new URL("../", import.meta.url);
const PROTO_DIR = new URL("proto/", ROOT);
export const THIRD_PARTY_DIR = new URL("third_party/googleapis/", ROOT);

/** Files buf brings itself (the well-known types), so not copied. */
const BUILT_IN = /^google\/protobuf\//;

/** What third_party/googleapis/ should hold: path -> text. */
export async function wantedCopies(): Promise<Map<string, string>> {
  const source = getProtoPath("..") + "/";
  const wanted = new Map<string, string>();
  wanted.set("LICENSE", await Deno.readTextFile(source + "LICENSE"));
  const pending: string[] = [];
  for await (const entry of Deno.readDir(PROTO_DIR)) {
    if (entry.isFile && entry.name.endsWith(".proto")) {
      pending.push(
        ...imports(await Deno.readTextFile(new URL(entry.name, PROTO_DIR))),
      );
    }
  }
  while (pending.length > 0) {
    const path = pending.pop()!;
    if (wanted.has(path) || BUILT_IN.test(path)) continue;
    const text = await Deno.readTextFile(source + path);
    wanted.set(path, text);
    pending.push(...imports(text));
  }
  return new Map([...wanted].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0));
}

/** The files a .proto imports, as written in its import statements. */
function imports(text: string): string[] {
  return [...text.matchAll(/^\s*import\s+(?:public\s+|weak\s+)?"([^"]+)"/gm)]
    .map((m) => m[1]);
}

/** The files third_party/googleapis/ holds now: path -> text. */
export async function presentCopies(): Promise<Map<string, string>> {
  const present = new Map<string, string>();
  async function walk(dir: URL, prefix: string): Promise<void> {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory) {
        await walk(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`);
      } else if (entry.isFile) {
        present.set(
          prefix + entry.name,
          await Deno.readTextFile(new URL(entry.name, dir)),
        );
      }
    }
  }
  try {
    await walk(THIRD_PARTY_DIR, "");
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return new Map([...present].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0));
}

if (import.meta.main) {
  await Deno.remove(THIRD_PARTY_DIR, { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  for (const [path, text] of await wantedCopies()) {
    const file = new URL(path, THIRD_PARTY_DIR);
    await Deno.mkdir(new URL("./", file), { recursive: true });
    await Deno.writeTextFile(file, text);
    console.log(`Wrote third_party/googleapis/${path}`);
  }
}
