/**
 * The acceptance of the faithful stand-in, end to end: main.ts in dev mode
 * with the operator's real CRD (`deno task dev -- --crd <path>`), every
 * cluster shape of the spec created through Corral's HTTP API and accepted
 * by the stand-in's schema validation, then kubectl pointed at the
 * kubeconfig Corral wrote lists, shows, watches and deletes what Corral
 * created. The kubectl steps run when kubectl is on PATH.
 */
import assert from "node:assert/strict";
import {
  type ClusterInput,
  NAMESPACE,
  RAY_CRD,
  SHAPES,
  TEMPLATES,
} from "./cluster_shapes.ts";
import { until } from "../eventually.ts";
import { DEV_PERMISSIONS, startMain } from "../main_process.ts";
import { hasKubectl, kubectlCommand, kubectlIn } from "../standin/kubectl.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

async function call(
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

Deno.test("dev mode with the KubeRay CRD: every cluster shape is accepted; kubectl lists, shows, watches and deletes it", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "corral-dev-crd-" });
  const kubeconfig = `${dir}/kubeconfig`;
  // As `deno task dev -- ...` runs it, the "--" included.
  const corral = await startMain({
    permissions: DEV_PERMISSIONS,
    args: [
      "--orchestrator",
      "embedded",
      "--host",
      "127.0.0.1",
      "--",
      "--http-port",
      "0",
      "--grpc-port",
      "0",
      "--operator-delay",
      "200ms",
      "--write-kubeconfig",
      kubeconfig,
      "--crd",
      RAY_CRD,
    ],
  });
  const clusters =
    `${corral.http}/apis/v1alpha2/namespaces/${NAMESPACE}/clusters`;
  const kubectl = kubectlIn(kubeconfig, dir);
  const withKubectl = { ignore: !hasKubectl() };
  try {
    assert.ok(
      corral.logs.some((l) => l.includes('"Installed CRDs into the stand-in"')),
      corral.logs.join("\n"),
    );

    await t.step(
      "every cluster shape of the spec is created through Corral",
      async () => {
        for (const template of TEMPLATES) {
          const made = await call(
            "POST",
            `${corral.http}/apis/v1/namespaces/${NAMESPACE}/compute_templates`,
            template,
          );
          assert.equal(made.status, 200, JSON.stringify(made.body));
        }
        for (const [shape, input] of Object.entries(SHAPES)) {
          const made = await call("POST", clusters, input);
          assert.equal(
            made.status,
            200,
            `${shape}: ${JSON.stringify(made.body)}`,
          );
          const got = await call("GET", `${clusters}/${input.name}`);
          assert.equal(got.status, 200);
          assertSameInput(got.body, input);
        }
      },
    );

    await t.step({
      name: "kubectl get rayclusters -A lists them",
      ...withKubectl,
      fn: async () => {
        const listed = await kubectl("get", "rayclusters", "-A");
        assert.match(listed, /^NAMESPACE\s+NAME\s/m);
        for (const input of Object.values(SHAPES)) {
          assert.match(
            listed,
            new RegExp(`^${NAMESPACE}\\s+${input.name}\\s`, "m"),
          );
        }
      },
    });

    await t.step({
      name: "kubectl get raycluster NAME -o yaml shows one",
      ...withKubectl,
      fn: async () => {
        const yaml = await kubectl(
          "get",
          "raycluster",
          "gpu",
          "-n",
          NAMESPACE,
          "-o",
          "yaml",
        );
        assert.match(yaml, /^kind: RayCluster$/m);
        assert.match(
          yaml,
          /^ {4}app\.kubernetes\.io\/managed-by: kuberay-apiserver$/m,
        );
        assert.match(yaml, /^ {2}rayVersion: 2\.9\.0$/m);
        assert.match(yaml, /nvidia\.com\/gpu: "1"/);
        assert.match(yaml, /amd\.com\/gpu: "2"/);
      },
    });

    await t.step({
      name:
        "kubectl get configmaps -l ray.io/config-type=compute-template lists the templates",
      ...withKubectl,
      fn: async () => {
        const names = await kubectl(
          "get",
          "configmaps",
          "-A",
          "-l",
          "ray.io/config-type=compute-template",
          "-o",
          "name",
        );
        assert.deepEqual(
          names.trim().split("\n").sort(),
          TEMPLATES.map((tpl) => `configmap/${tpl.name}`).sort(),
        );
      },
    });

    await t.step({
      name: "kubectl get rayclusters -w sees a deletion through Corral",
      ...withKubectl,
      fn: async () => {
        const watching = kubectlCommand(kubeconfig, dir, [
          "get",
          "rayclusters",
          "-n",
          NAMESPACE,
          "-w",
          "--output-watch-events",
          "--request-timeout=3s",
        ], { stdout: "piped", stderr: "piped" }).spawn();
        let stdout = "";
        const decoder = new TextDecoder();
        const reading = (async () => {
          for await (const chunk of watching.stdout) {
            stdout += decoder.decode(chunk, { stream: true });
          }
        })();
        const stderr = new Response(watching.stderr).text();
        // Listed: kubectl watches on from the list's resourceVersion, so the
        // deletion reaches it whenever its watch request goes out.
        await until(
          "kubectl to list head-only",
          () => /^ADDED\s+head-only\s/m.test(stdout),
        );
        const deleted = await call("DELETE", `${clusters}/head-only`);
        assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
        const status = await watching.status;
        await reading;
        assert.ok(status.success, await stderr);
        assert.match(stdout, /^EVENT\s+NAME\s/m);
        assert.match(stdout, /^ADDED\s+several-groups\s/m);
        assert.match(stdout, /^DELETED\s+head-only\s/m);
      },
    });

    await t.step({
      name: "kubectl delete raycluster NAME deletes what Corral created",
      ...withKubectl,
      fn: async () => {
        const out = await kubectl(
          "delete",
          "raycluster",
          "envs",
          "-n",
          NAMESPACE,
        );
        assert.match(out, /raycluster\.ray\.io "envs" deleted/);
        const gone = await call("GET", `${clusters}/envs`);
        assert.equal(gone.status, 404);
        assert.equal(gone.body.code, 5);
      },
    });
  } finally {
    const status = await corral.stop();
    await Deno.remove(dir, { recursive: true });
    assert.equal(status.code, 0, corral.logs.join("\n"));
  }
});

/** The cluster Corral answers has the fields it was created with. */
function assertSameInput(got: Json, input: ClusterInput): void {
  assert.equal(got.name, input.name);
  assert.equal(got.user, input.user);
  assert.equal(got.version, input.version);
  assert.deepEqual(got.envs, input.envs);
  const head = input.clusterSpec.headGroupSpec!;
  assert.equal(
    got.clusterSpec.headGroupSpec.computeTemplate,
    head.computeTemplate,
  );
  assert.deepEqual(
    got.clusterSpec.headGroupSpec.engineStartParams,
    head.engineStartParams,
  );
  assert.deepEqual(got.clusterSpec.headGroupSpec.volumes, head.volumes);
  assert.deepEqual(
    got.clusterSpec.workerGroupSpec.map((w: Json) => ({
      groupName: w.groupName,
      replicas: w.replicas,
      volumes: w.volumes,
    })),
    input.clusterSpec.workerGroupSpec.map((w) => ({
      groupName: w.groupName,
      replicas: w.replicas,
      volumes: w.volumes,
    })),
  );
}
