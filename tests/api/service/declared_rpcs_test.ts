/**
 * Every RPC is a declared unit: its row in the policy table decides who
 * may call it, before any handler runs. Over every method of the schema
 * (not a list kept here, so a new RPC is covered the day it is added), on
 * both transports, with handlers that only count their calls.
 */
import assert from "node:assert/strict";
import type { Access } from "../../../api/auth/access.ts";
import { createAuthenticator } from "../../../api/auth/authenticate.ts";
import {
  policyOf,
  RESOURCES,
  type Rule,
  VERBS,
} from "../../../api/auth/policy.ts";
import { createGrpcServer } from "../../../api/grpc/server.ts";
import { createGateway } from "../../../api/http/gateway.ts";
import { silentLogger } from "../../../api/log.ts";
import { loadApiSchema, methodKey } from "../../../api/schema.ts";
import { createDispatcher } from "../../../api/service/dispatcher.ts";
import {
  declareRpcs,
  RPC_RULES,
  type RpcRule,
} from "../../../api/service/rpcs.ts";
import {
  bindFreePort,
  type Corral,
  schema,
  TRANSPORTS,
} from "../../harness.ts";
import { grpcCaller } from "../grpc/client.ts";
import { probeHandlers } from "./probe_handlers.ts";
import { Code, ServiceError } from "../../../domain/errors.ts";
import { allow, ruleOf, users } from "../auth/policy_fixtures.ts";

const NAMESPACE = "team-a";
const TOKEN = "Bearer alice-0123456789abcdef0123456789abcdef";

/** alice, for her token; no one else. */
function accessWith(rules: Rule[]): Access {
  return {
    authenticator: createAuthenticator([{
      name: "token-file",
      authenticate: (token) =>
        Promise.resolve(
          `Bearer ${token}` === TOKEN
            ? { user: "alice", groups: [], authenticator: "token-file" }
            : undefined,
        ),
    }]),
    policy: policyOf(rules),
    audit: { record() {}, async close() {} },
    async close() {},
  };
}

/** Rules granting alice every verb on every resource in team-a, but one. */
function everythingBut(verb: string, resource: string): Rule[] {
  return VERBS.flatMap((v) =>
    RESOURCES.filter((r) => v !== verb || r !== resource).map((r) =>
      ruleOf(allow(users("alice"), [NAMESPACE], [r], [v], {
        allowHostPath: true,
      }))
    )
  );
}

/** A Corral whose handlers are probes; the gateway and a real gRPC client. */
async function probeCorral(access: Access) {
  const api = await schema();
  const probe = probeHandlers();
  const dispatcher = createDispatcher({
    schema: api,
    handlers: probe.handlers,
    access,
    log: silentLogger(),
  });
  const server = createGrpcServer({ schema: api, dispatcher });
  const port = await bindFreePort(server);
  const client = grpcCaller(api, `127.0.0.1:${port}`);
  const corral = {
    schema: api,
    gateway: createGateway({ schema: api, dispatcher }),
    grpc: client,
    kubeUrl: "",
    async close() {
      client.close();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    },
  } satisfies Corral;
  return { corral, calls: probe.calls };
}

/** A request each transport can carry, naming team-a and an object "x". */
function requestFor(rpc: string): Record<string, unknown> {
  const rule: RpcRule = (RPC_RULES as Record<string, RpcRule>)[rpc];
  const request: Record<string, unknown> = rule.namespace === "all"
    ? {}
    : { namespace: NAMESPACE };
  if (rule.name === "name") request.name = "x";
  if (rule.name === "clustername") request.clustername = "x";
  if (rule.name?.includes(".")) {
    request[rule.name.split(".")[0]] = { name: "x" };
  }
  return request;
}

Deno.test("every RPC of the schema: a caller whose rules grant all but its verb on its resource gets 403 code 7 on both transports, and no handler runs", async (t) => {
  const api = await schema();
  const methods = api.services.flatMap((s) => s.methodsArray).map(methodKey);
  assert.ok(methods.length >= 12, `${methods.length} methods`);
  for (const rpc of methods) {
    const rule = (RPC_RULES as Record<string, RpcRule>)[rpc];
    assert.ok(rule, `${rpc} has a row in RPC_RULES`);
    await t.step(`${rpc} (${rule.verb} ${rule.resource})`, async () => {
      const { corral, calls } = await probeCorral(
        accessWith(everythingBut(rule.verb, rule.resource)),
      );
      try {
        for (const [transport, call] of TRANSPORTS) {
          const got = await call(corral, rpc, requestFor(rpc), {
            authorization: TOKEN,
          });
          assert.equal(got.code, 7, `${transport}: ${got.message}`);
          assert.match(
            got.message,
            new RegExp(`user "alice" may (not )?${rule.verb} ${rule.resource}`),
            transport,
          );
        }
        assert.deepEqual([...calls], [], "handlers run");
      } finally {
        await corral.close();
      }
    });
  }
});

Deno.test("every RPC of the schema: the same caller allowed its verb reaches its handler, once per call, on both transports", async (t) => {
  const api = await schema();
  // "*" does not imply proxy (job submission's verb): it is named.
  const all = [
    ruleOf(allow(users("alice"), [NAMESPACE], ["*"], ["*", "proxy"], {
      allowHostPath: true,
    })),
  ];
  const { corral, calls } = await probeCorral(accessWith(all));
  try {
    for (const service of api.services) {
      for (const method of service.methodsArray) {
        const rpc = methodKey(method);
        await t.step(rpc, async () => {
          for (const [transport, call] of TRANSPORTS) {
            const got = await call(corral, rpc, requestFor(rpc), {
              authorization: TOKEN,
            });
            // The probe answers UNIMPLEMENTED: the chain let the call through.
            assert.equal(got.code, 12, `${transport}: ${got.message}`);
          }
          assert.equal(calls.get(rpc), 2);
        });
      }
    }
  } finally {
    await corral.close();
  }
});

Deno.test("declareRpcs() refuses to start with an RPC that has no row in the policy table, naming it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const proto = `${dir}/extra.proto`;
    await Deno.writeTextFile(
      proto,
      `syntax = "proto3";
package proto;
message PingRequest { string namespace = 1; }
message PingResponse {}
service ExtraService {
  rpc Ping(PingRequest) returns (PingResponse);
}
`,
    );
    const extra = await loadApiSchema([proto]);
    assert.throws(
      () => declareRpcs(extra, probeHandlers().handlers),
      /RPC proto\.ExtraService\/Ping has no row in the policy table/,
    );
    assert.throws(
      () =>
        createDispatcher({
          schema: extra,
          handlers: probeHandlers().handlers,
          access: accessWith([]),
          log: silentLogger(),
        }),
      /proto\.ExtraService\/Ping has no row/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("declareRpcs() declares every method of the API with its row, and streaming from the proto", async () => {
  const declarations = declareRpcs(await schema(), probeHandlers().handlers);
  assert.deepEqual(
    [...declarations.keys()].sort(),
    Object.keys(RPC_RULES).sort(),
  );
  for (const [key, declaration] of declarations) {
    assert.equal(
      declaration.rule,
      (RPC_RULES as Record<string, RpcRule>)[key],
      key,
    );
    assert.equal(
      declaration.streaming,
      key.endsWith("/WatchClusters") || key.endsWith("/WatchRayJobs") ||
        key.endsWith("/WatchJobLog") || key.endsWith("/WatchRayJobLog"),
      key,
    );
  }
});

Deno.test("a call's Kubernetes signal aborts once the call has ended, with CANCELLED: one asked for during the call, one asked for after it, one joined to the caller's", async () => {
  const probe = probeHandlers();
  const seen: AbortSignal[] = [];
  let late: (() => AbortSignal) | undefined;
  probe.handlers["proto.ClusterService/GetCluster"] = (_request, call) => {
    seen.push(call.kube.signal!);
    late = () => call.kube.signal!;
    return Promise.reject(new ServiceError(Code.NOT_FOUND, "none here"));
  };
  const dispatcher = createDispatcher({
    schema: await schema(),
    handlers: probe.handlers,
    access: accessWith(everythingBut("none", "none")),
    log: silentLogger(),
  });
  const caller = new AbortController();
  const call = (signal?: AbortSignal) =>
    dispatcher.invoke(
      {
        transport: "http",
        key: "proto.ClusterService/GetCluster",
        requestId: "r",
        authorization: TOKEN,
      },
      () => ({ namespace: NAMESPACE, name: "a" }),
      signal,
    );
  const { error } = await call();
  assert.equal(error?.code, Code.NOT_FOUND);
  const [during] = seen;
  assert.equal(during.aborted, true);
  assert.equal((during.reason as ServiceError).code, Code.CANCELLED);
  const after = late!();
  assert.equal(after.aborted, true);
  assert.equal((after.reason as ServiceError).code, Code.CANCELLED);
  await call(caller.signal);
  assert.equal(seen[1].aborted, true, "joined with the caller's, ended");
  assert.equal(caller.signal.aborted, false, "the caller's own is left");
});
