/**
 * domain/kuberay_grpc_json.ts: the JSON between KubeRay's current messages
 * (proto/kuberay/) and the API's, both ways, by the reflection of both.
 */
import assert from "node:assert/strict";
import protobuf from "protobufjs";
import {
  apiToKuberayJson,
  kuberayToApiJson,
} from "../../domain/kuberay_grpc_json.ts";
import type { FieldViolation } from "../../domain/errors.ts";
import { UNKNOWN_FIELD } from "../../domain/message_form.ts";
import { loadApiSchema, loadKubeRaySchema } from "../../api/schema.ts";

const api = (await loadApiSchema()).root;
const kuberay = (await loadKubeRaySchema()).root;

function toApi(type: string, json: Record<string, unknown>) {
  const violations: FieldViolation[] = [];
  const out = kuberayToApiJson(
    kuberay.lookupType(type),
    api.lookupType(type),
    json,
    "",
    violations,
  );
  return { out, violations };
}

function toKuberay(type: string, json: Record<string, unknown>) {
  return apiToKuberayJson(api.lookupType(type), kuberay.lookupType(type), json);
}

Deno.test("a group's environment passes in KubeRay's shape, which the API's reader takes there", () => {
  const environment = {
    values: { A: "1" },
    valuesFrom: { B: { source: 1, name: "s", key: "k" } },
  };
  const { out, violations } = toApi("proto.HeadGroupSpec", {
    computeTemplate: "t",
    environment,
  });
  assert.deepEqual(out, { computeTemplate: "t", environment });
  assert.deepEqual(violations, []);
});

/**
 * KubeRay's variables where an API keeps a map of them and nothing beside:
 * `Thing.envs` is KubeRay's EnvironmentVariables in `kuberayThing`, a map
 * in `apiThing`, as Corral's Cluster.envs was before it kept valuesFrom.
 */
const thing = (envs: string) =>
  protobuf.parse(`
    syntax = "proto3";
    package proto;
    message EnvValueFrom { string name = 1; }
    message EnvironmentVariables {
      map<string, string> values = 1;
      map<string, EnvValueFrom> valuesFrom = 2;
    }
    message Thing { ${envs} envs = 1; }
  `).root.resolveAll().lookupType("proto.Thing");
const kuberayThing = thing("EnvironmentVariables");
const apiThing = thing("map<string, string>");

Deno.test("variables in KubeRay's shape become an API's map; a valuesFrom it has no field for is refused by name", () => {
  const violations: FieldViolation[] = [];
  assert.deepEqual(
    kuberayToApiJson(
      kuberayThing,
      apiThing,
      {
        envs: { values: { A: "1" }, valuesFrom: { B: { name: "s" } } },
      },
      "thing",
      violations,
    ),
    { envs: { A: "1" } },
  );
  assert.deepEqual(violations, [{
    field: "thing.envs.valuesFrom",
    description: UNKNOWN_FIELD,
  }]);
  assert.deepEqual(
    apiToKuberayJson(apiThing, kuberayThing, { envs: { A: "1" } }),
    { envs: { values: { A: "1" } } },
  );
});

Deno.test("the cluster's envs pass in KubeRay's shape where the API keeps their valuesFrom beside them", () => {
  const envs = { values: { A: "1" }, valuesFrom: { B: { name: "s" } } };
  assert.deepEqual(toApi("proto.Cluster", { name: "c", envs }), {
    out: { name: "c", envs },
    violations: [],
  });
  assert.deepEqual(
    toKuberay("proto.Cluster", {
      envs: envs.values,
      envsValuesFrom: envs.valuesFrom,
    }),
    { envs },
  );
});

Deno.test("nested messages, lists of them and fields the API lacks pass on for its reader to judge", () => {
  const { out, violations } = toApi("proto.ClusterSpec", {
    headServiceAnnotations: { a: "b" },
    workerGroupSpec: [{
      groupName: "w",
      environment: { values: { A: "1" } },
    }],
  });
  assert.deepEqual(out, {
    headServiceAnnotations: { a: "b" },
    workerGroupSpec: [{ groupName: "w", environment: { values: { A: "1" } } }],
  });
  assert.deepEqual(violations, []);
});

Deno.test("answers carry only KubeRay's fields, in KubeRay's shapes", () => {
  assert.deepEqual(
    toKuberay("proto.Cluster", {
      name: "c",
      etag: "7",
      envs: { A: "1" },
      clusterSpec: {
        headGroupSpec: {
          rayStartParams: { "num-cpus": "1" },
          environment: { X: "y" },
          environmentValuesFrom: { S: { name: "s" } },
        },
      },
    }),
    {
      name: "c",
      envs: { values: { A: "1" } },
      clusterSpec: {
        headGroupSpec: {
          rayStartParams: { "num-cpus": "1" },
          environment: { values: { X: "y" }, valuesFrom: { S: { name: "s" } } },
        },
      },
    },
  );
});

Deno.test("a list's continue passes as it is: the API's lists have it too", () => {
  assert.deepEqual(
    toApi("proto.ListClustersRequest", {
      namespace: "a",
      limit: 1,
      continue: "t",
    }),
    { out: { namespace: "a", limit: 1, continue: "t" }, violations: [] },
  );
  const answer = toKuberay("proto.ListClustersResponse", {
    clusters: [{ name: "c" }],
    nextPageToken: "t",
    continue: "t",
  });
  assert.deepEqual(answer, { clusters: [{ name: "c" }], continue: "t" });
});
