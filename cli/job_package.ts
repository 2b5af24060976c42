/**
 * A working directory as a job package, the way Ray's job client makes
 * one: every file under the directory, paths relative to it, in a zip
 * archive named `_ray_pkg_<hash>.zip` after a hash of the files' paths and
 * contents, so the same directory is the same package and an upload the
 * cluster has already seen can be skipped.
 *
 * What is left out, as Ray's client does: `.git/`, and what the
 * directory's `.gitignore` files ignore (each one for its own directory and
 * below, last matching line wins, `!` re-includes; an ignored directory is
 * not entered, as git). Symbolic links are not followed. A directory whose
 * files add up to more than MAX_PACKAGE_BYTES, or whose zip would, is
 * refused before anything is sent.
 */
import { CliError, EXIT_USAGE } from "./errors.ts";

/** Ray refuses working directories over 100 MiB by default; so does this. */
export const MAX_PACKAGE_BYTES = 100 * 1024 * 1024;

/** One file of a package: its path in the zip, its bytes, when it changed. */
export interface PackageFile {
  path: string;
  bytes: Uint8Array;
  modified: Date;
}

/** A zipped working directory and the name it is uploaded as. */
export interface JobPackage {
  /** `_ray_pkg_<32 hex digits>.zip`. */
  name: string;
  /** `gcs://<name>`, the runtime environment's `working_dir`. */
  uri: string;
  zip: Uint8Array;
  files: string[];
}

/** One `.gitignore` line, compiled. */
interface IgnoreRule {
  /** Matches a path relative to the directory holding the `.gitignore`. */
  pattern: RegExp;
  negated: boolean;
  directoryOnly: boolean;
  /** The `.gitignore`'s directory, relative to the root ("" for the root). */
  base: string;
}

/** Reads, filters and zips `dir`; a usage error when it cannot be used. */
export async function packageDirectory(dir: string): Promise<JobPackage> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(dir);
  } catch (error) {
    throw new CliError(
      `cannot read --working-dir ${dir}: ${(error as Error).message}`,
      EXIT_USAGE,
    );
  }
  if (!info.isDirectory) {
    throw new CliError(`--working-dir ${dir} is not a directory`, EXIT_USAGE);
  }
  const files: PackageFile[] = [];
  await collect(dir, "", [], files, { bytes: 0 });
  files.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  const name = `_ray_pkg_${await contentHash(files)}.zip`;
  const zip = await zipFiles(files);
  if (zip.length > MAX_PACKAGE_BYTES) {
    throw tooLarge(dir, zip.length);
  }
  return { name, uri: `gcs://${name}`, zip, files: files.map((f) => f.path) };
}

function tooLarge(dir: string, bytes: number): CliError {
  return new CliError(
    `--working-dir ${dir} is too large: ${bytes} bytes, at most ${MAX_PACKAGE_BYTES}`,
    EXIT_USAGE,
    ["  leave large files out with a .gitignore in the directory"],
  );
}

/**
 * Adds the files under `root/relative` to `files`, skipping what `rules`
 * (and the directory's own `.gitignore`) ignore.
 */
async function collect(
  root: string,
  relative: string,
  inherited: IgnoreRule[],
  files: PackageFile[],
  total: { bytes: number },
): Promise<void> {
  const here = relative ? `${root}/${relative}` : root;
  const rules = [...inherited, ...await gitignoreRules(here, relative)];
  const entries: Deno.DirEntry[] = [];
  for await (const entry of Deno.readDir(here)) entries.push(entry);
  for (const entry of entries) {
    const path = relative ? `${relative}/${entry.name}` : entry.name;
    if (entry.isSymlink || (entry.isDirectory && entry.name === ".git")) {
      continue;
    }
    if (isIgnored(rules, path, entry.isDirectory)) continue;
    if (entry.isDirectory) {
      await collect(root, path, rules, files, total);
      continue;
    }
    const bytes = await Deno.readFile(`${root}/${path}`);
    total.bytes += bytes.length;
    if (total.bytes > MAX_PACKAGE_BYTES) throw tooLarge(root, total.bytes);
    const { mtime } = await Deno.stat(`${root}/${path}`);
    files.push({ path, bytes, modified: mtime ?? new Date() });
  }
}

/** The rules of `dir/.gitignore`, none when there is no such file. */
async function gitignoreRules(
  dir: string,
  base: string,
): Promise<IgnoreRule[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${dir}/.gitignore`);
  } catch {
    return [];
  }
  return parseGitignore(text, base);
}

/**
 * The rules of a `.gitignore`'s text: blank lines and `#` comments
 * skipped; `!` negates; a trailing `/` matches directories only; a
 * pattern with a `/` elsewhere is anchored to the file's directory, one
 * without matches a name at any depth; `*`, `?`, `[...]` and `**` as git.
 */
export function parseGitignore(text: string, base = ""): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.replace(/(?<!\\)\s+$/, "");
    if (!line || line.startsWith("#")) continue;
    const negated = line.startsWith("!");
    if (negated) line = line.slice(1);
    const directoryOnly = line.endsWith("/");
    if (directoryOnly) line = line.slice(0, -1);
    const anchored = line.includes("/");
    if (line.startsWith("/")) line = line.slice(1);
    if (!line) continue;
    const body = globSource(line);
    const pattern = new RegExp(
      anchored ? `^${body}$` : `^(?:.*/)?${body}$`,
    );
    rules.push({ pattern, negated, directoryOnly, base });
  }
  return rules;
}

/** A gitignore glob as a regular expression's source. */
function globSource(glob: string): string {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (glob.startsWith("**/", i)) {
      source += "(?:.*/)?";
      i += 2;
    } else if (glob.startsWith("/**", i) && i + 3 === glob.length) {
      source += "/.*";
      i += 2;
    } else if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else if (c === "[") {
      const end = glob.indexOf("]", i + 1);
      if (end === -1) source += "\\[";
      else {
        source += `[${glob.slice(i + 1, end).replace(/^!/, "^")}]`;
        i = end;
      }
    } else if (c === "\\" && i + 1 < glob.length) {
      source += escape(glob[++i]);
    } else source += escape(c);
  }
  return source;
}

function escape(c: string): string {
  return c.replace(/[.+^${}()|[\]\\/]/g, "\\$&");
}

/** Whether `path` (relative to the root) is ignored: the last match decides. */
export function isIgnored(
  rules: IgnoreRule[],
  path: string,
  isDirectory: boolean,
): boolean {
  let ignored = false;
  for (const rule of rules) {
    if (rule.directoryOnly && !isDirectory) continue;
    if (rule.base && !path.startsWith(`${rule.base}/`)) continue;
    const local = rule.base ? path.slice(rule.base.length + 1) : path;
    if (rule.pattern.test(local)) ignored = !rule.negated;
  }
  return ignored;
}

/**
 * 32 hex digits of SHA-256 over every file's path and contents, in path
 * order, each length-prefixed so that no two directories run together.
 */
async function contentHash(files: PackageFile[]): Promise<string> {
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  for (const file of files) {
    const path = encoder.encode(file.path);
    parts.push(lengthOf(path.length), path, lengthOf(file.bytes.length));
    parts.push(file.bytes);
  }
  const digest = await crypto.subtle.digest("SHA-256", concat(parts));
  return [...new Uint8Array(digest).slice(0, 16)]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
}

function lengthOf(n: number): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(n));
  return bytes;
}

function concat(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** The CRC-32 a zip entry carries. */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) crc = CRC_TABLE[(crc ^ b) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

async function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream()
    .pipeThrough(new CompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** A time as MS-DOS writes it in a zip: [time, date], local time. */
function dosTime(date: Date): [number, number] {
  const year = Math.max(date.getFullYear(), 1980);
  return [
    (date.getHours() << 11) | (date.getMinutes() << 5) |
    (date.getSeconds() >> 1),
    ((year - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate(),
  ];
}

/**
 * A zip archive of `files` (deflated, or stored when deflating does not
 * make one smaller), UTF-8 names; no zip64, which the size bound makes
 * unnecessary.
 */
export async function zipFiles(files: PackageFile[]): Promise<Uint8Array> {
  const encoder = new TextEncoder();
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const file of files) {
    const name = encoder.encode(file.path);
    const deflated = await deflate(file.bytes);
    const stored = deflated.length >= file.bytes.length;
    const data = stored ? file.bytes : deflated;
    const [time, date] = dosTime(file.modified);
    // Fields shared by the local header (from offset 4) and the central
    // entry (from offset 6): version needed, flags (bit 11: UTF-8 names),
    // method, time, date, CRC, sizes, name length.
    const common = new DataView(new ArrayBuffer(26));
    common.setUint16(0, 20, true);
    common.setUint16(2, 0x0800, true);
    common.setUint16(4, stored ? 0 : 8, true);
    common.setUint16(6, time, true);
    common.setUint16(8, date, true);
    common.setUint32(10, crc32(file.bytes), true);
    common.setUint32(14, data.length, true);
    common.setUint32(18, file.bytes.length, true);
    common.setUint16(22, name.length, true);
    const local = new Uint8Array(30 + name.length);
    new DataView(local.buffer).setUint32(0, 0x04034b50, true);
    local.set(new Uint8Array(common.buffer), 4);
    local.set(name, 30);
    const central = new Uint8Array(46 + name.length);
    const view = new DataView(central.buffer);
    view.setUint32(0, 0x02014b50, true);
    view.setUint16(4, 0x0314, true); // made by: Unix, zip 2.0
    central.set(new Uint8Array(common.buffer), 6);
    view.setUint32(38, 0o100644 << 16, true); // a regular file, rw-r--r--
    view.setUint32(42, offset, true);
    central.set(name, 46);
    locals.push(local, data);
    centrals.push(central);
    offset += local.length + data.length;
  }
  const directory = concat(centrals);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, files.length, true);
  end.setUint16(10, files.length, true);
  end.setUint32(12, directory.length, true);
  end.setUint32(16, offset, true);
  return concat([...locals, directory, new Uint8Array(end.buffer)]);
}
