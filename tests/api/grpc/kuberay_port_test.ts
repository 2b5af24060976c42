/**
 * The second gRPC port (--kuberay-grpc-port) of main.ts in embedded mode,
 * called as KubeRay's current stubs call it: protobufjs over @grpc/grpc-js
 * with proto/kuberay/'s messages. Its calls reach the API's handlers through
 * the same chain as the main port's: credentials, policy, the same answers
 * and errors as HTTP, the audit trail; a field number KubeRay's messages
 * do not have is refused. (Every field of every kind round-trips in
 * tests/grpc_stubs_round_trip_test.ts; a field of KubeRay's that Corral
 * keeps nowhere is refused by name in kuberay_codec_test.ts.)
 */
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { loadApiSchema, loadKubeRaySchema } from "../../../api/schema.ts";
import type { Message } from "../../../domain/message_form.ts";
import {
  ALICE,
  auditLines,
  bearer,
  CAROL,
  writeAccessFiles,
} from "../auth/access_fixtures.ts";
import { DEV_PERMISSIONS, EMBEDDED, startMain } from "../../main_process.ts";
import { grpcCaller, type GrpcOutcome } from "./client.ts";
import { discoveryClient } from "./discovery_client.ts";

const NS = "team-a";
const TEMPLATE = "small";

function as(person: typeof ALICE): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set("authorization", bearer(person));
  return metadata;
}

function cluster(name: string, extra: Message = {}): Message {
  return {
    name,
    namespace: NS,
    user: "alice",
    version: "2.9.0",
    clusterSpec: {
      headGroupSpec: {
        computeTemplate: TEMPLATE,
        rayStartParams: { "dashboard-host": "0.0.0.0" },
      },
      workerGroupSpec: [{
        groupName: "workers",
        computeTemplate: TEMPLATE,
        replicas: 1,
        maxReplicas: 2,
      }],
    },
    ...extra,
  };
}

/** The code and message of an HTTP answer, as gRPC's. */
async function viaHttp(
  url: string,
  body: unknown,
  person: typeof ALICE,
): Promise<{ code: number; message: string }> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      authorization: bearer(person),
      "content-type": "application/json",
    },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  return response.ok
    ? { code: 0, message: "" }
    : { code: answer.code, message: answer.message };
}

function codeAndMessage(outcome: GrpcOutcome) {
  return { code: outcome.code, message: outcome.message };
}

Deno.test("the KubeRay gRPC port serves KubeRay's current messages through Corral's chain", async (t) => {
  const files = await writeAccessFiles();
  const main = await startMain({
    args: [
      ...EMBEDDED,
      "--kuberay-grpc-port",
      "0",
      "--token-auth-file",
      files.tokenFile,
      "--authorization-policy-file",
      files.policyFile,
      "--audit-log-path",
      files.auditLog,
      "--auth-failure-rate=0",
    ],
    permissions: DEV_PERMISSIONS,
    startTimeoutMs: 30_000,
  });
  const kuberay = grpcCaller(
    await loadKubeRaySchema(),
    `127.0.0.1:${main.started.kuberayGrpcPort}`,
  );
  const api = grpcCaller(await loadApiSchema(), main.grpc);
  try {
    await t.step(
      "a call without credentials is UNAUTHENTICATED, with them served",
      async () => {
        const list = { namespace: NS };
        const anonymous = await kuberay.call(
          "proto.ClusterService/ListCluster",
          list,
        );
        assert.equal(anonymous.code, grpc.status.UNAUTHENTICATED);
        assert.deepEqual(
          codeAndMessage(anonymous),
          codeAndMessage(
            await api.call("proto.ClusterService/ListCluster", list),
          ),
        );
        const alice = await kuberay.call(
          "proto.ClusterService/ListCluster",
          list,
          as(ALICE),
        );
        assert.equal(alice.code, 0, alice.message);
      },
    );

    await t.step("the policy decides as on the main port", async () => {
      const request = {
        namespace: NS,
        computeTemplate: { name: TEMPLATE, namespace: NS, cpu: 1, memory: 2 },
      };
      const key = "proto.ComputeTemplateService/CreateComputeTemplate";
      const carol = await kuberay.call(key, request, as(CAROL));
      assert.equal(carol.code, grpc.status.PERMISSION_DENIED);
      assert.deepEqual(
        codeAndMessage(carol),
        codeAndMessage(await api.call(key, request, as(CAROL))),
      );
      const alice = await kuberay.call(key, request, as(ALICE));
      assert.equal(alice.code, 0, alice.message);
      assert.equal(alice.result?.name, TEMPLATE);
    });

    await t.step(
      "a field number KubeRay's message does not have is refused by number",
      async () => {
        // GetClusterRequest{name: "x" (1), namespace: "team-a" (2)} and a
        // varint field 99.
        const bytes = new Uint8Array([
          ...[0x0a, 0x01, 0x78],
          ...[0x12, 0x06, ...new TextEncoder().encode(NS)],
          ...[0x98, 0x06, 0x01],
        ]);
        const got = await kuberay.callRaw(
          "proto.ClusterService/GetCluster",
          bytes,
          as(ALICE),
        );
        assert.equal(got.code, grpc.status.INVALID_ARGUMENT, got.message);
        assert.match(
          got.message,
          /#99: unknown field number 99 of message proto\.GetClusterRequest/,
        );
      },
    );

    await t.step(
      "a bad request gets the code and message HTTP gives it",
      async () => {
        const bad = cluster("Not_A_Name");
        const grpcAnswer = await kuberay.call(
          "proto.ClusterService/CreateCluster",
          { namespace: NS, cluster: bad },
          as(ALICE),
        );
        assert.equal(grpcAnswer.code, grpc.status.INVALID_ARGUMENT);
        assert.deepEqual(
          codeAndMessage(grpcAnswer),
          await viaHttp(
            `${main.http}/apis/v1/namespaces/${NS}/clusters`,
            bad,
            ALICE,
          ),
        );
      },
    );

    await t.step("lists page with KubeRay's limit and continue", async () => {
      for (const name of ["page-a", "page-b"]) {
        const created = await kuberay.call(
          "proto.ClusterService/CreateCluster",
          {
            namespace: NS,
            cluster: cluster(name),
          },
          as(ALICE),
        );
        assert.equal(created.code, 0, created.message);
        const spec = created.result?.clusterSpec as Message;
        assert.deepEqual(
          (spec.headGroupSpec as Message).rayStartParams,
          { "dashboard-host": "0.0.0.0" },
        );
      }
      const first = await kuberay.call(
        "proto.ClusterService/ListCluster",
        { namespace: NS, limit: 1 },
        as(ALICE),
      );
      assert.equal(first.code, 0, first.message);
      assert.equal((first.result?.clusters as Message[]).length, 1);
      assert.notEqual(first.result?.continue, "");
      const rest = await kuberay.call(
        "proto.ClusterService/ListCluster",
        { namespace: NS, limit: 1, continue: first.result?.continue },
        as(ALICE),
      );
      assert.equal(rest.code, 0, rest.message);
      const names = [first, rest].flatMap((page) =>
        (page.result?.clusters as Message[]).map((c) => c.name)
      );
      assert.deepEqual(names.sort(), ["page-a", "page-b"]);
    });

    await t.step(
      "reflection describes KubeRay's services and numbering",
      async () => {
        const discovery = await discoveryClient(
          `127.0.0.1:${main.started.kuberayGrpcPort}`,
          (await loadApiSchema()).root,
        );
        try {
          assert.deepEqual((await discovery.listServices()).sort(), [
            "proto.ClusterService",
            "proto.ComputeTemplateService",
            "proto.RayJobService",
            "proto.RayServeService",
          ]);
          const files = await discovery.fileContainingSymbol(
            "proto.HeadGroupSpec",
          );
          const head = files.flatMap((f) =>
            (f.messageType ?? []) as {
              name: string;
              field: { name: string; number: number }[];
            }[]
          ).find((m) => m.name === "HeadGroupSpec");
          const startParams = head?.field.find((f) =>
            f.name === "ray_start_params"
          );
          assert.equal(startParams?.number, 5);
        } finally {
          discovery.close();
        }
      },
    );

    await t.step(
      "its writes and refusals are audited as gRPC calls",
      async () => {
        const lines = await auditLines(files.auditLog);
        const creates = lines.filter((l) =>
          l.verb === "create" && l.resource === "clusters" && l.code === 0
        );
        assert.equal(creates.length, 2, JSON.stringify(lines));
        for (const line of creates) {
          assert.equal(line.transport, "grpc");
          assert.equal(line.user, "alice");
        }
      },
    );
  } finally {
    kuberay.close();
    api.close();
    await main.stop();
    await files.remove();
  }
});
