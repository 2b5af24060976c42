/**
 * What grew between two V8 heap snapshots of one process (bench/soak.ts
 * --snapshots writes them): the objects of the later one that the earlier
 * did not have (V8 keeps an object's id across snapshots of one process),
 * counted and sized by constructor or kind, largest first, and beside
 * them each group's totals in both.
 *
 *   deno run --allow-read bench/heap_diff.ts warm-up.heapsnapshot end.heapsnapshot
 *   deno run --allow-read bench/heap_diff.ts a b --top 40 --retainers Object
 *
 * --retainers NAME lists, for the new objects of group NAME, the groups
 * and edge names that hold them (one step up); --paths NAME gives their
 * shortest paths from the roots, counted alike (indices left out), which
 * names the map or array that grows. --owners sums the new objects' bytes
 * by their nearest owner of a class of the program's own on that path
 * (WatchFanout.#history, Store.#tombstones): what holds the growth.
 */
import { parseArgs } from "node:util";

interface Snapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** A snapshot's nodes, read through its field layout. */
class Heap {
  readonly #s: Snapshot;
  readonly #nodeWidth: number;
  readonly #edgeWidth: number;
  readonly #f: Record<string, number>;
  readonly #e: Record<string, number>;
  /** The first edge of each node, by node index. */
  readonly #firstEdge: Int32Array;

  constructor(snapshot: Snapshot) {
    this.#s = snapshot;
    const meta = snapshot.snapshot.meta;
    this.#nodeWidth = meta.node_fields.length;
    this.#edgeWidth = meta.edge_fields.length;
    this.#f = Object.fromEntries(meta.node_fields.map((name, i) => [name, i]));
    this.#e = Object.fromEntries(meta.edge_fields.map((name, i) => [name, i]));
    this.#firstEdge = new Int32Array(this.count + 1);
    let edge = 0;
    for (let n = 0; n < this.count; n++) {
      this.#firstEdge[n] = edge;
      edge += this.#field(n, "edge_count") * this.#edgeWidth;
    }
    this.#firstEdge[this.count] = edge;
  }

  get count(): number {
    return this.#s.nodes.length / this.#nodeWidth;
  }

  #field(n: number, name: string): number {
    return this.#s.nodes[n * this.#nodeWidth + this.#f[name]];
  }

  id(n: number): number {
    return this.#field(n, "id");
  }

  size(n: number): number {
    return this.#field(n, "self_size");
  }

  /** The group a node counts in: its constructor, or its kind. */
  group(n: number): string {
    const type = this.#s.snapshot.meta.node_types[0][this.#field(n, "type")];
    const name = this.#s.strings[this.#field(n, "name")];
    if (type === "object" || type === "native") return name;
    if (type === "closure") return `closure ${name || "(anonymous)"}`;
    return `(${type})`;
  }

  /**
   * The shortest path from the roots to each node, as the node before it
   * and the edge's name: a breadth-first walk over the strong edges.
   */
  pathsFromRoot(): { parent: Int32Array; edge: string[] } {
    const parent = new Int32Array(this.count).fill(-1);
    const edge: string[] = new Array(this.count);
    const types = this.#s.snapshot.meta.edge_types[0];
    parent[0] = 0;
    let frontier = [0];
    while (frontier.length) {
      const next: number[] = [];
      for (const n of frontier) {
        for (
          let e = this.#firstEdge[n];
          e < this.#firstEdge[n + 1];
          e += this.#edgeWidth
        ) {
          const type = types[this.#s.edges[e + this.#e.type]];
          if (type === "weak" || type === "shortcut") continue;
          const to = this.#s.edges[e + this.#e.to_node] / this.#nodeWidth;
          if (parent[to] !== -1) continue;
          parent[to] = n;
          const raw = this.#s.edges[e + this.#e.name_or_index];
          edge[to] = type === "element" || type === "hidden"
            ? "[i]"
            : this.#s.strings[raw];
          next.push(to);
        }
      }
      frontier = next;
    }
    return { parent, edge };
  }

  /** What `n` holds: each edge's name and the group of its node. */
  holds(n: number): [string, number][] {
    const held: [string, number][] = [];
    const types = this.#s.snapshot.meta.edge_types[0];
    for (
      let e = this.#firstEdge[n];
      e < this.#firstEdge[n + 1];
      e += this.#edgeWidth
    ) {
      const type = types[this.#s.edges[e + this.#e.type]];
      if (type === "weak" || type === "shortcut") continue;
      const raw = this.#s.edges[e + this.#e.name_or_index];
      const name = type === "element" || type === "hidden"
        ? "[i]"
        : this.#s.strings[raw];
      held.push([name, this.#s.edges[e + this.#e.to_node] / this.#nodeWidth]);
    }
    return held;
  }

  /** For each node, the nodes holding it, with the edge's name. */
  retainers(): Map<number, [number, string][]> {
    const held = new Map<number, [number, string][]>();
    const types = this.#s.snapshot.meta.edge_types[0];
    for (let n = 0; n < this.count; n++) {
      for (
        let e = this.#firstEdge[n];
        e < this.#firstEdge[n + 1];
        e += this.#edgeWidth
      ) {
        const to = this.#s.edges[e + this.#e.to_node] / this.#nodeWidth;
        const type = types[this.#s.edges[e + this.#e.type]];
        if (type === "weak" || type === "shortcut") continue;
        const raw = this.#s.edges[e + this.#e.name_or_index];
        const name = type === "element" || type === "hidden"
          ? `[${raw}]`
          : this.#s.strings[raw];
        let list = held.get(to);
        if (!list) held.set(to, list = []);
        list.push([n, name]);
      }
    }
    return held;
  }
}

interface Totals {
  count: number;
  bytes: number;
}

function add(map: Map<string, Totals>, key: string, bytes: number): void {
  const totals = map.get(key) ?? { count: 0, bytes: 0 };
  totals.count++;
  totals.bytes += bytes;
  map.set(key, totals);
}

async function load(path: string): Promise<Heap> {
  return new Heap(JSON.parse(await Deno.readTextFile(path)));
}

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    top: { type: "string", default: "30" },
    retainers: { type: "string" },
    paths: { type: "string" },
    holds: { type: "string" },
    owners: { type: "boolean", default: false },
  },
});
if (positionals.length !== 2) {
  console.error("usage: heap_diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot");
  Deno.exit(2);
}
const before = await load(positionals[0]);
const after = await load(positionals[1]);
const seen = new Set<number>();
const totalsBefore = new Map<string, Totals>();
for (let n = 0; n < before.count; n++) {
  seen.add(before.id(n));
  add(totalsBefore, before.group(n), before.size(n));
}
const totalsAfter = new Map<string, Totals>();
const added = new Map<string, Totals>();
const newNodes: number[] = [];
for (let n = 0; n < after.count; n++) {
  add(totalsAfter, after.group(n), after.size(n));
  if (!seen.has(after.id(n))) {
    add(added, after.group(n), after.size(n));
    newNodes.push(n);
  }
}
const top = Number(values.top);
console.log(
  "| group | new objects | new bytes | count before -> after | bytes before -> after |",
);
console.log("|---|---|---|---|---|");
for (
  const [group, t] of [...added].sort((a, b) => b[1].bytes - a[1].bytes).slice(
    0,
    top,
  )
) {
  const b = totalsBefore.get(group) ?? { count: 0, bytes: 0 };
  const a = totalsAfter.get(group)!;
  console.log(
    `| ${
      group.slice(0, 60)
    } | ${t.count} | ${t.bytes} | ${b.count} -> ${a.count} | ${b.bytes} -> ${a.bytes} |`,
  );
}
if (values.retainers) {
  const held = after.retainers();
  const holders = new Map<string, Totals>();
  for (const n of newNodes) {
    if (after.group(n) !== values.retainers) continue;
    for (const [by, edge] of held.get(n) ?? []) {
      const old = seen.has(after.id(by)) ? "old" : "new";
      add(
        holders,
        `${after.group(by)} .${edge.startsWith("[") ? "[i]" : edge} (${old})`,
        after.size(n),
      );
    }
  }
  console.log(`\nWhat holds the new ${values.retainers} objects:`);
  for (
    const [holder, t] of [...holders].sort((a, b) => b[1].count - a[1].count)
      .slice(0, top)
  ) {
    console.log(`  ${t.count}\t${holder}`);
  }
}
if (values.paths) {
  const { parent, edge } = after.pathsFromRoot();
  const paths = new Map<string, Totals>();
  for (const n of newNodes) {
    if (after.group(n) !== values.paths) continue;
    const steps: string[] = [];
    for (let at = n; at !== 0 && parent[at] >= 0;) {
      const step = `${after.group(at).slice(0, 40)}.${edge[at]}`;
      // A run of the same step (a linked list) as one, with its length.
      const last = steps.at(-1);
      const run = last && /^(.*?)( x(\d+))?$/.exec(last)!;
      if (run && run[1] === step) {
        steps[steps.length - 1] = `${step} x${Number(run[3] ?? 1) + 1}`;
      } else steps.push(step);
      at = parent[at];
    }
    // Runs vary in length: counted as one path.
    const path = steps.reverse().join(" > ").replace(/ x\d+/g, " x*");
    add(paths, path, after.size(n));
  }
  console.log(`\nPaths from the roots to the new ${values.paths} objects:`);
  for (
    const [path, t] of [...paths].sort((a, b) => b[1].count - a[1].count)
      .slice(0, top)
  ) {
    console.log(`  ${t.count}\t${t.bytes}\t${path}`);
  }
}
if (values.holds) {
  const holds = new Map<string, Totals>();
  for (const n of newNodes) {
    if (after.group(n) !== values.holds) continue;
    for (const [name, to] of after.holds(n)) {
      add(holds, `.${name} -> ${after.group(to).slice(0, 80)}`, 0);
    }
  }
  console.log(`\nWhat the new ${values.holds} objects hold:`);
  for (
    const [held, t] of [...holds].sort((a, b) => b[1].count - a[1].count)
      .slice(0, top)
  ) {
    console.log(`  ${t.count}\t${held}`);
  }
}
/** Groups that are the language's or the runtime's, not an owner. */
const BUILTIN = new Set([
  "Object",
  "Array",
  "Map",
  "Set",
  "Promise",
  "Date",
  "WeakMap",
  "Uint8Array",
  "ArrayBuffer",
  "Entry",
  "Generator",
]);

if (values.owners) {
  const { parent, edge } = after.pathsFromRoot();
  const owners = new Map<string, Totals>();
  for (const n of newNodes) {
    let owner = "(no owner)";
    let below = n;
    for (let at = parent[n]; at > 0 && parent[at] >= 0; at = parent[at]) {
      const group = after.group(at);
      if (/^[A-Z]\w+$/.test(group) && !BUILTIN.has(group)) {
        owner = `${group}.${edge[below]}`;
        break;
      }
      below = at;
    }
    add(owners, owner, after.size(n));
  }
  console.log("\nThe new objects by their nearest owner:");
  for (
    const [owner, t] of [...owners].sort((a, b) => b[1].bytes - a[1].bytes)
      .slice(0, top)
  ) {
    console.log(`  ${t.bytes}\t${t.count}\t${owner}`);
  }
}
