/**
 * WatchClusters over both transports and Server-Sent Events, served from the
 * cache against the stand-in: the initial state, a create/scale/ready/
 * delete sequence in order, changes made directly in Kubernetes, resume by
 * resource version and Last-Event-ID, heartbeats, a slow consumer cut off,
 * a resume point too old, and who may watch what.
 */
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import type { Message } from "../../domain/message_form.ts";
import { Code } from "../../domain/errors.ts";
import { type Corral, startCorral, viaHttp } from "../harness.ts";
import { RAY_CRD } from "../orchestrator/cluster_shapes.ts";
import { kubeFetch } from "../standin/with_standin.ts";
import {
  ALICE,
  bearer,
  CAROL,
  fileAccess,
  type Person,
  ROOT,
} from "./auth/access_fixtures.ts";

const NS = "team-a";
const WATCH = "proto.ClusterService/WatchClusters";
const CLUSTERS = `/apis/ray.io/v1/namespaces/${NS}/rayclusters`;
type Json = Record<string, unknown>;

interface Answer {
  type: string;
  name?: string;
  state?: string;
  replicas?: number;
  resourceVersion: string;
}

function answerOf(message: Message): Answer {
  const cluster = message.cluster as Json | undefined | null;
  const workers = (cluster?.clusterSpec as Json | undefined)
    ?.workerGroupSpec as Json[] | undefined;
  return {
    type: String(message.type),
    ...(cluster ? { name: String(cluster.name) } : {}),
    ...(cluster ? { state: String(cluster.clusterState ?? "") } : {}),
    ...(workers?.[0] ? { replicas: Number(workers[0].replicas) } : {}),
    resourceVersion: String(message.resourceVersion),
  };
}

/** A watch as a test reads it, whichever transport carries it. */
interface Watch {
  /** The next answer that is not a BOOKMARK, unless `bookmarks`. */
  next(bookmarks?: boolean): Promise<Answer>;
  /** How the stream ended: the error's code and message, or 0. */
  ended(): Promise<{ code: number; message: string }>;
  close(): void;
}

/** Reads an HTTP stream: NDJSON lines, or SSE events. */
function httpWatch(response: Response, sse = false): Watch {
  assert.equal(response.status, 200);
  const reader = response.body!.pipeThrough(new TextDecoderStream())
    .getReader();
  let buffered = "";
  const separator = sse ? "\n\n" : "\n";
  let ending: { code: number; message: string } | undefined;
  async function frame(): Promise<{ json?: Json; id?: string } | undefined> {
    while (!buffered.includes(separator)) {
      const { done, value } = await reader.read();
      if (done) return undefined;
      buffered += value;
    }
    const at = buffered.indexOf(separator);
    const text = buffered.slice(0, at);
    buffered = buffered.slice(at + separator.length);
    if (!sse) return { json: JSON.parse(text) };
    const fields = Object.fromEntries(
      text.split("\n").map((line) => [
        line.slice(0, line.indexOf(":")),
        line.slice(line.indexOf(":") + 2),
      ]),
    );
    return { json: JSON.parse(fields.data), id: fields.id };
  }
  async function read(): Promise<Answer | undefined> {
    const got = await frame();
    if (got === undefined) {
      ending ??= { code: 0, message: "" };
      return undefined;
    }
    if (got.json!.error) {
      const error = got.json!.error as { code: number; message: string };
      ending = { code: error.code, message: error.message };
      return undefined;
    }
    const answer = answerOf(got.json!.result as Message);
    if (sse) assert.equal(got.id, answer.resourceVersion, "SSE id");
    return answer;
  }
  return {
    async next(bookmarks = false) {
      while (true) {
        const answer = await read();
        if (answer === undefined) throw new Error("the stream ended");
        if (bookmarks || answer.type !== "BOOKMARK") return answer;
      }
    },
    async ended() {
      while (ending === undefined) await read();
      return ending;
    },
    close: () => void reader.cancel().catch(() => {}),
  };
}

function grpcWatch(corral: Corral, request: Json, who?: Person): Watch {
  const stream = corral.grpc.stream(
    WATCH,
    { namespace: "", name: "", resourceVersion: "", ...request },
    who ? grpcMetadata(who) : undefined,
  );
  return {
    async next(bookmarks = false) {
      while (true) {
        const { done, value } = await stream.messages.next();
        if (done) throw new Error("the stream ended");
        const answer = answerOf(value);
        if (bookmarks || answer.type !== "BOOKMARK") return answer;
      }
    },
    async ended() {
      const status = await stream.status;
      return { code: status.code, message: status.message };
    },
    close: () => stream.cancel(),
  };
}

function grpcMetadata(who: Person): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set("authorization", bearer(who));
  return metadata;
}

function watchPath(request: Json): string {
  const query = new URLSearchParams();
  if (request.name) query.set("name", String(request.name));
  if (request.resourceVersion) {
    query.set("resourceVersion", String(request.resourceVersion));
  }
  const base = request.namespace
    ? `/apis/v1alpha2/watch/namespaces/${request.namespace}/clusters`
    : "/apis/v1alpha2/watch/clusters";
  return `${base}${query.size > 0 ? `?${query}` : ""}`;
}

async function httpStart(
  corral: Corral,
  request: Json,
  headers: Record<string, string> = {},
): Promise<Response> {
  return await corral.gateway(
    new Request(`http://corral.test${watchPath(request)}`, { headers }),
  );
}

const OPENERS: [
  string,
  (corral: Corral, request: Json) => Promise<Watch>,
][] = [
  ["HTTP", async (c, r) => httpWatch(await httpStart(c, r))],
  [
    "SSE",
    async (c, r) =>
      httpWatch(
        await httpStart(c, r, { accept: "text/event-stream" }),
        true,
      ),
  ],
  ["gRPC", (c, r) => Promise.resolve(grpcWatch(c, r))],
];

function cluster(name: string, replicas = 1): Json {
  return {
    name,
    namespace: NS,
    user: "ada",
    version: "2.9.0",
    clusterSpec: {
      headGroupSpec: { computeTemplate: "small" },
      workerGroupSpec: [{
        groupName: "workers",
        computeTemplate: "small",
        replicas,
        minReplicas: 0,
        maxReplicas: 8,
      }],
    },
  };
}

async function call(
  corral: Corral,
  rpc: string,
  request: Json,
  who?: Person,
): Promise<Json> {
  const outcome = await viaHttp(
    corral,
    rpc,
    request,
    who ? { authorization: bearer(who) } : {},
  );
  assert.equal(outcome.code, 0, outcome.message);
  return outcome.result!;
}

function kube(
  corral: Corral,
  method: string,
  path: string,
  body?: unknown,
): Promise<Response> {
  return kubeFetch(corral.kubeUrl, method, path, body);
}

async function withCorral(
  run: (corral: Corral) => Promise<void>,
  options: Parameters<typeof startCorral>[0] = {},
  who?: Person,
): Promise<void> {
  const corral = await startCorral({
    crds: [RAY_CRD],
    cache: {},
    ...options,
  });
  try {
    await call(corral, "proto.ComputeTemplateService/CreateComputeTemplate", {
      namespace: NS,
      computeTemplate: { name: "small", cpu: 2, memory: 4 },
    }, who);
    await run(corral);
  } finally {
    await corral.close();
  }
}

const create = (corral: Corral, name: string, replicas = 1) =>
  call(corral, "proto.ClusterService/CreateCluster", {
    namespace: NS,
    cluster: cluster(name, replicas),
  });

for (const [transport, open] of OPENERS) {
  Deno.test(`${transport}: a watch starts with the clusters as they are, then follows create, scale, ready and delete in order`, async () => {
    await withCorral(async (corral) => {
      await create(corral, "red");
      const watch = await open(corral, { namespace: NS });
      try {
        assert.deepEqual(await watch.next(), {
          type: "ADDED",
          name: "red",
          state: "",
          replicas: 1,
          resourceVersion: "",
        });
        const bookmark = await watch.next(true);
        assert.equal(bookmark.type, "BOOKMARK");
        assert.match(bookmark.resourceVersion, /^\d+$/);

        await create(corral, "blue");
        const added = await watch.next();
        assert.deepEqual([added.type, added.name], ["ADDED", "blue"]);

        await call(corral, "proto.ClusterService/UpdateCluster", {
          namespace: NS,
          name: "blue",
          cluster: { clusterSpec: cluster("blue", 3).clusterSpec },
          updateMask: "clusterSpec.workerGroupSpec",
        });
        const scaled = await watch.next();
        assert.deepEqual(
          [scaled.type, scaled.name, scaled.replicas],
          ["MODIFIED", "blue", 3],
        );

        // The operator's part, made directly in Kubernetes.
        const patched = await kube(corral, "PATCH", `${CLUSTERS}/blue/status`, {
          status: { state: "ready" },
        });
        assert.equal(patched.status, 200, await patched.text());
        const ready = await watch.next();
        assert.deepEqual(
          [ready.type, ready.name, ready.state],
          ["MODIFIED", "blue", "ready"],
        );

        await call(corral, "proto.ClusterService/DeleteCluster", {
          namespace: NS,
          name: "blue",
        });
        const deleted = await watch.next();
        assert.deepEqual([deleted.type, deleted.name], ["DELETED", "blue"]);

        const versions = [added, scaled, ready, deleted].map((a) =>
          BigInt(a.resourceVersion)
        );
        for (let i = 1; i < versions.length; i++) {
          assert.ok(versions[i] >= versions[i - 1], `${versions}`);
        }
      } finally {
        watch.close();
      }
    });
  });
}

Deno.test("an Event added in Kubernetes and a RayCluster deleted there come through as MODIFIED and DELETED", async () => {
  await withCorral(async (corral) => {
    await create(corral, "blue");
    const watch = await OPENERS[0][1](corral, {});
    try {
      assert.equal((await watch.next()).name, "blue");
      const uid = (await (await kube(corral, "GET", `${CLUSTERS}/blue`))
        .json()).metadata.uid;
      const event = await kube(
        corral,
        "POST",
        `/api/v1/namespaces/${NS}/events`,
        {
          metadata: { name: "blue.direct" },
          involvedObject: {
            kind: "RayCluster",
            name: "blue",
            namespace: NS,
            uid,
          },
          reason: "Direct",
          message: "added by another client",
          type: "Warning",
        },
      );
      assert.equal(event.status, 201, await event.text());
      const modified = await watch.next();
      assert.deepEqual([modified.type, modified.name], ["MODIFIED", "blue"]);
      const gone = await kube(corral, "DELETE", `${CLUSTERS}/blue`);
      assert.equal(gone.status, 200, await gone.text());
      const deleted = await watch.next();
      assert.deepEqual([deleted.type, deleted.name], ["DELETED", "blue"]);
    } finally {
      watch.close();
    }
  });
});

Deno.test("a watch of one name sees that cluster only", async () => {
  await withCorral(async (corral) => {
    const watch = await OPENERS[2][1](corral, { namespace: NS, name: "blue" });
    try {
      await create(corral, "red");
      await create(corral, "blue");
      const first = await watch.next();
      assert.deepEqual([first.type, first.name], ["ADDED", "blue"]);
    } finally {
      watch.close();
    }
  });
});

for (const [transport, open] of OPENERS) {
  Deno.test(`${transport}: a watch resumed from a resource version gets only what changed after it`, async () => {
    await withCorral(async (corral) => {
      await create(corral, "red");
      const first = await open(corral, { namespace: NS });
      await first.next(); // red
      const { resourceVersion } = await first.next(true); // the bookmark
      first.close();
      // Missed while disconnected.
      await create(corral, "blue");
      await create(corral, "green");
      const resumed = await open(corral, { namespace: NS, resourceVersion });
      try {
        const a = await resumed.next();
        const b = await resumed.next();
        assert.deepEqual(
          [[a.type, a.name], [b.type, b.name]],
          [["ADDED", "blue"], ["ADDED", "green"]],
          "no ADDED red: the resumed watch sends no initial state",
        );
        // Resuming from the last one it had replays nothing more.
        const again = await open(corral, {
          namespace: NS,
          resourceVersion: b.resourceVersion,
        });
        try {
          await create(corral, "yellow");
          assert.equal((await again.next()).name, "yellow");
        } finally {
          again.close();
        }
      } finally {
        resumed.close();
      }
    });
  });
}

Deno.test("SSE: a reconnecting EventSource resumes from its Last-Event-ID", async () => {
  await withCorral(async (corral) => {
    await create(corral, "red");
    const first = httpWatch(
      await httpStart(corral, { namespace: NS }, {
        accept: "text/event-stream",
      }),
      true,
    );
    await first.next();
    const { resourceVersion } = await first.next(true);
    first.close();
    await create(corral, "blue");
    const resumed = httpWatch(
      await httpStart(corral, { namespace: NS }, {
        accept: "text/event-stream",
        "last-event-id": resourceVersion,
      }),
      true,
    );
    try {
      const next = await resumed.next();
      assert.deepEqual([next.type, next.name], ["ADDED", "blue"]);
    } finally {
      resumed.close();
    }
  });
});

Deno.test("a quiet watch gets a BOOKMARK every heartbeat on every transport", async () => {
  await withCorral(async (corral) => {
    for (const [transport, open] of OPENERS) {
      const watch = await open(corral, { namespace: NS });
      try {
        const initial = await watch.next(true); // the end of the state
        assert.equal(initial.type, "BOOKMARK", transport);
        const started = performance.now();
        const heartbeat = await watch.next(true);
        assert.equal(heartbeat.type, "BOOKMARK", transport);
        assert.ok(performance.now() - started >= 100, transport);
      } finally {
        watch.close();
      }
    }
  }, { watch: { heartbeatMs: 200 } });
});

Deno.test("a resume point older than the history is code 10 telling the client to start afresh; a bad one is code 3", async () => {
  await withCorral(async (corral) => {
    const first = await OPENERS[0][1](corral, { namespace: NS });
    const { resourceVersion } = await first.next(true);
    first.close();
    for (const name of ["a1", "a2", "a3"]) await create(corral, name);
    for (const [transport, open] of OPENERS) {
      const stale = transport === "gRPC"
        ? grpcWatch(corral, { namespace: NS, resourceVersion })
        : undefined;
      if (stale) {
        assert.deepEqual((await stale.ended()).code, Code.ABORTED);
        assert.match(
          (await stale.ended()).message,
          /too old.*without a resource_version/,
        );
        continue;
      }
      const response = await httpStart(corral, {
        namespace: NS,
        resourceVersion,
      });
      assert.equal(response.status, 409, transport);
      const body = await response.json();
      assert.equal(body.code, Code.ABORTED);
      assert.match(body.message, /too old.*without a resource_version/);
      void open;
    }
    const bad = await httpStart(corral, {
      namespace: NS,
      resourceVersion: "x1",
    });
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).message, /resource_version/);
  }, { watch: { historySize: 2 } });
});

Deno.test("a consumer too slow to keep up is ended with code 8 rather than buffered", async () => {
  // HTTP: the body is not read, so nothing is pulled from the watch. (gRPC
  // writes wait for the call to drain the same way: server_stream_test.ts;
  // grpc-js clients under Deno read whatever comes, so they cannot be made
  // slow here.)
  await withCorral(async (corral) => {
    const http = httpWatch(await httpStart(corral, { namespace: NS }));
    for (let i = 0; i < 8; i++) await create(corral, `c${i}`);
    const ended = await http.ended();
    assert.equal(ended.code, Code.RESOURCE_EXHAUSTED, ended.message);
    assert.match(ended.message, /fell more than 3 changes behind/);
    assert.equal(corral.watches!.watchers, 0, "the hub let go of it");
  }, { watch: { queueLimit: 3 } });
});

Deno.test("watchers see only the namespaces they may watch; list rights are not watch rights", async () => {
  const { access } = await fileAccess();
  await withCorral(
    async (corral) => {
      await call(corral, "proto.ComputeTemplateService/CreateComputeTemplate", {
        namespace: "team-b",
        computeTemplate: { name: "small", cpu: 2, memory: 4 },
      }, ROOT);
      // Alice may watch every namespace of hers: team-a only.
      const response = await corral.gateway(
        new Request("http://corral.test/apis/v1alpha2/watch/clusters", {
          headers: { authorization: bearer(ALICE) },
        }),
      );
      const watch = httpWatch(response);
      const stream = grpcWatch(corral, {}, ALICE);
      try {
        for (const ns of ["team-b", "team-a"]) {
          await call(corral, "proto.ClusterService/CreateCluster", {
            namespace: ns,
            cluster: { ...cluster(`in-${ns}`), namespace: ns, user: "root" },
          }, ROOT);
        }
        for (const seen of [await watch.next(), await stream.next()]) {
          assert.deepEqual([seen.type, seen.name], ["ADDED", "in-team-a"]);
        }
      } finally {
        watch.close();
        stream.close();
      }
      // Another namespace by name: refused on both transports.
      const refused = await httpStart(corral, { namespace: "team-b" }, {
        authorization: bearer(ALICE),
      });
      assert.equal(refused.status, 403);
      const other = grpcWatch(corral, { namespace: "team-b" }, ALICE);
      assert.equal((await other.ended()).code, Code.PERMISSION_DENIED);
      // Carol may get and list in team-a, not watch.
      const carol = await httpStart(corral, { namespace: NS }, {
        authorization: bearer(CAROL),
      });
      assert.equal(carol.status, 403);
      assert.match((await carol.json()).message, /watch/);
      const carolAll = await httpStart(corral, {}, {
        authorization: bearer(CAROL),
      });
      assert.equal(carolAll.status, 403);
      // No credentials at all: 401, code 16, on both.
      const anonymous = await httpStart(corral, { namespace: NS });
      assert.equal(anonymous.status, 401);
      assert.equal(
        (await grpcWatch(corral, { namespace: NS }).ended()).code,
        Code.UNAUTHENTICATED,
      );
    },
    { access },
    ROOT,
  );
});

Deno.test("without the cache (--cache off) a watch is code 12 on both transports, saying why", async () => {
  const corral = await startCorral({ crds: [RAY_CRD] });
  try {
    const response = await httpStart(corral, { namespace: NS });
    assert.equal(response.status, 501);
    const body = await response.json();
    assert.equal(body.code, Code.UNIMPLEMENTED);
    assert.match(body.message, /needs the cache.*--cache off/);
    const ended = await grpcWatch(corral, { namespace: NS }).ended();
    assert.equal(ended.code, Code.UNIMPLEMENTED);
    assert.equal(ended.message, body.message);
  } finally {
    await corral.close();
  }
});

Deno.test("a watch of a name that is no cluster name is code 3 naming the field, on both transports alike", async () => {
  await withCorral(async (corral) => {
    for (const namespace of [NS, ""]) {
      const request = { namespace, name: "Not_A_Name" };
      const response = await httpStart(corral, request);
      assert.equal(response.status, 400);
      const body = await response.json();
      assert.equal(body.code, Code.INVALID_ARGUMENT);
      assert.match(body.message, /^Cannot watch clusters.*: name: /);
      assert.equal(body.details[0].fieldViolations[0].field, "name");
      const ended = await grpcWatch(corral, request).ended();
      assert.deepEqual(ended, { code: body.code, message: body.message });
    }
  });
});
