/**
 * domain/types.ts and domain/types/ are generated from proto/
 * (tools/types_gen.ts): the committed files must be what the generator
 * writes, so a .proto change without `deno task types:gen` (or a hand edit
 * of them) fails here.
 */
import assert from "node:assert/strict";
import { API_FILES } from "../../api/schema.ts";
import {
  committedModules,
  DOMAIN_DIR,
  generateTypes,
  INDEX_FILE,
} from "../../tools/types_gen.ts";

const PROTO_DIR = new URL("../../proto/", import.meta.url);

Deno.test("domain/types.ts and domain/types/ are what `deno task types:gen` writes from proto/", async () => {
  const generated = await generateTypes();
  assert.deepEqual(
    await committedModules(),
    [...generated.keys()].filter((path) => path !== INDEX_FILE).sort(),
    "domain/types/ holds other modules than proto/ makes: run `deno task types:gen`",
  );
  for (const [path, text] of generated) {
    const committed = await Deno.readTextFile(new URL(path, DOMAIN_DIR));
    assert.ok(
      committed === text,
      `domain/${path} and proto/ disagree: run \`deno task types:gen\` and ` +
        "commit domain/types.ts and domain/types/ (they are generated: do " +
        "not edit them by hand). " + firstDifference(committed, text),
    );
  }
});

Deno.test("every generated module stays under 800 lines", async () => {
  // The committed ones: the test above holds them to what is generated.
  for (const path of [INDEX_FILE, ...await committedModules()]) {
    const text = await Deno.readTextFile(new URL(path, DOMAIN_DIR));
    const lines = text.split("\n").length;
    assert.ok(lines < 800, `domain/${path} has ${lines} lines`);
  }
});

function firstDifference(got: string, want: string): string {
  const [a, b] = [got.split("\n"), want.split("\n")];
  const line = a.findIndex((text, i) => text !== b[i]);
  const at = line < 0 ? a.length : line;
  return `Line ${at + 1}: got ${JSON.stringify(a[at])}, want ${
    JSON.stringify(b[at])
  }`;
}

/** A change of cluster.proto and a line it must bring into types.ts. */
interface Mutation {
  name: string;
  from: string;
  to: string;
  /** In the generated source, within `interface <in>`. */
  in: string;
  want: string;
  gone?: string;
}

const MUTATIONS: Mutation[] = [
  {
    name: "a field added",
    from: "  map<string, string> envs = 12;",
    to:
      "  map<string, string> envs = 12;\n  // A nickname.\n  string nickname = 13;",
    in: "Cluster",
    want: "nickname: string;",
  },
  {
    name: "a field removed",
    from: "  string user = 3 [(google.api.field_behavior) = REQUIRED];",
    to: "",
    in: "Cluster",
    want: "name: string;",
    gone: "user: string;",
  },
  {
    name: "a field's type changed",
    from: "  int32 count = 9",
    to: "  string count = 9",
    in: "ClusterEvent",
    want: "count: string;",
    gone: "count: number;",
  },
  {
    name: "a field made proto3 optional",
    from: "  string version = 4;",
    to: "  optional string version = 4;",
    in: "Cluster",
    want: "version?: string;",
    gone: "version: string;",
  },
  {
    name: "a field made repeated",
    from: "  string image = 2;",
    to: "  repeated string image = 2;",
    in: "HeadGroupSpec",
    want: "image: string[];",
    gone: "image: string;",
  },
  {
    name: "a field made a message",
    from: "  string service_type = 3;",
    to: "  Volume service_type = 3;",
    in: "HeadGroupSpec",
    want: "serviceType?: Volume;",
    gone: "serviceType: string;",
  },
];

Deno.test("the generated types change with every change of a field in the .proto", async (t) => {
  const committed = await Deno.readTextFile(
    new URL("types/cluster.ts", DOMAIN_DIR),
  );
  const original = await Deno.readTextFile(new URL("cluster.proto", PROTO_DIR));
  const dir = await Deno.makeTempDir({ prefix: "corral-types-" });
  try {
    for (const file of API_FILES) {
      await Deno.copyFile(new URL(file, PROTO_DIR), `${dir}/${file}`);
    }
    for (const m of MUTATIONS) {
      await t.step(m.name, async () => {
        assert.equal(original.split(m.from).length, 2, `one "${m.from}"`);
        await Deno.writeTextFile(
          `${dir}/cluster.proto`,
          original.replace(m.from, m.to),
        );
        const generated = (await generateTypes(
          API_FILES.map((f) => `${dir}/${f}`),
        )).get("types/cluster.ts")!;
        assert.notEqual(generated, committed);
        const body = interfaceBody(generated, m.in);
        assert.ok(body.includes(m.want), `want "${m.want}" in:\n${body}`);
        if (m.gone) {
          assert.ok(!body.includes(m.gone), `"${m.gone}" stayed in:\n${body}`);
        }
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

function interfaceBody(source: string, name: string): string {
  const start = source.indexOf(`export interface ${name} {`);
  assert.ok(start >= 0, `no interface ${name}`);
  return source.slice(start, source.indexOf("\n}\n", start));
}
