/**
 * The layers of the repository and the imports allowed between them, as a
 * table (LAYERS), checked against the imports of every module: a new edge
 * between two layers fails here until the table says it is meant. The
 * rule the table writes down: domain/ does no I/O and imports no other
 * layer; orchestrator/ imports only the domain and client-node; api/
 * reaches Kubernetes only through the domain's port; the service is the
 * one implementation both transports call, and neither transport imports
 * the other; only main.ts wires everything, the stand-in included.
 *
 * The imports are read from the sources (tests/source_imports.ts), not
 * asked of `deno info`, so that this runs with the unit tests.
 */
import assert from "node:assert/strict";
import { importSpecifiers } from "./source_imports.ts";

const ROOT = new URL("../", import.meta.url);

/** The folders scanned: every module of the product and its tooling. */
const SOURCE_FOLDERS = [
  "api/",
  "bench/",
  "cli/",
  "domain/",
  "orchestrator/",
  "standin/",
  "startup/",
  "tools/",
];

/** The modules at the root of the repository. */
const ROOT_MODULES = [
  "main.ts",
  "settings.ts",
  "settings_flags.ts",
  "settings_values.ts",
];

/**
 * The modules at api/'s top that the folders under it share: leaves that
 * import only the domain (and one known exception). The others at api/'s
 * top (mod.ts, shutdown.ts, the pages' handlers) wire the folders
 * together: layer "api".
 */
const API_SHARED = new Set([
  "api/errors.ts",
  "api/log.ts",
  "api/metrics.ts",
  "api/request_id.ts",
  "api/schema.ts",
  "api/tls.ts",
  "api/transport.ts",
  "api/transport_limits.ts",
]);

/** The one package whose importers are a layer rule: the Kubernetes client. */
const KUBERNETES_CLIENT = "@kubernetes/client-node";

/**
 * The layer of a repository path (or of the Kubernetes client); undefined
 * for a path in no layer.
 */
function layerOf(path: string): string | undefined {
  if (path === KUBERNETES_CLIENT) return path;
  if (path === "main.ts" || path === "deno.json") return path;
  if (/^settings(_\w+)?\.ts$/.test(path)) return "settings";
  const [folder, sub, ...rest] = path.split("/");
  if (folder === "api") {
    if (rest.length === 0 && sub.includes(".")) {
      return API_SHARED.has(path) ? "api (shared)" : "api";
    }
    return `api/${sub}`;
  }
  const folders = [
    "bench",
    "cli",
    "domain",
    "orchestrator",
    "standin",
    "startup",
    "tests",
    "tools",
  ];
  return folders.includes(folder) && sub !== undefined ? folder : undefined;
}

/**
 * Each layer and the layers it may import, with why. A layer not named
 * here imports nothing; tests/ is imported by no layer.
 */
const LAYERS: Record<string, Record<string, string>> = {
  "domain": {},
  "orchestrator": {
    "domain": "the port it implements, and the domain's conversions",
    [KUBERNETES_CLIENT]: "the Kubernetes API, behind the port",
  },
  "api (shared)": {
    "domain": "errors and the logger",
  },
  "api/auth": {
    "domain": "identities, resources, errors",
    "api (shared)": "errors, the metrics' type",
  },
  "api/service": {
    "domain": "the port, conversions, validation",
    "api/auth": "the caller, the policy, admission, quotas",
    "api (shared)": "errors, the schema, the metrics",
  },
  "api/http": {
    "domain": "message form, errors",
    "api/service": "the dispatcher it calls, the call and peer types",
    "api/auth": "the dashboard proxy's authentication and sessions",
    "api (shared)": "errors, the schema, request ids, limits",
    orchestrator:
      "the HTTP/1.1 answer head reader its WebSocket tunnel shares with the API server's port-forward",
  },
  "api/grpc": {
    "domain": "message form, protobufjs' objects, errors",
    "api/service": "the dispatcher it calls, the call type",
    "api (shared)": "errors, the schema, TLS, request ids, limits",
  },
  "api/console": {
    // JSDoc types only (`import("../../domain/types.ts").Cluster`): the
    // browser loads no module of the domain.
    "domain": "the wire types of its calls",
  },
  "api": {
    "domain": "the port, errors, the logger",
    "api (shared)": "what the folders share",
    "api/auth": "authentication and access, wired",
    "api/service": "the dispatcher and handlers, wired",
    "api/http": "the gateway, router and listener, wired",
    "api/grpc": "the gRPC server, wired",
  },
  "settings": {
    "domain": "the limits and names it checks",
    "api (shared)": "log levels",
    "api/auth": "the access and rate-limit settings it parses",
    "api/http": "the browser guard's settings",
    "orchestrator": "the cluster access modes",
  },
  "main.ts": {
    "settings": "the settings it starts with",
    "startup": "the start-up steps it runs in order",
    "domain": "the logger",
    "api (shared)": "the logger, TLS",
    "api": "the API it serves, the stop",
    "api/auth": "access",
    "orchestrator": "the Kubernetes orchestrator it wires",
    "deno.json": "the version",
  },
  "startup": {
    "settings": "what each step is told",
    "domain": "the port, the logger",
    "orchestrator": "the Kubernetes connection, leader election, events",
    "api (shared)": "TLS",
    "api": "the API it listens with, the stop's closers",
    "api/auth": "access, the dashboard sessions and their key",
    "api/http": "the HTTP listener",
    "api/grpc": "the gRPC listener",
    "api/service": "the expiry worker",
    "standin": "embedded mode's stand-in, imported dynamically",
    [KUBERNETES_CLIENT]: "the kubeconfig, the lease and event clients",
  },
  "cli": {
    "domain": "errors and the wire types",
    "settings": "the values it shares with the server's flags",
    "deno.json": "the version",
  },
  "standin": {
    "domain": "resources, names, the logger",
    "api/http": "the request body reader",
  },
  "tools": {
    "api (shared)": "the schema",
    "api": "the OpenAPI document, the Python SDK's types are made from",
    "api/http": "the compiled HTTP rules the OpenAPI document describes",
  },
  "bench": {
    "domain": "conversions and types",
    "standin": "the stand-in it measures against",
    "deno.json": "the version",
  },
};

/**
 * Edges the layering forbids that are still there, each with what removes
 * it. The test below fails when one is gone: then delete its row.
 */
const KNOWN_EXCEPTIONS: Record<string, string> = {
  "api/auth -> @kubernetes/client-node":
    "api/auth/token_review.ts calls createTokenReview with client-node's middleware; the call belongs in orchestrator/token_review.ts behind a port",
};

/** One import: the importing module, its specifier, and what it names. */
interface Import {
  from: string;
  specifier: string;
  /** A repository path, or KUBERNETES_CLIENT. */
  to: string;
}

/** `from -> to` of two layers. */
function edgeOf(from: string, to: string): string {
  return `${from} -> ${to}`;
}

/**
 * The imports the table does not allow, each as `edge: module imports
 * specifier`: of a module in no layer, of a path in no layer, and between
 * layers where neither LAYERS nor `exceptions` has the edge.
 */
function forbiddenImports(
  imports: Import[],
  layers: Record<string, Record<string, string>> = LAYERS,
  exceptions: Record<string, string> = KNOWN_EXCEPTIONS,
): string[] {
  const forbidden: string[] = [];
  for (const { from, specifier, to } of imports) {
    const source = layerOf(from) ?? "(no layer)";
    const target = layerOf(to) ?? "(no layer)";
    if (source === target && source !== "(no layer)") continue;
    const edge = edgeOf(source, target);
    if (Object.hasOwn(layers[source] ?? {}, target)) continue;
    if (Object.hasOwn(exceptions, edge)) continue;
    forbidden.push(`${edge}: ${from} imports "${specifier}"`);
  }
  return forbidden;
}

/** The imports of `path`'s module that name a repository path or client-node. */
function importsOf(path: string, source: string): Import[] {
  const imports: Import[] = [];
  const url = new URL(path, ROOT);
  for (const specifier of importSpecifiers(source)) {
    if (specifier.startsWith(".")) {
      const to = new URL(specifier, url).href.slice(ROOT.href.length);
      imports.push({ from: path, specifier, to });
    } else if (
      specifier === KUBERNETES_CLIENT ||
      specifier.startsWith(`npm:${KUBERNETES_CLIENT}@`)
    ) {
      imports.push({ from: path, specifier, to: KUBERNETES_CLIENT });
    }
  }
  return imports;
}

/** Repository paths of the modules under `folder`, subfolders included. */
async function modulesUnder(folder: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(new URL(folder, ROOT))) {
    const path = `${folder}${entry.name}`;
    if (entry.isDirectory) found.push(...await modulesUnder(`${path}/`));
    else if (/\.[cm]?[jt]s$/.test(entry.name)) found.push(path);
  }
  return found;
}

/** Every import of every module of the product and its tooling. */
async function repositoryImports(): Promise<Import[]> {
  const paths = [...ROOT_MODULES];
  for (const folder of SOURCE_FOLDERS) {
    paths.push(...await modulesUnder(folder));
  }
  const imports: Import[] = [];
  for (const path of paths) {
    const source = await Deno.readTextFile(new URL(path, ROOT));
    imports.push(...importsOf(path, source));
  }
  return imports;
}

Deno.test("every import between layers is one the layer table allows", async () => {
  const imports = await repositoryImports();
  assert.ok(imports.length > 500, `read ${imports.length} imports`);
  assert.deepEqual(
    forbiddenImports(imports),
    [],
    "got: imports the table does not allow; want: none (move the shared part " +
      "down a layer, or add the edge to LAYERS saying why it is meant)",
  );
});

Deno.test("every known exception to the layering is still there (else its row goes)", async () => {
  const edges = new Set(
    (await repositoryImports()).map(({ from, to }) =>
      edgeOf(layerOf(from) ?? "", layerOf(to) ?? "")
    ),
  );
  const gone = Object.keys(KNOWN_EXCEPTIONS).filter((edge) => !edges.has(edge));
  assert.deepEqual(gone, [], "got: exceptions no import makes any more");
});

Deno.test("the known exceptions are edges the table itself does not allow", () => {
  for (const edge of Object.keys(KNOWN_EXCEPTIONS)) {
    const [from, to] = edge.split(" -> ");
    assert.ok(LAYERS[from] !== undefined, `${edge}: no layer "${from}"`);
    assert.ok(!Object.hasOwn(LAYERS[from], to), `${edge} is also allowed`);
  }
});

Deno.test("forbiddenImports() reports an edge the table does not allow, naming the module", async (t) => {
  const cases: { name: string; imports: Import[]; want: string[] }[] = [
    {
      name: "the domain importing the HTTP transport",
      imports: [{
        from: "domain/conversions.ts",
        specifier: "../api/http/gateway.ts",
        to: "api/http/gateway.ts",
      }],
      want: [
        'domain -> api/http: domain/conversions.ts imports "../api/http/gateway.ts"',
      ],
    },
    {
      name: "the gRPC transport importing the HTTP one",
      imports: [{
        from: "api/grpc/server.ts",
        specifier: "../http/gateway.ts",
        to: "api/http/gateway.ts",
      }],
      want: [
        'api/grpc -> api/http: api/grpc/server.ts imports "../http/gateway.ts"',
      ],
    },
    {
      name: "a product module importing the stand-in",
      imports: [{
        from: "api/mod.ts",
        specifier: "../standin/mod.ts",
        to: "standin/mod.ts",
      }],
      want: ['api -> standin: api/mod.ts imports "../standin/mod.ts"'],
    },
    {
      name: "the orchestrator importing the API",
      imports: [{
        from: "orchestrator/kubernetes.ts",
        specifier: "../api/errors.ts",
        to: "api/errors.ts",
      }],
      want: [
        'orchestrator -> api (shared): orchestrator/kubernetes.ts imports "../api/errors.ts"',
      ],
    },
    {
      name: "a service module importing the Kubernetes client",
      imports: [{
        from: "api/service/clusters.ts",
        specifier: KUBERNETES_CLIENT,
        to: KUBERNETES_CLIENT,
      }],
      want: [
        `api/service -> ${KUBERNETES_CLIENT}: api/service/clusters.ts imports "${KUBERNETES_CLIENT}"`,
      ],
    },
    {
      name: "a product module importing the tests",
      imports: [{
        from: "domain/codec.ts",
        specifier: "../tests/random.ts",
        to: "tests/random.ts",
      }],
      want: ['domain -> tests: domain/codec.ts imports "../tests/random.ts"'],
    },
    {
      name: "a module in a folder no layer names",
      imports: [{
        from: "scripts/x.ts",
        specifier: "../domain/types.ts",
        to: "domain/types.ts",
      }],
      want: [
        '(no layer) -> domain: scripts/x.ts imports "../domain/types.ts"',
      ],
    },
    {
      name: "nothing for an allowed edge or one within a layer",
      imports: [
        {
          from: "api/http/gateway.ts",
          specifier: "../service/dispatcher.ts",
          to: "api/service/dispatcher.ts",
        },
        {
          from: "domain/codec.ts",
          specifier: "./kept.ts",
          to: "domain/kept.ts",
        },
      ],
      want: [],
    },
  ];
  for (const { name, imports, want } of cases) {
    await t.step(name, () => {
      assert.deepEqual(forbiddenImports(imports), want);
    });
  }
});

Deno.test("forbiddenImports() lets a known exception through, and only it", () => {
  const imports: Import[] = [{
    from: "api/auth/token_review.ts",
    specifier: KUBERNETES_CLIENT,
    to: KUBERNETES_CLIENT,
  }];
  assert.deepEqual(forbiddenImports(imports, LAYERS, {}), [
    'api/auth -> @kubernetes/client-node: api/auth/token_review.ts imports "@kubernetes/client-node"',
  ]);
  assert.deepEqual(forbiddenImports(imports), []);
});

Deno.test("layerOf() names the layer of a path", async (t) => {
  const table: [string, string | undefined][] = [
    ["domain/types/cluster.ts", "domain"],
    ["orchestrator/kubernetes.ts", "orchestrator"],
    ["api/service/clusters.ts", "api/service"],
    ["api/console/api.js", "api/console"],
    ["api/errors.ts", "api (shared)"],
    ["api/mod.ts", "api"],
    ["standin/operator/ray_jobs.ts", "standin"],
    ["settings_values.ts", "settings"],
    ["main.ts", "main.ts"],
    [KUBERNETES_CLIENT, KUBERNETES_CLIENT],
    ["scripts/x.ts", undefined],
    ["README.md", undefined],
  ];
  for (const [path, want] of table) {
    await t.step(path, () => assert.equal(layerOf(path), want));
  }
});
