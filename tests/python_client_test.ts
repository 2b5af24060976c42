/**
 * Acceptance: an independent gRPC client gets the same answers as HTTP.
 *
 * main.ts runs in embedded mode on free ports. Each operation of the spec's
 * flow goes once through examples/python_client.py (Debian's python3-grpcio,
 * stubs generated from proto/ by grpc_tools) and once through fetch against
 * the HTTP gateway; the two answers must carry the same code and message and,
 * for a success, the same proto3 JSON.
 *
 * Reads and failures run against the same state through both transports, so
 * their answers must be equal as they stand. A successful write changes the
 * state, so it is made once per transport on its own resource: the gRPC one
 * named NAME, the HTTP one NAME-http; the two answers must be equal but for
 * that name and the creation time.
 *
 * Needs /usr/bin/python3 with grpc and grpc_tools
 * (apt-get install python3-grpcio python3-grpc-tools); without them the test
 * is reported as ignored, saying why.
 */
import { missingModules, PYTHON } from "./python.ts";
import assert from "node:assert/strict";
import {
  DEV_PERMISSIONS,
  EMBEDDED,
  type MainProcess,
  startMain,
} from "./main_process.ts";

const CLIENT = new URL("../examples/python_client.py", import.meta.url)
  .pathname;
const NS = "team-a";

/** One answer, whichever transport gave it. */
interface Answer {
  code: number;
  message?: string;
  /** The result of a success, as proto3 JSON. */
  body?: Record<string, unknown>;
}

/** HTTP status of each code this flow meets, as grpc-gateway maps it. */
const HTTP_STATUS: Record<number, number> = {
  0: 200,
  3: 400,
  5: 404,
  6: 409,
  9: 400,
};

/** Runs the example client; its stdout is the answer. */
async function viaPython(target: string, args: string[]): Promise<Answer> {
  const { code, stdout, stderr } = await new Deno.Command(PYTHON, {
    args: [
      CLIENT,
      "--target",
      target,
      ...args,
    ],
    stdin: "null",
  }).output();
  const out = new TextDecoder().decode(stdout);
  const err = new TextDecoder().decode(stderr);
  const context = `python_client.py ${args.join(" ")} exited with ${code}`;
  if (code === 0) return { code: 0, body: JSON.parse(out) };
  assert.equal(code, 1, `${context}:\n${out}${err}`);
  const answer = JSON.parse(out);
  assert.deepEqual(
    Object.keys(answer).sort(),
    ["code", "message"],
    `${context}: ${out}`,
  );
  return answer;
}

interface HttpCall {
  method: "GET" | "POST" | "DELETE";
  path: string;
  body?: unknown;
}

/** Calls the gateway; checks that the HTTP status fits the code. */
async function viaHttp(base: string, call: HttpCall): Promise<Answer> {
  const response = await fetch(base + call.path, {
    method: call.method,
    headers: call.body === undefined
      ? { accept: "application/json" }
      : { accept: "application/json", "content-type": "application/json" },
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
  });
  const body = await response.json();
  const code = response.ok ? 0 : body.code;
  assert.equal(
    response.status,
    HTTP_STATUS[code],
    `${call.method} ${call.path}: HTTP status of code ${code}; body ${
      JSON.stringify(body)
    }`,
  );
  return code === 0 ? { code, body } : { code, message: body.message };
}

/**
 * Python's json_format never prints a message field that is not set, even
 * when told to print fields with no presence; the gateway prints it as null
 * (docs/design.md, "Wire contract": unset timestamps are `null`). Both mean
 * "not set".
 */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => [k, withoutNulls(v)]),
    );
  }
  return value;
}

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/**
 * For a twin write: blanks the resource's name and creation time, the two
 * things that differ between the gRPC copy and the HTTP copy.
 */
function twin(body: Record<string, unknown>): Record<string, unknown> {
  const blanked = { ...body };
  if ("name" in blanked) blanked.name = "<name>";
  if ("createdAt" in blanked) {
    assert.match(String(blanked.createdAt), RFC3339, "createdAt");
    blanked.createdAt = "<time>";
  }
  if ("etag" in blanked) {
    // Twins are two objects: each has its own resourceVersion.
    assert.match(String(blanked.etag), /^\d+$/, "etag");
    blanked.etag = "<etag>";
  }
  return blanked;
}

interface Operation {
  name: string;
  python: string[];
  http: HttpCall;
  /** The code both transports must answer with. */
  code: number;
  /** The HTTP twin of a write: its request, with the name NAME-http. */
  httpTwin?: HttpCall;
}

const templatePath = `/apis/v1/namespaces/${NS}/compute_templates`;
const clusterPath = `/apis/v1alpha2/namespaces/${NS}/clusters`;

function clusterJson(name: string, template: string) {
  return {
    name,
    namespace: NS,
    user: "ada",
    version: "2.9.0",
    environment: "DEV",
    clusterSpec: {
      headGroupSpec: {
        computeTemplate: template,
        serviceType: "NodePort",
        engineStartParams: { "dashboard-host": "0.0.0.0" },
      },
      workerGroupSpec: [{
        groupName: "workers",
        computeTemplate: template,
        replicas: 2,
        minReplicas: 0,
        maxReplicas: 4,
      }],
    },
  };
}

function createTemplate(name: string): Operation {
  return {
    name: "CreateComputeTemplate creates a template",
    python: [
      "create-template",
      "-n",
      NS,
      "--name",
      name,
      "--cpu",
      "2",
      "--memory",
      "4",
    ],
    http: {
      method: "POST",
      path: templatePath,
      body: { name, namespace: NS, cpu: 2, memory: 4 },
    },
    code: 0,
  };
}

function createCluster(name: string): Operation {
  return {
    name:
      "CreateCluster creates a cluster with a head and a worker group sized by the template",
    python: [
      "create-cluster",
      "-n",
      NS,
      "--json",
      JSON.stringify(clusterJson(name, "small")),
    ],
    http: {
      method: "POST",
      path: clusterPath,
      body: clusterJson(name, "small"),
    },
    code: 0,
  };
}

/** A successful write: NAME over gRPC, its twin NAME-http over HTTP. */
function twinWrite(op: (name: string) => Operation, name: string): Operation {
  return { ...op(name), httpTwin: op(`${name}-http`).http };
}

const BEFORE_READY: Operation[] = [
  twinWrite(createTemplate, "small"),
  {
    ...createTemplate("small"),
    name: "CreateComputeTemplate refuses a duplicate name",
    code: 6,
  },
  {
    name: "CreateComputeTemplate refuses cpu 0 and memory 0",
    python: [
      "create-template",
      "-n",
      NS,
      "--name",
      "zero",
      "--cpu",
      "0",
      "--memory",
      "0",
    ],
    http: {
      method: "POST",
      path: templatePath,
      body: { name: "zero", namespace: NS, cpu: 0, memory: 0 },
    },
    code: 3,
  },
  twinWrite(createCluster, "blue"),
  {
    ...createCluster("blue"),
    name: "CreateCluster refuses a duplicate name",
    code: 6,
  },
  {
    name: "CreateCluster refuses a cluster whose template does not exist",
    python: [
      "create-cluster",
      "-n",
      NS,
      "--json",
      JSON.stringify(clusterJson("green", "huge")),
    ],
    http: {
      method: "POST",
      path: clusterPath,
      body: clusterJson("green", "huge"),
    },
    code: 9,
  },
  (() => {
    const invalid = {
      ...clusterJson("Bad_Name", "small"),
      user: "",
      clusterSpec: {
        headGroupSpec: { computeTemplate: "small" },
        workerGroupSpec: [{ computeTemplate: "small", replicas: -1 }],
      },
    };
    return {
      name: "CreateCluster refuses an invalid cluster, listing every violation",
      python: ["create-cluster", "-n", NS, "--json", JSON.stringify(invalid)],
      http: { method: "POST", path: clusterPath, body: invalid },
      code: 3,
    };
  })(),
];

const AFTER_READY: Operation[] = [
  {
    name: "GetCluster returns the ready cluster with its endpoints and events",
    python: ["get-cluster", "-n", NS, "--name", "blue"],
    http: { method: "GET", path: `${clusterPath}/blue` },
    code: 0,
  },
  {
    name: "GetCluster answers NOT_FOUND for a missing cluster",
    python: ["get-cluster", "-n", NS, "--name", "missing"],
    http: { method: "GET", path: `${clusterPath}/missing` },
    code: 5,
  },
  {
    name: "ListCluster lists the clusters of the namespace",
    python: ["list-clusters", "-n", NS],
    http: { method: "GET", path: clusterPath },
    code: 0,
  },
  {
    name: "ListCluster of an empty namespace is an empty list",
    python: ["list-clusters", "-n", "nobody"],
    http: { method: "GET", path: "/apis/v1alpha2/namespaces/nobody/clusters" },
    code: 0,
  },
  {
    name: "ListAllClusters lists the clusters of every namespace",
    python: ["list-all-clusters"],
    http: { method: "GET", path: "/apis/v1alpha2/clusters" },
    code: 0,
  },
  {
    name: "GetComputeTemplate returns the template",
    python: ["get-template", "-n", NS, "--name", "small"],
    http: { method: "GET", path: `${templatePath}/small` },
    code: 0,
  },
  {
    name: "ListComputeTemplates lists the templates of the namespace",
    python: ["list-templates", "-n", NS],
    http: { method: "GET", path: templatePath },
    code: 0,
  },
  {
    name: "ListAllComputeTemplates lists the templates of every namespace",
    python: ["list-all-templates"],
    http: { method: "GET", path: "/apis/v1/compute_templates" },
    code: 0,
  },
  {
    name: "DeleteCluster deletes the cluster",
    python: ["delete-cluster", "-n", NS, "--name", "blue"],
    http: { method: "DELETE", path: `${clusterPath}/blue` },
    httpTwin: { method: "DELETE", path: `${clusterPath}/blue-http` },
    code: 0,
  },
  {
    name: "DeleteCluster answers NOT_FOUND for a deleted cluster",
    python: ["delete-cluster", "-n", NS, "--name", "blue"],
    http: { method: "DELETE", path: `${clusterPath}/blue` },
    code: 5,
  },
  {
    name: "GetCluster answers NOT_FOUND for a deleted cluster",
    python: ["get-cluster", "-n", NS, "--name", "blue"],
    http: { method: "GET", path: `${clusterPath}/blue` },
    code: 5,
  },
  {
    name: "DeleteComputeTemplate deletes the template",
    python: ["delete-template", "-n", NS, "--name", "small"],
    http: { method: "DELETE", path: `${templatePath}/small` },
    httpTwin: { method: "DELETE", path: `${templatePath}/small-http` },
    code: 0,
  },
  {
    name: "GetComputeTemplate answers NOT_FOUND for a deleted template",
    python: ["get-template", "-n", NS, "--name", "small"],
    http: { method: "GET", path: `${templatePath}/small` },
    code: 5,
  },
  {
    name: "DeleteComputeTemplate answers NOT_FOUND for a deleted template",
    python: ["delete-template", "-n", NS, "--name", "small"],
    http: { method: "DELETE", path: `${templatePath}/small` },
    code: 5,
  },
];

/** Runs one operation through both transports and compares the answers. */
async function compare(corral: MainProcess, op: Operation): Promise<void> {
  const grpc = await viaPython(corral.grpc, op.python);
  const http = await viaHttp(corral.http, op.httpTwin ?? op.http);
  const answers = `gRPC: ${JSON.stringify(grpc)}; HTTP: ${
    JSON.stringify(http)
  }`;
  assert.equal(grpc.code, op.code, `gRPC code, want ${op.code}; ${answers}`);
  assert.equal(http.code, op.code, `HTTP code, want ${op.code}; ${answers}`);
  if (op.code !== 0) {
    assert.ok(grpc.message, `a message; ${answers}`);
    assert.equal(grpc.message, http.message, "gRPC message vs HTTP message");
    return;
  }
  const got = grpc.body!;
  const want = withoutNulls(http.body!) as Record<string, unknown>;
  assert.deepEqual(
    op.httpTwin ? twin(got) : got,
    op.httpTwin ? twin(want) : want,
    "gRPC result (actual) vs HTTP result (expected)",
  );
}

/** Polls GetCluster over HTTP until the simulated operator made it ready. */
async function waitReady(corral: MainProcess, names: string[]): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (const name of names) {
    for (;;) {
      const body = await (await fetch(`${corral.http}${clusterPath}/${name}`))
        .json();
      if (body.clusterState === "ready") break;
      if (Date.now() > deadline) {
        throw new Error(`Timed out waiting for ${name} to be ready`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

const ready = missingModules("grpc, grpc_tools") === "";

Deno.test({
  name: ready
    ? "examples/python_client.py over gRPC gets the same answers as fetch over HTTP"
    : `examples/python_client.py over gRPC gets the same answers as fetch over HTTP (ignored: ${PYTHON} cannot import grpc and grpc_tools; apt-get install python3-grpcio python3-grpc-tools)`,
  ignore: !ready,
  async fn(t) {
    const corral = await startMain({
      permissions: DEV_PERMISSIONS,
      args: EMBEDDED,
      // A main.ts that hangs before it starts is killed, and so reported.
      startTimeoutMs: 30_000,
    });
    try {
      for (const op of BEFORE_READY) {
        await t.step(op.name, () => compare(corral, op));
      }
      await waitReady(corral, ["blue", "blue-http"]);
      for (const op of AFTER_READY) {
        await t.step(op.name, () => compare(corral, op));
      }
    } finally {
      const status = await corral.stop();
      assert.equal(
        status.code,
        0,
        `main.ts exit code; logs:\n${corral.logs.join("\n")}`,
      );
    }
  },
});
