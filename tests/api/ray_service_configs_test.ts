/**
 * UpdateRayServiceConfigs, KubeRay's call of v0.6.0 to 1.0.0
 * (`PATCH .../services/{name}/configs`): named worker groups take new
 * replicas and bounds, on both transports and both paths, and what is
 * wrong is code 3 naming the field, the same on both transports.
 */
import assert from "node:assert/strict";
import { type Corral, startCorral, TRANSPORTS } from "../harness.ts";
import { NS } from "./cases.ts";
import { sampleService, SERVE_CONFIG } from "./service_cases.ts";

const RS = "proto.RayServeService";

// deno-lint-ignore no-explicit-any
type Json = any;

async function withService(
  name: string,
  run: (corral: Corral) => Promise<void>,
): Promise<void> {
  const corral = await startCorral({ cache: {} });
  try {
    const [, http] = TRANSPORTS[0];
    const template = await http(
      corral,
      "proto.ComputeTemplateService/CreateComputeTemplate",
      { namespace: NS, computeTemplate: { name: "small", cpu: 2, memory: 4 } },
    );
    assert.equal(template.code, 0, template.message);
    const created = await http(corral, `${RS}/CreateRayService`, {
      namespace: NS,
      service: sampleService(name),
    });
    assert.equal(created.code, 0, created.message);
    await run(corral);
  } finally {
    await corral.close();
  }
}

Deno.test("UpdateRayServiceConfigs changes the named worker groups' replicas and bounds on both transports, and nothing else", async () => {
  await withService("web", async (corral) => {
    for (const [transport, call] of TRANSPORTS) {
      const replicas = transport === "http" ? 2 : 3;
      const updated = await call(corral, `${RS}/UpdateRayServiceConfigs`, {
        namespace: NS,
        name: "web",
        updateService: {
          workerGroupUpdateSpec: [{
            groupName: "workers",
            replicas,
            minReplicas: 1,
            maxReplicas: 4,
          }],
        },
      });
      assert.equal(updated.code, 0, `${transport}: ${updated.message}`);
      const spec = updated.result!.clusterSpec as Json;
      assert.deepEqual(
        [
          spec.workerGroupSpec[0].replicas,
          spec.workerGroupSpec[0].minReplicas,
          spec.workerGroupSpec[0].maxReplicas,
        ],
        [replicas, 1, 4],
        transport,
      );
      assert.equal(updated.result!.serveConfigV2, SERVE_CONFIG, transport);
      const got = await call(corral, `${RS}/GetRayService`, {
        namespace: NS,
        name: "web",
      });
      assert.equal(
        (got.result!.clusterSpec as Json).workerGroupSpec[0].replicas,
        replicas,
        transport,
      );
    }
  });
});

Deno.test("UpdateRayServiceConfigs answers at KubeRay v0.6.0's path and at 1.0.0's, taking the body as KubeRay's clients spell it", async () => {
  await withService("web", async (corral) => {
    for (const [version, replicas] of [["v1alpha2", 2], ["v1", 3]] as const) {
      const response = await corral.gateway(
        new Request(
          `http://corral.test/apis/${version}/namespaces/${NS}/services/web/configs`,
          {
            method: "PATCH",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              worker_group_update_spec: [{
                group_name: "workers",
                replicas,
                min_replicas: 1,
                max_replicas: 3,
              }],
            }),
          },
        ),
      );
      const body = await response.json();
      assert.equal(response.status, 200, JSON.stringify(body));
      assert.equal(body.clusterSpec.workerGroupSpec[0].replicas, replicas);
    }
  });
});

const REFUSALS: { body: Json; field: string; description: RegExp }[] = [
  {
    body: {},
    field: "updateService",
    description: /is required: name the worker groups/,
  },
  {
    body: {
      workerGroupUpdateSpec: [{
        groupName: "workers",
        replicas: 0,
        minReplicas: 1,
        maxReplicas: 3,
      }],
    },
    field: "updateService.workerGroupUpdateSpec[0].replicas",
    description: /must be greater than 0/,
  },
  {
    body: {
      workerGroupUpdateSpec: [{
        groupName: "workers",
        replicas: 2,
        minReplicas: 3,
        maxReplicas: 2,
      }],
    },
    field: "updateService.workerGroupUpdateSpec[0].minReplicas",
    description: /must not exceed maxReplicas \(2\)/,
  },
  {
    body: {
      workerGroupUpdateSpec: [{
        groupName: "gpus",
        replicas: 1,
        minReplicas: 1,
        maxReplicas: 1,
      }],
    },
    field: "updateService.workerGroupUpdateSpec[0].groupName",
    description: /is not a worker group of service "web" \(it has "workers"\)/,
  },
  {
    body: { serveDeploymentGraphSpec: { importPath: "fruit:graph" } },
    field: "updateService.serveDeploymentGraphSpec",
    description: /Serve's first config format/,
  },
  {
    body: {
      workerGroupUpdateSpec: [{
        groupName: "workers",
        replicas: 2,
        minReplicas: 1,
        maxReplicas: 2_000,
      }],
    },
    field: "service.clusterSpec.workerGroupSpec[0].maxReplicas",
    description: /1000/,
  },
];

Deno.test("UpdateRayServiceConfigs refuses what is wrong with code 3 naming the field, the same on both transports, and changes nothing", async () => {
  await withService("web", async (corral) => {
    for (const { body, field, description } of REFUSALS) {
      const answers = [];
      for (const [transport, call] of TRANSPORTS) {
        const refused = await call(corral, `${RS}/UpdateRayServiceConfigs`, {
          namespace: NS,
          name: "web",
          updateService: body,
        });
        assert.equal(
          refused.code,
          3,
          `${transport}, ${field}: ${refused.message}`,
        );
        assert.ok(
          refused.message.includes(`${field}: `),
          `${transport}: ${refused.message} names ${field}`,
        );
        assert.match(refused.message, description);
        answers.push(refused.message);
      }
      assert.equal(answers[0], answers[1]);
    }
    const [, http] = TRANSPORTS[0];
    const got = await http(corral, `${RS}/GetRayService`, {
      namespace: NS,
      name: "web",
    });
    assert.deepEqual(
      (got.result!.clusterSpec as Json).workerGroupSpec[0].replicas,
      1,
    );
  });
});
