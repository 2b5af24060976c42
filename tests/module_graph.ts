/**
 * The module graph of an entry point, as `deno info --json` reports it, and
 * the part of it that loads with the entry point: its static imports,
 * followed transitively. `deno info` lists dynamically imported modules in
 * the graph too; their edges carry `isDynamic: true`, and these are the
 * edges not followed.
 */

const ROOT = new URL("../", import.meta.url);

interface Dependency {
  specifier: string;
  code?: { specifier: string };
  type?: { specifier: string };
  isDynamic?: boolean;
}

interface ModuleInfo {
  specifier: string;
  dependencies?: Dependency[];
}

export interface ModuleGraph {
  /** file: URLs of the repository's modules, relative to its root. */
  all: string[];
  /** Those loaded by static imports alone. */
  static: string[];
  /** Edges that are dynamic imports: importer -> imported, both relative. */
  dynamic: [string, string][];
}

function relative(specifier: string): string | undefined {
  return specifier.startsWith(ROOT.href)
    ? specifier.slice(ROOT.href.length)
    : undefined;
}

/** The graph of `entry` (a path relative to the repository root). */
export async function moduleGraph(entry: string): Promise<ModuleGraph> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "null",
    env: { NO_COLOR: "1" },
  }).output();
  if (!output.success) throw new Error(`deno info ${entry} failed`);
  const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    roots: string[];
    modules: ModuleInfo[];
    redirects: Record<string, string>;
  };
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const resolve = (s: string) => info.redirects[s] ?? s;
  const reached = new Set<string>();
  const dynamic: [string, string][] = [];
  const pending = info.roots.map(resolve);
  while (pending.length > 0) {
    const specifier = pending.pop()!;
    if (reached.has(specifier)) continue;
    reached.add(specifier);
    for (const dependency of bySpecifier.get(specifier)?.dependencies ?? []) {
      for (const target of [dependency.code, dependency.type]) {
        if (!target) continue;
        if (dependency.isDynamic) {
          const from = relative(specifier);
          const to = relative(resolve(target.specifier));
          if (from && to) dynamic.push([from, to]);
        } else {
          pending.push(resolve(target.specifier));
        }
      }
    }
  }
  const local = (specifiers: Iterable<string>) =>
    [...specifiers].map(relative).filter((s): s is string => s !== undefined)
      .sort();
  return {
    all: local(info.modules.map((m) => m.specifier)),
    static: local(reached),
    dynamic,
  };
}
