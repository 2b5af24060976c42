/**
 * The google.api protos that a proto/ directory imports, read from the
 * installed google-proto-files package (the files the service loads at run
 * time). tools/buf.ts and tools/buf_breaking.ts write them into the
 * temporary buf workspaces they run buf in: buf cannot reach its registry
 * from here, and the repository keeps no copy of them.
 */
import { getProtoPath } from "google-proto-files";

/** Files buf brings itself (the well-known types), so not written. */
const BUILT_IN = /^google\/protobuf\//;

/**
 * The google-proto-files files that the .proto files of `protoDir` import,
 * directly or through each other: path as imported -> text, in path order.
 */
export async function googleProtos(
  protoDir: string,
): Promise<Map<string, string>> {
  const source = getProtoPath("..") + "/";
  const found = new Map<string, string>();
  const pending: string[] = [];
  for await (const entry of Deno.readDir(protoDir)) {
    if (entry.isFile && entry.name.endsWith(".proto")) {
      const text = await Deno.readTextFile(`${protoDir}/${entry.name}`);
      pending.push(
        ...imports(text).filter((path) => path.startsWith("google/")),
      );
    }
  }
  while (pending.length > 0) {
    const path = pending.pop()!;
    if (found.has(path) || BUILT_IN.test(path)) continue;
    let text: string;
    try {
      text = await Deno.readTextFile(source + path);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      throw new Error(
        `Cannot find "${path}" in google-proto-files: imported by ${protoDir}`,
      );
    }
    found.set(path, text);
    pending.push(...imports(text));
  }
  return new Map([...found].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0));
}

/** Writes googleProtos(protoDir) under `into`, as buf's module of them. */
export async function writeGoogleProtos(
  protoDir: string,
  into: string,
): Promise<void> {
  for (const [path, text] of await googleProtos(protoDir)) {
    const file = `${into}/${path}`;
    await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(file, text);
  }
}

/** The files a .proto imports, as written in its import statements. */
function imports(text: string): string[] {
  return [...text.matchAll(/^\s*import\s+(?:public\s+|weak\s+)?"([^"]+)"/gm)]
    .map((m) => m[1]);
}
