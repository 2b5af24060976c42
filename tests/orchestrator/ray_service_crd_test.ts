/**
 * What Corral writes for a service, under the operator's real RayService
 * CRD (KubeRay v1.7.0, a vendored copy in testdata) installed into the
 * Kubernetes API stand-in: with every cluster shape as its cluster, the
 * RayService is valid and loses no field; and the service reads back.
 */
import assert from "node:assert/strict";
import { serviceFromResource } from "../../domain/service_conversions.ts";
import { serviceToResource } from "../../domain/service_conversions.ts";
import type { RayService } from "../../domain/types.ts";
import { send } from "../standin/requests.ts";
import { withStandin } from "../standin/with_standin.ts";
import {
  asCluster,
  leaves,
  NAMESPACE,
  RAY_SERVICE_CRD,
  SHAPES,
  TEMPLATES,
} from "./cluster_shapes.ts";

const RS = `/apis/ray.io/v1/namespaces/${NAMESPACE}/rayservices`;

const SERVE_CONFIG = [
  "applications:",
  "  - name: fruit",
  "    import_path: fruit.deployment_graph",
  "",
].join("\n");

Deno.test("with the KubeRay RayService CRD, every cluster shape as a service's cluster is valid and loses no field", async (t) => {
  const templates = new Map(TEMPLATES.map((tpl) => [tpl.name, tpl]));
  await withStandin(async (standin) => {
    for (const [shape, input] of Object.entries(SHAPES)) {
      await t.step(shape, async () => {
        const cluster = asCluster(input);
        const service: RayService = {
          name: cluster.name,
          namespace: NAMESPACE,
          user: cluster.user,
          version: cluster.version,
          clusterSpec: cluster.clusterSpec,
          serveConfig_V2: SERVE_CONFIG,
          serviceUnhealthySecondThreshold: 0,
          deploymentUnhealthySecondThreshold: 0,
          ttl: "",
        };
        const { resource } = serviceToResource(service, templates, {
          apiVersion: "ray.io/v1",
          now: new Date("2024-05-01T10:00:00Z"),
        });
        const answer = await send(
          standin,
          "POST",
          `${RS}?fieldValidation=Strict`,
          resource,
        );
        assert.equal(answer.status, 201, JSON.stringify(answer.body));
        assert.deepEqual(answer.warnings, []);
        const stored = new Map(leaves(answer.body));
        for (const [path, value] of leaves(resource)) {
          assert.ok(stored.has(path), `${path} was dropped`);
          assert.deepEqual(stored.get(path), value, path);
        }
        const back = serviceFromResource(answer.body as never, []);
        assert.equal(back.serveConfig_V2, SERVE_CONFIG);
        assert.equal(back.user, cluster.user);
        assert.equal(back.version, cluster.version);
        // The cluster spec reads back as a cluster's does (less the
        // cluster-wide envs, which a service has not: they are its groups').
        const head = back.clusterSpec?.headGroupSpec;
        assert.equal(
          head?.computeTemplate,
          cluster.clusterSpec?.headGroupSpec?.computeTemplate,
        );
        assert.deepEqual(
          back.clusterSpec?.workerGroupSpec.map((g) => g.groupName),
          cluster.clusterSpec?.workerGroupSpec.map((g) => g.groupName),
        );
      });
    }
  }, { crds: [RAY_SERVICE_CRD] });
});
