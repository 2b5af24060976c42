/**
 * The handlers of each resource, called as the dispatcher calls them (a
 * decoded request and a call context with its scope), with no listener and
 * no dispatcher: what each does once a call is authorized. Kubernetes is
 * the stand-in, over HTTP.
 */
import assert from "node:assert/strict";
import * as k8s from "@kubernetes/client-node";
import { callerOf } from "../../../api/auth/caller.ts";
import type { Identity } from "../../../api/auth/identity.ts";
import { policyOf } from "../../../api/auth/policy.ts";
import { silentLogger } from "../../../api/log.ts";
import { ClusterHandlers } from "../../../api/service/clusters.ts";
import { ComputeTemplateHandlers } from "../../../api/service/compute_templates.ts";
import type {
  CallContext,
  NamespaceScope,
  NamespacesScope,
} from "../../../api/service/rpcs.ts";
import { serviceOf } from "../../../api/service/service.ts";
import { WatchHandlers } from "../../../api/service/watch.ts";
import { messageFromJson } from "../../../domain/codec.ts";
import type { Message } from "../../../domain/message_form.ts";
import {
  Code,
  type FieldViolation,
  ServiceError,
} from "../../../domain/errors.ts";
import type { Cluster, ComputeTemplate } from "../../../domain/types.ts";
import { createKubernetesOrchestrator } from "../../../orchestrator/mod.ts";
import { kubeconfigFor, startStandin } from "../../../standin/mod.ts";
import { schema } from "../../harness.ts";
import { NS, sampleCluster } from "../cases.ts";
import { allowAll, ruleOf, users } from "../auth/policy_fixtures.ts";

const ALICE: Identity = {
  user: "alice",
  groups: ["system:authenticated"],
  authenticator: "token-file",
};

const RULES = [ruleOf(allowAll(users("alice"), [NS]))];

/** The context of a call the dispatcher let through in team-a. */
function inNamespace(action: string): CallContext<NamespaceScope> {
  return {
    log: silentLogger(),
    kube: {},
    caller: callerOf(ALICE, policyOf(RULES)),
    scope: { kind: "namespace", namespace: NS, rules: RULES },
    action,
  };
}

function acrossNamespaces(action: string): CallContext<NamespacesScope> {
  return {
    ...inNamespace(action),
    scope: { kind: "namespaces", namespaces: [NS] },
  };
}

/** A message of `type` from its proto3 JSON. */
async function message<T>(type: string, json: unknown): Promise<T> {
  const violations: FieldViolation[] = [];
  const decoded: Message = messageFromJson(
    (await schema()).root.lookupType(type),
    json,
    "",
    violations,
  );
  assert.deepEqual(violations, []);
  return decoded as T;
}

async function withHandlers(
  fn: (handlers: {
    clusters: ClusterHandlers;
    templates: ComputeTemplateHandlers;
  }) => Promise<void>,
): Promise<void> {
  const standin = await startStandin({ hostname: "127.0.0.1", port: 0 });
  const kubeConfig = new k8s.KubeConfig();
  kubeConfig.loadFromString(kubeconfigFor(standin.url));
  const service = serviceOf({
    orchestrator: createKubernetesOrchestrator({ kubeConfig }),
    clusterApiVersion: "ray.io/v1",
  });
  try {
    await fn({
      clusters: new ClusterHandlers(service),
      templates: new ComputeTemplateHandlers(service),
    });
  } finally {
    await standin.close();
  }
}

async function assertCode(promise: Promise<unknown>, code: Code) {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof ServiceError, String(error));
    assert.equal(error.code, code, error.message);
    return true;
  });
}

const SMALL = { name: "small", namespace: NS, cpu: 1, memory: 2, gpu: 0 };

Deno.test("ComputeTemplateHandlers create, get, list and delete a template in the scope's namespace", async () => {
  await withHandlers(async ({ templates }) => {
    const computeTemplate = await message<ComputeTemplate>(
      "proto.ComputeTemplate",
      { ...SMALL, namespace: "" },
    );
    const created = await templates.createComputeTemplate(
      { namespace: NS, computeTemplate },
      inNamespace('Cannot create compute template "team-a/small"'),
    );
    assert.equal(created.namespace, NS);
    const got = await templates.getComputeTemplate(
      { namespace: NS, name: "small" },
      inNamespace('Cannot get compute template "team-a/small"'),
    );
    assert.equal(got.cpu, 1);
    const listed = await templates.listAllComputeTemplates(
      { pageSize: 0, pageToken: "" },
      acrossNamespaces("Cannot list compute templates"),
    );
    assert.deepEqual(listed.computeTemplates.map((t) => t.name), ["small"]);
    await templates.deleteComputeTemplate(
      { namespace: NS, name: "small" },
      inNamespace('Cannot delete compute template "team-a/small"'),
    );
    await assertCode(
      templates.getComputeTemplate(
        { namespace: NS, name: "small" },
        inNamespace("Cannot get compute template"),
      ),
      Code.NOT_FOUND,
    );
  });
});

Deno.test("ClusterHandlers.createCluster() makes the caller the owner, refuses another owner (7) and a missing template (9), and its errors start with the call's action", async () => {
  await withHandlers(async ({ clusters, templates }) => {
    const action = 'Cannot create cluster "team-a/blue"';
    const cluster = await message<Cluster>(
      "proto.Cluster",
      sampleCluster({ name: "blue", user: "" }),
    );
    await assert.rejects(
      clusters.createCluster({ namespace: NS, cluster }, inNamespace(action)),
      (error: ServiceError) => {
        assert.equal(error.code, Code.FAILED_PRECONDITION, error.message);
        assert.ok(error.message.startsWith(action), error.message);
        return true;
      },
    );
    await assertCode(
      clusters.createCluster(
        { namespace: NS, cluster: { ...cluster, user: "bob" } },
        inNamespace(action),
      ),
      Code.PERMISSION_DENIED,
    );
    for (const name of new Set(templateNames(cluster))) {
      await templates.createComputeTemplate(
        {
          namespace: NS,
          computeTemplate: await message("proto.ComputeTemplate", {
            ...SMALL,
            name,
          }),
        },
        inNamespace("Cannot create compute template"),
      );
    }
    const created = await clusters.createCluster(
      { namespace: NS, cluster },
      inNamespace(action),
    );
    assert.equal(created.user, "alice");
    const got = await clusters.getCluster(
      { namespace: NS, name: "blue" },
      inNamespace('Cannot get cluster "team-a/blue"'),
    );
    assert.equal(got.name, "blue");
    const page = await clusters.listCluster(
      { namespace: NS, pageSize: 0, pageToken: "", continue: "", limit: 0 },
      inNamespace('Cannot list clusters in namespace "team-a"'),
    );
    assert.deepEqual(page.clusters.map((c) => c.name), ["blue"]);
    await clusters.deleteCluster(
      { namespace: NS, name: "blue" },
      inNamespace('Cannot delete cluster "team-a/blue"'),
    );
  });
});

Deno.test("ClusterHandlers.updateCluster() refuses a stale etag with ABORTED and a missing cluster with NOT_FOUND in the update's words", async () => {
  await withHandlers(async ({ clusters }) => {
    const action = 'Cannot update cluster "team-a/gone"';
    const update = {
      namespace: NS,
      name: "gone",
      cluster: await message<Cluster>("proto.Cluster", { envs: { A: "1" } }),
      updateMask: { paths: ["envs"] },
    };
    await assert.rejects(
      clusters.updateCluster(update, inNamespace(action)),
      (error: ServiceError) => {
        assert.equal(error.code, Code.NOT_FOUND);
        assert.equal(error.message, `${action}: not found`);
        return true;
      },
    );
  });
});

Deno.test("WatchHandlers refuses a watch without the cache (12) and a name filter that is no name (3)", async () => {
  const watch = new WatchHandlers(undefined);
  const call = inNamespace('Cannot watch clusters in namespace "team-a"');
  await assertCode(
    watch.watchClusters({ namespace: NS, name: "", resourceVersion: "" }, call),
    Code.UNIMPLEMENTED,
  );
  await assertCode(
    watch.watchClusters(
      { namespace: NS, name: "No/Name", resourceVersion: "" },
      call,
    ),
    Code.INVALID_ARGUMENT,
  );
});

function templateNames(cluster: Cluster): string[] {
  return [
    cluster.clusterSpec?.headGroupSpec?.computeTemplate ?? "",
    ...(cluster.clusterSpec?.workerGroupSpec ?? []).map((g) =>
      g.computeTemplate
    ),
  ].filter((name) => name !== "");
}
