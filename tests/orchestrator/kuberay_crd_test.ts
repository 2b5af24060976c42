/**
 * What Corral's orchestrator writes, under the operator's real RayCluster CRD
 * (a vendored copy in testdata) installed into the Kubernetes API stand-in:
 * every cluster shape is valid and loses no field, unknown fields are pruned
 * as a real server prunes them, and a 422 becomes INVALID_ARGUMENT.
 */
import { send } from "../standin/requests.ts";
import assert from "node:assert/strict";
import { KubeConfig } from "@kubernetes/client-node";
import { clusterToResource } from "../../domain/conversions.ts";
import { Code, ServiceError } from "../../domain/errors.ts";
import type { RayCluster } from "../../domain/resources.ts";
import { createKubernetesOrchestrator } from "../../orchestrator/mod.ts";
import { kubeconfigFor } from "../../standin/mod.ts";
import {
  asCluster,
  leaves,
  NAMESPACE,
  RAY_CRD,
  SHAPES,
  TEMPLATES,
} from "./cluster_shapes.ts";
import { withStandin } from "../standin/with_standin.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const RC = `/apis/ray.io/v1/namespaces/${NAMESPACE}/rayclusters`;

// ---------------------------------------------------------------------------
// The KubeRay CRD and what Corral writes

Deno.test("with the KubeRay CRD, every cluster shape Corral writes is valid and loses no field", async (t) => {
  const templates = new Map(TEMPLATES.map((tpl) => [tpl.name, tpl]));
  await withStandin(async (standin) => {
    for (const [shape, input] of Object.entries(SHAPES)) {
      await t.step(shape, async () => {
        const written = clusterToResource(asCluster(input), templates, {
          apiVersion: "ray.io/v1",
          now: new Date("2024-05-01T10:00:00Z"),
        });
        const answer = await send(
          standin,
          "POST",
          `${RC}?fieldValidation=Strict`,
          written,
        );
        assert.equal(answer.status, 201, JSON.stringify(answer.body));
        assert.deepEqual(answer.warnings, []);
        const stored = new Map(leaves(answer.body));
        for (const [path, value] of leaves(written)) {
          assert.ok(stored.has(path), `${path} was dropped`);
          assert.deepEqual(stored.get(path), value, path);
        }
      });
    }
  }, { crds: [RAY_CRD] });
});

Deno.test("a field the KubeRay CRD does not know is pruned as a real server prunes it", async () => {
  await withStandin(async (standin) => {
    const cluster = {
      apiVersion: "ray.io/v1",
      kind: "RayCluster",
      metadata: { name: "blue", labels: { a: "b" }, extra: "x" },
      spec: {
        rayVersion: "2.9.0",
        unknownTop: { nested: 1 },
        headGroupSpec: {
          rayStartParams: { "any-key": "kept" },
          serviceType: "ClusterIP",
          notAField: true,
          template: {
            metadata: { annotations: { a: "b" }, bogus: 1 },
            spec: {
              containers: [{
                name: "ray-head",
                image: "rayproject/ray:2.9.0",
                imageFlavor: "slim",
                resources: { limits: { cpu: "1", memory: "1Gi" } },
                ports: [{ containerPort: 6379, name: "redis" }],
              }],
              nodeSelector: { disk: "ssd" },
            },
          },
        },
        workerGroupSpecs: [{
          groupName: "w",
          replicas: 1,
          rayStartParams: {},
          template: { spec: { containers: [], typo: 1 } },
        }],
      },
      status: { state: "ready" },
    };
    const answer = await send(standin, "POST", RC, cluster);
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.deepEqual(answer.warnings, [
      'unknown field "metadata.extra"',
      'unknown field "spec.headGroupSpec.notAField"',
      'unknown field "spec.headGroupSpec.template.metadata.bogus"',
      'unknown field "spec.headGroupSpec.template.spec.containers[0].imageFlavor"',
      'unknown field "spec.unknownTop"',
      'unknown field "spec.workerGroupSpecs[0].template.spec.typo"',
    ]);
    const stored = await send(standin, "GET", `${RC}/blue`);
    assert.deepEqual(stored.body.spec, {
      rayVersion: "2.9.0",
      headGroupSpec: {
        rayStartParams: { "any-key": "kept" },
        serviceType: "ClusterIP",
        template: {
          metadata: { annotations: { a: "b" } },
          spec: {
            containers: [{
              name: "ray-head",
              image: "rayproject/ray:2.9.0",
              resources: { limits: { cpu: "1", memory: "1Gi" } },
              ports: [{ containerPort: 6379, name: "redis", protocol: "TCP" }],
            }],
            nodeSelector: { disk: "ssd" },
          },
        },
      },
      workerGroupSpecs: [{
        groupName: "w",
        replicas: 1,
        rayStartParams: {},
        template: { spec: { containers: [] } },
        // The CRD's defaults, as a real server applies them.
        minReplicas: 0,
        maxReplicas: 2147483647,
        numOfHosts: 1,
        priority: 0,
      }],
    });
    assert.deepEqual(stored.body.metadata.labels, { a: "b" });
    assert.equal(stored.body.metadata.extra, undefined);
    assert.equal(stored.body.status, undefined, "status is the subresource's");
  }, { crds: [RAY_CRD] });
});

Deno.test("an invalid RayCluster gets 422 with causes, which the orchestrator maps to INVALID_ARGUMENT with the fields", async () => {
  await withStandin(async (standin) => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(kubeconfigFor(standin.url));
    const orchestrator = createKubernetesOrchestrator({ kubeConfig });
    const written = clusterToResource(
      asCluster(SHAPES["several worker groups"]),
      new Map(TEMPLATES.map((tpl) => [tpl.name, tpl])),
      { apiVersion: "ray.io/v1", now: new Date() },
    );
    const broken = structuredClone(written) as Json;
    delete broken.spec.workerGroupSpecs[0].groupName;
    broken.spec.workerGroupSpecs[1].replicas = "one";
    broken.spec.headGroupSpec.rayStartParams["num-cpus"] = 0;

    const direct = await send(standin, "POST", RC, broken);
    assert.equal(direct.status, 422);
    assert.equal(
      direct.body.message,
      'RayCluster.ray.io "several-groups" is invalid: [spec.headGroupSpec.rayStartParams.num-cpus: Invalid value: "integer": spec.headGroupSpec.rayStartParams.num-cpus in body must be of type string: "integer", spec.workerGroupSpecs[0].groupName: Required value, spec.workerGroupSpecs[1].replicas: Invalid value: "string": spec.workerGroupSpecs[1].replicas in body must be of type integer: "string"]',
    );

    let error: unknown;
    try {
      await orchestrator.clusters.create(broken as RayCluster);
    } catch (caught) {
      error = caught;
    }
    assert.ok(error instanceof ServiceError, `got ${error}`);
    assert.equal(error.code, Code.INVALID_ARGUMENT);
    assert.match(
      error.message,
      /^Cannot create cluster "team-a\/several-groups": spec\.headGroupSpec\.rayStartParams\.num-cpus: Invalid value/,
    );
    assert.deepEqual(error.fieldViolations.map((v) => v.field), [
      "spec.headGroupSpec.rayStartParams.num-cpus",
      "spec.workerGroupSpecs[0].groupName",
      "spec.workerGroupSpecs[1].replicas",
    ]);
  }, { crds: [RAY_CRD] });
});
