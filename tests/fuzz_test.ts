/**
 * Fuzzing: a seeded generator of bad requests (invalid JSON, wrong types,
 * huge numbers, deep nesting, unknown fields, bad enum values, overlong and
 * malformed names, wrong content types, odd methods, paths and queries),
 * sent through the gateway function and, where a request can be a protobuf
 * message, through the gRPC server, together with malformed messages (random
 * bytes, truncations, wrong wire types, invalid enum numbers, oversized).
 * Every answer must be a caller's error, never an internal one, and nothing
 * may be written to Kubernetes.
 *
 * The seed is drawn anew for each run and printed first, in the tests'
 * names and in every failure; FUZZ_SEED=<n> replays a run, FUZZ_COUNT
 * changes the number of HTTP requests (10,000).
 */
import assert from "node:assert/strict";
import type protobuf from "protobufjs";
import { httpStatus } from "../api/errors.ts";
import type { Code } from "../domain/errors.ts";
import { createLogger } from "../api/log.ts";
import type { KubernetesCallRecord } from "../domain/ports.ts";
import { type Corral, startCorral } from "./harness.ts";
import { Rng } from "./random.ts";

const SEED = fuzzSeed();
const HTTP_COUNT = Number(Deno.env.get("FUZZ_COUNT") ?? 10_000);
const NS = "team-a";
const MAX_BODY_BYTES = 3 * 1024 * 1024;

const LOWER = "abcdefghijklmnopqrstuvwxyz0123456789";
const PRINTABLE =
  " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~";

// ---------------------------------------------------------------------------
// Valid requests, the material the mutations start from

function baseCluster(name: string): Record<string, unknown> {
  return {
    name,
    user: "ada",
    version: "2.9.0",
    environment: "DEV",
    envs: { APP_MODE: "fuzz" },
    clusterSpec: {
      headGroupSpec: {
        computeTemplate: "small",
        serviceType: "NodePort",
        engineStartParams: { "dashboard-host": "0.0.0.0" },
        volumes: [{
          name: "data",
          mountPath: "/data",
          source: "claim",
          volumeType: "PERSISTENT_VOLUME_CLAIM",
        }],
      },
      workerGroupSpec: [{
        groupName: "workers",
        computeTemplate: "small",
        replicas: 2,
        minReplicas: 0,
        maxReplicas: 4,
        engineStartParams: {},
        volumes: [{
          name: "logs",
          mountPath: "/logs",
          source: "/var/log",
          volumeType: "HOST_PATH",
          hostPathType: "DIRECTORY",
          mountPropagationMode: "HOSTTOCONTAINER",
          readOnly: true,
        }],
      }],
    },
  };
}

function baseTemplate(name: string): Record<string, unknown> {
  return { name, cpu: 2, memory: 4, gpu: 1, gpuAccelerator: "nvidia.com/gpu" };
}

// ---------------------------------------------------------------------------
// Invalid values, each invalid wherever it is used

/** Invalid as a DNS-1123 label or subdomain, a DNS-1035 label and a label value. */
const BAD_NAMES = [
  "",
  "Blue",
  "-blue",
  "blue-",
  ".blue",
  "blue.",
  "a/b",
  "a%2Fb",
  "%2e%2e",
  "a b",
  " blue",
  "blue ",
  "blüe",
  "蓝色",
  "🙂",
  "bl\u200bue",
  "a\u0000b",
  "a\nb",
  "a\tb",
  "a_b",
  "a:b",
  "a@b",
  "*",
  "a,b",
  "a=b",
  "..",
  ".",
  "%",
  "%ZZ",
  "\\",
  "a\\b",
  "a?b",
  "a#b",
  "<script>",
  "'; DROP TABLE clusters; --",
  "${jndi:ldap://x}",
  "\ud800",
];
/** Invalid users: any text goes, but not control characters. */
const BAD_USERS = [
  "a\u0000",
  "a\nb",
  "\t",
  "a\u007f",
  " a",
  "a ",
  "u".repeat(254),
];
/** Invalid label values (version). */
const BAD_LABEL_VALUES = [
  "a/b",
  "a b",
  "blüe",
  "🙂",
  "-a",
  "a-",
  ".a",
  "a.",
  "_a",
  "a\u0000",
  "a:b",
  "a@b",
  "*",
  "a,b",
  "a=b",
  "%",
  "a\nb",
];
const BAD_ENUM_VALUES: unknown[] = [
  "dev",
  "Dev",
  "PROD",
  "",
  " DEV",
  "DEV ",
  "0",
  "1",
  "3",
  "HOST-PATH",
  "toString",
  "__proto__",
  "constructor",
  "hasOwnProperty",
  // Past every enum's values (VolumeType's go to 5, KubeRay's EMPTY_DIR).
  6,
  99,
  -1,
  2 ** 31,
  1.5,
  true,
];
const UNKNOWN_KEYS = [
  "rayStartParams",
  "Name",
  "NAME",
  "clusterSpecs",
  "cluster-spec",
  "headGroup",
  "workerGroupSpecs",
  "replica",
  "cpus",
  "memoryGi",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "",
  " ",
  "name ",
  "\u0000",
  "ñame",
  "$where",
  "metadata",
  "spec",
  "status",
  "apiVersion",
  "kind",
];

/** A name too long for any of the fields it is put in. */
function longName(rng: Rng): string {
  if (rng.chance(0.04)) return "x".repeat(1 << 20);
  return "x".repeat(254 + rng.int(2000));
}

function badName(rng: Rng): string {
  return rng.chance(0.1) ? longName(rng) : rng.pick(BAD_NAMES);
}

function badLabel(rng: Rng): string {
  return rng.chance(0.1) ? "v".repeat(64 + rng.int(500)) : rng.pick(
    BAD_LABEL_VALUES,
  );
}

// ---------------------------------------------------------------------------
// Generated requests

interface Fuzzed {
  category: string;
  method: string;
  /** Path and query, encoded. */
  target: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer>;
  /** The same mistake as a gRPC request in proto3 JSON form, if it can be one. */
  grpc?: { rpc: string; request: Record<string, unknown> };
}

type Kind = "create-cluster" | "create-template";

const CREATE = {
  "create-cluster": {
    path: (ns: string) => `/apis/v1alpha2/namespaces/${ns}/clusters`,
    rpc: "proto.ClusterService/CreateCluster",
    field: "cluster",
    type: "proto.Cluster",
  },
  "create-template": {
    path: (ns: string) => `/apis/v1/namespaces/${ns}/compute_templates`,
    rpc: "proto.ComputeTemplateService/CreateComputeTemplate",
    field: "computeTemplate",
    type: "proto.ComputeTemplate",
  },
} as const;

const OBJECTS = [
  {
    path: (ns: string, name: string) =>
      `/apis/v1alpha2/namespaces/${ns}/clusters/${name}`,
    rpcs: {
      GET: "proto.ClusterService/GetCluster",
      DELETE: "proto.ClusterService/DeleteCluster",
    },
  },
  {
    path: (ns: string, name: string) =>
      `/apis/v1/namespaces/${ns}/compute_templates/${name}`,
    rpcs: {
      GET: "proto.ComputeTemplateService/GetComputeTemplate",
      DELETE: "proto.ComputeTemplateService/DeleteComputeTemplate",
    },
  },
] as const;

const LISTS = [
  {
    path: (ns: string) => `/apis/v1alpha2/namespaces/${ns}/clusters`,
    rpc: "proto.ClusterService/ListCluster",
  },
  {
    path: (ns: string) => `/apis/v1/namespaces/${ns}/compute_templates`,
    rpc: "proto.ComputeTemplateService/ListComputeTemplates",
  },
] as const;

/** Every valid path with the methods it answers. */
const VALID_TARGETS: { path: string; methods: string[] }[] = [
  {
    path: `/apis/v1alpha2/namespaces/${NS}/clusters`,
    methods: ["GET", "POST"],
  },
  {
    path: `/apis/v1/namespaces/${NS}/compute_templates`,
    methods: ["GET", "POST"],
  },
  {
    path: `/apis/v1alpha2/namespaces/${NS}/clusters/blue`,
    methods: ["GET", "DELETE"],
  },
  {
    path: `/apis/v1/namespaces/${NS}/compute_templates/small`,
    methods: ["GET", "DELETE"],
  },
  { path: "/apis/v1alpha2/clusters", methods: ["GET"] },
  { path: "/apis/v1/compute_templates", methods: ["GET"] },
];

const ODD_METHODS = [
  "PUT",
  "PATCH",
  "OPTIONS",
  "HEAD",
  "FOO",
  "PROPFIND",
  "LINK",
  "M-SEARCH",
  "GET",
  "POST",
  "DELETE",
];

const ODD_PATHS = [
  "/",
  "/apis",
  "/apis/v1alpha2",
  "/apis/v1alpha3/clusters",
  "/apis/v2/compute_templates",
  "/APIS/V1ALPHA2/CLUSTERS",
  "/apis/v1alpha2/clusters/",
  "/apis/v1alpha2/clusters/extra",
  "//apis/v1alpha2/clusters",
  "/apis//v1alpha2/clusters",
  `/apis/v1alpha2/namespaces/${NS}`,
  `/apis/v1alpha2/namespaces/${NS}/clusters/blue/status`,
  `/apis/v1alpha2/namespaces/${NS}/clusters/blue/`,
  `/apis/v1/namespaces/${NS}/compute_templates/small/extra`,
  `/api/v1/namespaces/${NS}/configmaps`,
  "/apis/ray.io/v1/rayclusters",
  "/healthz",
  "/readyz",
  "/metrics",
  "/openapi.json",
  "/%2e%2e/%2e%2e/etc/passwd",
  "/apis/v1alpha2/clusters%2F",
  "/apis/v1alpha2/clusters%00",
  "/apis/v1alpha2/cluster",
  "/apis/v1alpha2/namespaces/%ZZ/clusters/blue",
  "/apis/v1alpha2/namespaces/team-a/clusters/%E0%A4%A",
];

/** Where a mutation can go in a JSON body, found by walking it with its type. */
interface Node {
  /** The parent object or array, and the key of the node in it. */
  parent: Record<string, unknown> | unknown[];
  key: string | number;
  kind:
    | "message"
    | "map"
    | "array"
    | "string"
    | "int"
    | "uint"
    | "enum"
    | "bool";
  /** The message type of a "message" node. */
  type?: protobuf.Type;
  /** The field of the node (of the array, for an element). */
  field?: protobuf.Field;
}

function walk(
  type: protobuf.Type,
  value: Record<string, unknown>,
  out: Node[],
): Node[] {
  for (const [key, v] of Object.entries(value)) {
    const field = type.fields[key];
    const node = { parent: value, key, field };
    if (field.map) {
      out.push({ ...node, kind: "map" });
      for (const k of Object.keys(v as object)) {
        out.push({
          parent: v as Record<string, unknown>,
          key: k,
          kind: "string",
        });
      }
    } else if (field.repeated) {
      out.push({ ...node, kind: "array" });
      (v as unknown[]).forEach((item, i) => {
        const t = field.resolvedType as protobuf.Type;
        out.push({
          parent: v as unknown[],
          key: i,
          kind: "message",
          type: t,
          field,
        });
        walk(t, item as Record<string, unknown>, out);
      });
    } else if (field.resolvedType && "fields" in field.resolvedType) {
      const t = field.resolvedType as protobuf.Type;
      out.push({ ...node, kind: "message", type: t });
      walk(t, v as Record<string, unknown>, out);
    } else if (field.resolvedType) {
      out.push({ ...node, kind: "enum" });
    } else if (field.type === "string") {
      out.push({ ...node, kind: "string" });
    } else if (field.type === "bool") {
      out.push({ ...node, kind: "bool" });
    } else if (field.type === "uint32") {
      out.push({ ...node, kind: "uint" });
    } else {
      out.push({ ...node, kind: "int" });
    }
  }
  return out;
}

const WRONG_TYPES: Record<Node["kind"], unknown[]> = {
  string: [123, true, false, 0, 1.5, {}, [], ["a"], { a: "b" }],
  int: ["abc", true, {}, [], 1.5, "1.5", "0x10", "", " 1 2", "1e3", [1]],
  uint: ["abc", false, {}, [], 2.5, "2.5", "", "NaN", "Infinity", [2]],
  enum: [true, {}, [], 1.5, ["DEV"], { DEV: 0 }],
  bool: ["true", 1, 0, {}, [], "yes", "false"],
  message: ["x", 1, true, [], [{}], 0],
  map: ["x", 1, true, [], [["a", "b"]]],
  array: [{}, "x", 1, true, { 0: {} }],
};

/** Sets `value` as an own property, even "__proto__". */
function put(
  parent: Record<string, unknown> | unknown[],
  key: string | number,
  value: unknown,
): void {
  Object.defineProperty(parent, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/** JSON text in which each raw marker string is replaced by its raw text. */
class RawJson {
  readonly #raw = new Map<string, string>();
  marker(text: string): string {
    const marker = `\u0001raw${this.#raw.size}\u0001`;
    this.#raw.set(marker, text);
    return marker;
  }
  stringify(value: unknown): string {
    let text = JSON.stringify(value);
    for (const [marker, raw] of this.#raw) {
      text = text.replace(JSON.stringify(marker), raw);
    }
    return text;
  }
}

function deepJson(rng: Rng): string {
  const depth = rng.pick([64, 1_000, 10_000, 10_000, 100_000]);
  return rng.chance(0.5)
    ? "[".repeat(depth) + "]".repeat(depth)
    : '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
}

/** One bad create request: a valid body with one mistake in it. */
function badCreate(rng: Rng, kind: Kind, schema: protobuf.Root): Fuzzed {
  const spec = CREATE[kind];
  const type = schema.lookupType(spec.type);
  const name = `fz-${rng.string(6, LOWER)}`;
  const body = kind === "create-cluster"
    ? baseCluster(name)
    : baseTemplate(name);
  const nodes = walk(type, body, []);
  const raw = new RawJson();
  let namespace = NS;
  let category: string;
  /** Whether the mistake survives encoding as a protobuf message. */
  let grpcable = false;
  let headers: Record<string, string> = { "content-type": "application/json" };
  let text: string | Uint8Array<ArrayBuffer> | undefined;

  const pick = (kinds: Node["kind"][], test?: (n: Node) => boolean) => {
    const found = nodes.filter((n) =>
      kinds.includes(n.kind) && (!test || test(n))
    );
    return found.length ? rng.pick(found) : undefined;
  };
  // Oversized bodies (3 MiB each) are rare: they cost time, not coverage.
  let choice = rng.int(13);
  if (choice >= 12) choice++;
  if (rng.chance(0.004)) choice = 12;
  /** A message object of the body, the body itself included. */
  const someMessage = (): Record<string, unknown> => {
    const messages = nodes.filter((n) => n.kind === "message");
    if (messages.length === 0 || rng.chance(0.3)) return body;
    const n = rng.pick(messages);
    return (n.parent as Record<string | number, unknown>)[n.key] as Record<
      string,
      unknown
    >;
  };
  switch (choice) {
    case 0: {
      category = "wrong type";
      const node = rng.pick(nodes);
      put(node.parent, node.key, rng.pick(WRONG_TYPES[node.kind]));
      break;
    }
    case 1: {
      category = "huge number";
      const node = pick(["int", "uint"])!;
      const value = rng.pick([
        -1,
        2 ** 32,
        2 ** 53,
        2 ** 64,
        1e21,
        -(2 ** 31) - 1,
        raw.marker("1e400"),
        raw.marker("-1e400"),
        raw.marker("123456789012345678901234567890"),
        raw.marker("1.0000000000000001e10"),
        "99999999999999999999",
      ]);
      put(node.parent, node.key, value);
      grpcable = value === -1 && node.kind === "int";
      break;
    }
    case 2: {
      category = "deep nesting";
      const deep = raw.marker(deepJson(rng));
      const where = rng.int(3);
      if (where === 0) {
        text = raw.stringify(deep);
      } else if (where === 1) {
        const node = rng.pick(nodes);
        put(node.parent, node.key, deep);
      } else {
        put(someMessage(), "zzDeep", deep);
      }
      break;
    }
    case 3: {
      category = "unknown field";
      const messages = nodes.filter((n) => n.kind === "message");
      let holder = { object: body, type };
      if (messages.length > 0 && rng.chance(0.7)) {
        const n = rng.pick(messages);
        holder = {
          object: (n.parent as Record<string | number, unknown>)[
            n.key
          ] as Record<string, unknown>,
          type: n.type!,
        };
      }
      let key = rng.chance(0.7)
        ? rng.pick(UNKNOWN_KEYS)
        : rng.string(1 + rng.int(20), PRINTABLE);
      const known = (k: string) =>
        holder.type.fieldsArray.some((f) =>
          k === f.name || k === snake(f.name) ||
          k === (f as { jsonName?: string }).jsonName
        );
      while (known(key)) key += "x";
      put(holder.object, key, rng.pick([1, "x", {}, [], null, true]));
      break;
    }
    case 4: {
      category = "bad enum value";
      if (kind === "create-template") {
        // Templates have no enum field: a name where a number belongs.
        put(body, rng.pick(["cpu", "memory", "gpu"]), rng.pick(["TWO", "DEV"]));
      } else if (rng.chance(0.2)) {
        const head =
          (body.clusterSpec as Record<string, Record<string, unknown>>)
            .headGroupSpec;
        head.serviceType = rng.pick([
          "nodeport",
          "NodePorts",
          "External",
          " ClusterIP",
        ]);
        grpcable = true;
      } else {
        const node = pick(["enum"])!;
        const value = rng.pick(BAD_ENUM_VALUES);
        put(node.parent, node.key, value);
        grpcable = typeof value === "number" && Number.isInteger(value) &&
          value < 2 ** 31;
      }
      break;
    }
    case 5: {
      category = "bad name";
      if (kind === "create-cluster") {
        const cluster = body as Record<string, unknown>;
        const spec = cluster.clusterSpec as Record<string, unknown>;
        const worker = (spec.workerGroupSpec as Record<string, unknown>[])[0];
        const volume = ((spec.headGroupSpec as Record<string, unknown>)
          .volumes as Record<string, unknown>[])[0];
        switch (rng.int(7)) {
          case 0:
            cluster.name = rng.chance(0.2)
              ? "c".repeat(54 + rng.int(200))
              : rng.chance(0.2)
              ? `1${name}`
              : badName(rng);
            break;
          case 1:
            cluster.user = rng.chance(0.2) ? "" : rng.pick(BAD_USERS);
            break;
          case 2:
            cluster.version = badLabel(rng);
            break;
          case 3:
            worker.groupName = rng.chance(0.2)
              ? "g".repeat(64 + rng.int(100))
              : badName(rng);
            break;
          case 4:
            volume.name = badName(rng);
            break;
          case 5:
            worker.computeTemplate = rng.chance(0.2)
              ? "t".repeat(64 + rng.int(100))
              : badName(rng);
            if (worker.computeTemplate === "") worker.computeTemplate = "T";
            break;
          default:
            namespace = badName(rng);
        }
      } else if (rng.chance(0.7)) {
        body.name = rng.chance(0.2)
          ? "t".repeat(64 + rng.int(190))
          : badName(rng);
      } else {
        namespace = badName(rng);
      }
      grpcable = true;
      break;
    }
    case 6: {
      category = "missing required field";
      if (kind === "create-cluster") {
        const spec = body.clusterSpec as Record<string, unknown>;
        const worker = (spec.workerGroupSpec as Record<string, unknown>[])[0];
        const volume =
          ((worker.volumes as Record<string, unknown>[])[0]) as Record<
            string,
            unknown
          >;
        const [holder, key] = rng.pick<[Record<string, unknown>, string]>([
          [body, "name"],
          [body, "user"],
          [body, "clusterSpec"],
          [body, "version"],
          [spec, "headGroupSpec"],
          [worker, "groupName"],
          [volume, "name"],
          [volume, "mountPath"],
          [volume, "source"],
        ]);
        delete holder[key];
      } else {
        delete body[rng.pick(["name", "cpu", "memory"])];
      }
      grpcable = true;
      break;
    }
    case 7: {
      category = "inconsistent values";
      if (kind === "create-cluster") {
        const spec = body.clusterSpec as Record<string, unknown>;
        const head = spec.headGroupSpec as Record<string, unknown>;
        const worker = (spec.workerGroupSpec as Record<string, unknown>[])[0];
        const volume = (worker.volumes as Record<string, unknown>[])[0];
        switch (rng.int(11)) {
          case 0:
            worker.minReplicas = 3;
            break;
          case 1:
            worker.maxReplicas = 1;
            break;
          case 2:
            spec.workerGroupSpec = [worker, { ...worker }];
            break;
          case 3:
            head.volumes = [
              ...(head.volumes as unknown[]),
              { ...(head.volumes as Record<string, unknown>[])[0] },
            ];
            break;
          case 4:
            volume.mountPath = "relative/path";
            break;
          case 5:
            volume.source = rng.pick(["var/log", "/var/../etc", ""]);
            break;
          case 6:
            body.envs = {
              [rng.pick(["MY_POD_IP", "1ABC", "A B", "", "A=B"])]: "1",
            };
            break;
          case 7:
            head.engineStartParams = { [rng.pick(["", " ", "\t"])]: "1" };
            break;
          case 8:
            body.namespace = rng.pick(["team-b", "default", "Team-A"]);
            break;
          case 9:
            head.image = rng.pick(["ray project/ray", "ray\n", " ray"]);
            break;
          default:
            worker.replicas = -1 - rng.int(100);
        }
      } else {
        switch (rng.int(4)) {
          case 0:
            body.cpu = 0;
            break;
          case 1:
            body.memory = 0;
            break;
          case 2:
            body.gpuAccelerator = rng.pick([
              "gpu",
              "kubernetes.io/gpu",
              "nvidia.com/",
              "/gpu",
              "Nvidia.com/gpu",
              "requests.nvidia.com/gpu",
            ]);
            break;
          default:
            body.namespace = rng.pick(["team-b", "default"]);
        }
      }
      grpcable = true;
      break;
    }
    case 8: {
      category = "duplicate field";
      // A two-word field, given in both spellings.
      const node = rng.pick(
        nodes.filter((n) =>
          n.field && typeof n.key === "string" && snake(n.key) !== n.key
        ),
      );
      const parent = node.parent as Record<string, unknown>;
      put(parent, snake(node.key as string), parent[node.key as string]);
      break;
    }
    case 9: {
      category = "not JSON";
      text = rng.pick([
        () => "{",
        () => '{"name":',
        () => "[1,2",
        () => "nul",
        () => "{'name':'x'}",
        () => '{name: "x"}',
        () => "\ufeff{}",
        () => "{}garbage",
        () => "NaN",
        () => "Infinity",
        () => "undefined",
        () => '{"a":1,}',
        () => '"unterminated',
        () => rng.string(1 + rng.int(200), PRINTABLE),
        () => JSON.stringify(body).slice(0, 1 + rng.int(40)),
        () => rng.bytes(1 + rng.int(300)),
        () => new Uint8Array([0xc3, 0x28, 0x7b, 0x7d]),
        () => new Uint8Array([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]),
      ])();
      break;
    }
    case 10: {
      category = "not an object";
      text = rng.pick([
        "[]",
        "[{}]",
        '"cluster"',
        "42",
        "-0",
        "true",
        "false",
        "null",
        "",
        "   ",
        "{}",
        JSON.stringify([body]),
      ]);
      break;
    }
    case 11: {
      category = "wrong content type";
      const [type, payload] = rng.pick<
        [string, string | Uint8Array<ArrayBuffer>]
      >([
        ["application/x-www-form-urlencoded", `name=${name}&cpu=2&memory=4`],
        [
          "multipart/form-data; boundary=xyz",
          `--xyz\r\nContent-Disposition: form-data; name="name"\r\n\r\n${name}\r\n--xyz--\r\n`,
        ],
        ["application/xml", `<cluster><name>${name}</name></cluster>`],
        ["text/plain", `name: ${name}\ncpu: 2\n`],
        ["application/yaml", `name: ${name}\nuser: ada\n`],
        [
          "application/x-protobuf",
          new Uint8Array([0x0a, 0x04, ...new TextEncoder().encode("blue")]),
        ],
        [
          "application/json; charset=utf-16",
          new Uint8Array(
            [...`{"name":"${name}"}`].flatMap((c) => [c.charCodeAt(0), 0]),
          ),
        ],
      ]);
      headers = { "content-type": type };
      text = payload;
      break;
    }
    case 12: {
      category = "oversized body";
      if (rng.chance(0.3)) {
        put(body, "name", "x".repeat(MAX_BODY_BYTES + rng.int(1000)));
      } else {
        text = " ".repeat(MAX_BODY_BYTES - 10 + rng.int(100)) +
          JSON.stringify(body);
      }
      break;
    }
    default: {
      category = "unknown query parameter";
      const query = queryString(rng);
      return {
        category,
        method: "POST",
        target: `${spec.path(NS)}?${query}`,
        headers,
        body: JSON.stringify(body),
      };
    }
  }
  if (text === undefined) text = raw.stringify(body);
  if (category === "oversized body" && text.length <= MAX_BODY_BYTES) {
    text = " ".repeat(MAX_BODY_BYTES) + text;
  }
  return {
    category,
    method: "POST",
    target: spec.path(pathSegment(namespace)),
    headers,
    body: text,
    grpc: grpcable
      ? { rpc: spec.rpc, request: { namespace, [spec.field]: body } }
      : undefined,
  };
}

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A path segment for a value; "." and ".." would be resolved away. */
function pathSegment(value: string): string {
  if (value === "%ZZ" || value === "%" || value === "a%2Fb") return value;
  try {
    return encodeURIComponent(value);
  } catch {
    // A lone surrogate: its bytes, which are not UTF-8.
    return "%ED%A0%80";
  }
}

function queryString(rng: Rng): string {
  const parts: string[] = [];
  const n = 1 + rng.int(3);
  for (let i = 0; i < n; i++) {
    const key = rng.pick([
      "watch",
      "labelSelector",
      "name",
      "namespace",
      "limit", // Kubernetes's name; Corral's is pageSize
      "fields",
      "x",
      "",
      "%ZZ",
      rng.string(1 + rng.int(10), LOWER),
    ]);
    parts.push(
      `${key}=${encodeURIComponent(rng.string(rng.int(10), PRINTABLE))}`,
    );
  }
  return parts.join("&");
}

/** Names of objects and namespaces that are invalid in a path. */
function badPathName(rng: Rng): string {
  let value = badName(rng);
  // "." and ".." are resolved by URL parsing, "%2e%2e" too.
  while (value === "." || value === ".." || value === "%2e%2e") {
    value = badName(rng);
  }
  return value;
}

function badRead(rng: Rng): Fuzzed {
  switch (rng.int(5)) {
    case 0: {
      // Get or delete with a bad name or namespace.
      const object = rng.pick(OBJECTS);
      const method = rng.pick(["GET", "DELETE"] as const);
      let namespace = NS;
      let name = "blue";
      if (rng.chance(0.6)) name = badPathName(rng);
      else namespace = badPathName(rng);
      return {
        category: "bad name in path",
        method,
        target: object.path(pathSegment(namespace), pathSegment(name)),
        grpc: { rpc: object.rpcs[method], request: { namespace, name } },
      };
    }
    case 1: {
      const list = rng.pick(LISTS);
      const namespace = badPathName(rng);
      return {
        category: "bad namespace in path",
        method: "GET",
        target: list.path(pathSegment(namespace)),
        grpc: { rpc: list.rpc, request: { namespace } },
      };
    }
    case 2: {
      const target = rng.pick(VALID_TARGETS);
      // HEAD is served wherever GET is.
      const method = rng.pick(
        ODD_METHODS.filter((m) =>
          !target.methods.includes(m) &&
          !(m === "HEAD" && target.methods.includes("GET"))
        ),
      );
      return {
        category: "odd method",
        method,
        target: target.path,
        body: method === "HEAD" || method === "GET" || rng.chance(0.5)
          ? undefined
          : JSON.stringify(baseTemplate("odd")),
      };
    }
    case 3: {
      const target = rng.pick(VALID_TARGETS);
      const method = rng.pick(target.methods);
      return {
        category: "unknown query parameter",
        method,
        target: `${target.path}?${queryString(rng)}`,
        body: method === "POST"
          ? JSON.stringify(
            target.path.includes("clusters")
              ? baseCluster("q")
              : baseTemplate("q"),
          )
          : undefined,
      };
    }
    default: {
      let target: string;
      if (rng.chance(0.7)) {
        target = rng.pick(ODD_PATHS);
      } else if (rng.chance(0.9)) {
        const segments = Array.from(
          { length: 1 + rng.int(8) },
          () => encodeURIComponent(rng.string(1 + rng.int(12), PRINTABLE)),
        );
        target = `/${segments.join("/")}`;
      } else {
        target = "/apis" + "/x".repeat(1 + rng.int(20_000));
      }
      return {
        category: "unknown path",
        method: rng.pick(["GET", "POST", "DELETE", "PUT", "PATCH"]),
        target,
        body: undefined,
      };
    }
  }
}

function generate(rng: Rng, schema: protobuf.Root): Fuzzed {
  const fuzzed = rng.chance(0.65)
    ? badCreate(
      rng,
      rng.chance(0.6) ? "create-cluster" : "create-template",
      schema,
    )
    : badRead(rng);
  if (rng.chance(0.2)) {
    fuzzed.headers = {
      ...fuzzed.headers,
      "x-request-id": rng.string(rng.int(300), PRINTABLE),
    };
  }
  return fuzzed;
}

function toRequest(fuzzed: Fuzzed): Request {
  return new Request(`http://corral.test${fuzzed.target}`, {
    method: fuzzed.method,
    headers: fuzzed.headers,
    body: fuzzed.body,
  });
}

function describe(fuzzed: Fuzzed): string {
  const body = typeof fuzzed.body === "string"
    ? fuzzed.body.slice(0, 300)
    : fuzzed.body
    ? `<${fuzzed.body.length} bytes>`
    : "";
  return `[${fuzzed.category}] ${fuzzed.method} ${
    fuzzed.target.slice(0, 200)
  } ${JSON.stringify(fuzzed.headers ?? {})} ${body}`;
}

// ---------------------------------------------------------------------------
// What is in Kubernetes

interface Snapshot {
  [key: string]: string;
}

/** Every RayCluster and ConfigMap on the stand-in: kind/ns/name -> uid@rv. */
async function snapshot(kubeUrl: string): Promise<Snapshot> {
  const out: Snapshot = {};
  for (const path of ["/apis/ray.io/v1/rayclusters", "/api/v1/configmaps"]) {
    const response = await fetch(kubeUrl + path);
    assert.equal(response.status, 200, path);
    const list = await response.json();
    for (const item of list.items) {
      const m = item.metadata;
      out[`${path}/${m.namespace}/${m.name}`] = `${m.uid}@${m.resourceVersion}`;
    }
  }
  return out;
}

async function createFixtures(corral: Corral): Promise<void> {
  for (
    const [path, body] of [
      [`/apis/v1/namespaces/${NS}/compute_templates`, baseTemplate("small")],
      [`/apis/v1/namespaces/${NS}/compute_templates`, baseTemplate("fixture")],
      [`/apis/v1alpha2/namespaces/${NS}/clusters`, baseCluster("blue")],
    ] as const
  ) {
    const response = await corral.gateway(
      new Request(`http://corral.test${path}`, {
        method: "POST",
        body: JSON.stringify(body),
        headers: { "content-type": "application/json" },
      }),
    );
    const text = await response.text();
    assert.equal(response.status, 200, text);
  }
}

/**
 * FUZZ_SEED when set (an integer; anything else fails the run rather than
 * quietly fuzzing with another seed), else one drawn from the clock; printed
 * once, before any test runs.
 */
function fuzzSeed(): number {
  const given = Deno.env.get("FUZZ_SEED");
  const seed = given === undefined ? Date.now() % 2 ** 31 : Number(given);
  if (given?.trim() === "" || !Number.isSafeInteger(seed)) {
    throw new Error(
      `Cannot fuzz: FUZZ_SEED ${JSON.stringify(given)} is not an integer`,
    );
  }
  console.log(
    given === undefined
      ? `fuzz_test.ts: FUZZ_SEED=${seed} (drawn for this run; set it to replay)`
      : `fuzz_test.ts: FUZZ_SEED=${seed} (given)`,
  );
  return seed;
}

interface Recorder {
  calls: KubernetesCallRecord[];
  errors: string[];
}

async function withCorral(
  fn: (corral: Corral, recorder: Recorder) => Promise<void>,
): Promise<void> {
  const recorder: Recorder = { calls: [], errors: [] };
  const corral = await startCorral({
    log: createLogger({
      level: "error",
      write: (line) => recorder.errors.push(line),
    }),
    onKubernetesCall: (record) => recorder.calls.push(record),
  });
  try {
    await fn(corral, recorder);
  } catch (error) {
    // Whatever failed, the seed that replays it is in the first line.
    throw new Error(`Fuzzing failed: FUZZ_SEED=${SEED} replays the run`, {
      cause: error,
    });
  } finally {
    await corral.close();
  }
}

function assertNoWrites(recorder: Recorder, since: number, seed: number) {
  const writes = recorder.calls.slice(since).filter((c) =>
    c.verb !== "get" && c.verb !== "list"
  );
  assert.deepEqual(
    writes,
    [],
    `Kubernetes writes were attempted (FUZZ_SEED=${seed})`,
  );
  assert.deepEqual(
    recorder.errors,
    [],
    `errors were logged (FUZZ_SEED=${seed})`,
  );
}

// ---------------------------------------------------------------------------
// HTTP

Deno.test(`the gateway answers ${HTTP_COUNT} generated bad requests with 4xx {code, message} and writes nothing (FUZZ_SEED=${SEED})`, async () => {
  await withCorral(async (corral, recorder) => {
    await createFixtures(corral);
    const before = await snapshot(corral.kubeUrl);
    const since = recorder.calls.length;
    const rng = new Rng(SEED);
    const failures: string[] = [];
    const categories = new Map<string, number>();
    for (let i = 0; i < HTTP_COUNT && failures.length < 10; i++) {
      const fuzzed = generate(rng, corral.schema.root);
      categories.set(
        fuzzed.category,
        (categories.get(fuzzed.category) ?? 0) + 1,
      );
      let problem: string | undefined;
      let response: Response;
      try {
        response = await corral.gateway(toRequest(fuzzed));
      } catch (error) {
        failures.push(`#${i} threw ${error}: ${describe(fuzzed)}`);
        continue;
      }
      const text = await response.text();
      let body: { code?: unknown; message?: unknown; details?: unknown };
      try {
        body = JSON.parse(text);
      } catch {
        body = {};
      }
      const status = response.status;
      if (status < 400 || status > 499) {
        problem = `status ${status}`;
      } else if (
        !response.headers.get("content-type")?.startsWith("application/json")
      ) {
        problem = `content-type ${response.headers.get("content-type")}`;
      } else if (
        typeof body.code !== "number" || body.code < 1 || body.code > 16
      ) {
        problem = "no code";
      } else if (typeof body.message !== "string" || body.message === "") {
        problem = "no message";
      } else if (
        body.details !== undefined && !Array.isArray(body.details)
      ) {
        problem = "details not an array";
      } else if (
        !(status === 405 && body.code === 12) &&
        !(status === 413 && body.code === 8) &&
        !(status === 415 && body.code === 3) &&
        status !== httpStatus(body.code as Code)
      ) {
        problem = `status ${status} does not match code ${body.code}`;
      } else if (!response.headers.get("x-request-id")) {
        problem = "no x-request-id";
      }
      if (problem) {
        failures.push(
          `#${i} ${problem}: ${describe(fuzzed)}\n    -> ${status} ${
            text.slice(0, 300)
          }`,
        );
      }
    }
    assert.deepEqual(
      failures,
      [],
      `FUZZ_SEED=${SEED}: ${failures.length} bad answer(s):\n${
        failures.join("\n")
      }`,
    );
    assert.deepEqual(
      await snapshot(corral.kubeUrl),
      before,
      `FUZZ_SEED=${SEED}: Kubernetes changed`,
    );
    assertNoWrites(recorder, since, SEED);
    // Every kind of mistake was tried.
    if (HTTP_COUNT >= 5_000) {
      assert.ok(categories.size >= 18, JSON.stringify([...categories]));
    }
  });
});

// ---------------------------------------------------------------------------
// gRPC

interface GrpcFuzzed {
  category: string;
  rpc: string;
  bytes: Uint8Array;
  /** Decodes as a message: the server may find it valid (a read only). */
  mayBeValid?: boolean;
}

const METHODS = [
  "proto.ClusterService/CreateCluster",
  "proto.ClusterService/GetCluster",
  "proto.ClusterService/ListCluster",
  "proto.ClusterService/DeleteCluster",
  "proto.ComputeTemplateService/CreateComputeTemplate",
  "proto.ComputeTemplateService/GetComputeTemplate",
  "proto.ComputeTemplateService/ListComputeTemplates",
  "proto.ComputeTemplateService/DeleteComputeTemplate",
];

function requestType(schema: protobuf.Root, rpc: string): protobuf.Type {
  const [service, method] = rpc.split("/");
  const m = schema.lookupService(service).methods[method];
  m.resolve();
  return m.resolvedRequestType!;
}

/** A valid request of each method, the material for malformations. */
function validRequest(rpc: string): Record<string, unknown> {
  if (rpc.endsWith("/CreateCluster")) {
    return { namespace: NS, cluster: baseCluster("fz-valid") };
  }
  if (rpc.endsWith("/CreateComputeTemplate")) {
    return { namespace: NS, computeTemplate: baseTemplate("fz-valid") };
  }
  if (rpc.includes("/List")) return { namespace: NS };
  return { namespace: NS, name: "fz-missing" };
}

function encode(
  schema: protobuf.Root,
  rpc: string,
  request: Record<string, unknown>,
): Uint8Array {
  const type = requestType(schema, rpc);
  return type.encode(type.fromObject(request)).finish();
}

function badMessage(rng: Rng, schema: protobuf.Root): GrpcFuzzed {
  const rpc = rng.pick(METHODS);
  const valid = encode(schema, rpc, validRequest(rpc));
  switch (rng.int(5)) {
    case 0: {
      const bytes = rng.bytes(rng.int(300));
      let mayBeValid = true;
      try {
        requestType(schema, rpc).decode(bytes);
      } catch {
        mayBeValid = false;
      }
      return { category: "random bytes", rpc, bytes, mayBeValid };
    }
    case 1: {
      return {
        category: "truncated message",
        rpc,
        bytes: valid.slice(0, 1 + rng.int(valid.length - 1)),
      };
    }
    case 2: {
      // A field whose wire type does not match its declaration is an
      // unknown field to protobuf (skipped): only wire formats no parser
      // can accept are malformed.
      const [tail, atEnd] = rng.pick<[number[], boolean]>([
        // Unknown field 15 with wire type 7 or 6, which do not exist.
        [[0x7f, 0x01], false],
        [[0x7e], false],
        // An unknown group that never ends.
        [[0x7b, 0x08, 0x01], false],
        // Field 1 length-delimited, longer than the message.
        [[0x0a, 0xff, 0xff, 0x03], false],
        // Field 2 length-delimited, 4 GiB long.
        [[0x12, 0xff, 0xff, 0xff, 0xff, 0x0f], false],
        // A varint cut short.
        [[0x10, 0xff, 0xff], true],
        // A tag cut short.
        [[0xff], true],
      ]);
      const bytes = atEnd || rng.chance(0.5)
        ? new Uint8Array([...valid, ...tail])
        : new Uint8Array([...tail, ...valid]);
      return { category: "wrong wire type", rpc, bytes };
    }
    case 3: {
      const number = rng.pick([6, 7, 99, -1, 2 ** 31 - 1, -(2 ** 31)]);
      const request = validRequest("proto.ClusterService/CreateCluster");
      const cluster = request.cluster as Record<string, unknown>;
      const spec = cluster.clusterSpec as Record<string, unknown>;
      const worker = (spec.workerGroupSpec as Record<string, unknown>[])[0];
      const volume = (worker.volumes as Record<string, unknown>[])[0];
      switch (rng.int(4)) {
        case 0:
          cluster.environment = number;
          break;
        case 1:
          volume.volumeType = number;
          break;
        case 2:
          volume.hostPathType = number;
          break;
        default:
          volume.mountPropagationMode = number;
      }
      return {
        category: "invalid enum number",
        rpc: "proto.ClusterService/CreateCluster",
        bytes: encode(schema, "proto.ClusterService/CreateCluster", request),
      };
    }
    default: {
      // A message of valid fields, invalid values: the HTTP generator's.
      let fuzzed: Fuzzed;
      do fuzzed = generate(rng, schema); while (!fuzzed.grpc);
      return {
        category: `${fuzzed.category} (as HTTP)`,
        rpc: fuzzed.grpc.rpc,
        bytes: encode(schema, fuzzed.grpc.rpc, fuzzed.grpc.request),
      };
    }
  }
}

Deno.test(`the gRPC server answers generated malformed messages with a caller's error and keeps serving (FUZZ_SEED=${SEED})`, async () => {
  await withCorral(async (corral, recorder) => {
    await createFixtures(corral);
    const before = await snapshot(corral.kubeUrl);
    const since = recorder.calls.length;
    const rng = new Rng(SEED ^ 0x5bd1e995);
    const failures: string[] = [];
    const categories = new Map<string, number>();
    const cases: GrpcFuzzed[] = Array.from(
      { length: 2_500 },
      () => badMessage(rng, corral.schema.root),
    );
    for (let i = 0; i < 4; i++) {
      cases.push({
        category: "oversized message",
        rpc: rng.pick(METHODS),
        bytes: rng.bytes(MAX_BODY_BYTES + 1 + rng.int(1000)),
      });
    }
    for (const [i, c] of cases.entries()) {
      if (failures.length >= 10) break;
      categories.set(c.category, (categories.get(c.category) ?? 0) + 1);
      const outcome = await corral.grpc.callRaw(c.rpc, c.bytes);
      const internal = outcome.code === 13 || outcome.code === 2;
      const accepted = outcome.code === 0 &&
        (!c.mayBeValid || !/\/(Get|List)/.test(c.rpc));
      const oversizeMissed = c.category === "oversized message" &&
        outcome.code !== 8;
      if (internal || accepted || oversizeMissed) {
        failures.push(
          `#${i} [${c.category}] ${c.rpc} ${c.bytes.length} bytes ${
            Array.from(c.bytes.slice(0, 40), (b) =>
              b.toString(16).padStart(2, "0")).join("")
          } -> ${outcome.code} ${outcome.message.slice(0, 200)}`,
        );
      }
    }
    assert.deepEqual(
      failures,
      [],
      `FUZZ_SEED=${SEED}: ${failures.length} bad answer(s):\n${
        failures.join("\n")
      }`,
    );
    assert.ok(categories.size >= 6, JSON.stringify([...categories]));

    // Still serving, on both transports.
    const list = await corral.grpc.call(
      "proto.ClusterService/ListAllClusters",
      {},
    );
    assert.equal(list.code, 0, list.message);
    assert.deepEqual(
      (list.result!.clusters as { name: string }[]).map((c) => c.name),
      ["blue"],
    );
    const get = await corral.gateway(
      new Request(
        `http://corral.test/apis/v1alpha2/namespaces/${NS}/clusters/blue`,
      ),
    );
    assert.equal(get.status, 200);
    await get.body?.cancel();
    assert.deepEqual(
      await snapshot(corral.kubeUrl),
      before,
      `FUZZ_SEED=${SEED}: Kubernetes changed`,
    );
    assertNoWrites(recorder, since, SEED);
  });
});
