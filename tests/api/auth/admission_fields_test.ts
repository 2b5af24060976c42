/**
 * The admission's field list against the RayCluster CRD (the copy in
 * tests/testdata): every field of a group, of its pod template's metadata
 * and spec, and of a container is either decided by a rule or refused.
 * A CRD that gains a pod-level field the lists do not name fails here, so
 * a field the operator adds later is looked at before anyone opens it; and
 * every "refused" field is refused under the default grants until a rule
 * opens it by name.
 */
import assert from "node:assert/strict";
import { rayClusterWith } from "./ray_cluster_fixture.ts";
import { parse as parseYaml } from "yaml";
import {
  CONTAINER_FIELDS,
  GROUP_FIELDS,
  POD_METADATA_FIELDS,
  POD_SPEC_FIELDS,
} from "../../../api/auth/admission_fields.ts";
import { workloadRefusals } from "../../../api/auth/admission.ts";
import { defaultGrants } from "../../../api/auth/workload_grants.ts";
import type { RayCluster } from "../../../domain/resources.ts";

interface Schema {
  properties?: Record<string, Schema>;
  items?: Schema;
}

async function crdSpec(): Promise<Schema> {
  const text = await Deno.readTextFile(
    new URL("../../testdata/ray.io_rayclusters.yaml", import.meta.url),
  );
  const crd = parseYaml(text) as {
    spec: {
      versions: {
        storage?: boolean;
        schema: { openAPIV3Schema: Schema };
      }[];
    };
  };
  const stored = crd.spec.versions.find((version) => version.storage)!;
  return stored.schema.openAPIV3Schema.properties!.spec;
}

function fieldsOf(schema: Schema | undefined): string[] {
  return Object.keys(schema?.properties ?? {}).sort();
}

/** The CRD's pod-level field lists, each with the admission's list. */
async function fieldLists() {
  const spec = await crdSpec();
  const head = spec.properties!.headGroupSpec;
  const worker = spec.properties!.workerGroupSpecs.items!;
  const lists: [string, string[], Record<string, string>][] = [];
  for (const [name, group] of [["head", head], ["worker", worker]] as const) {
    const template = group.properties!.template;
    const pod = template.properties!.spec;
    lists.push(
      [`${name} group`, fieldsOf(group), GROUP_FIELDS],
      [
        `${name} pod metadata`,
        fieldsOf(template.properties!.metadata),
        POD_METADATA_FIELDS,
      ],
      [`${name} pod spec`, fieldsOf(pod), POD_SPEC_FIELDS],
    );
    for (
      const containers of [
        "containers",
        "initContainers",
        "ephemeralContainers",
      ]
    ) {
      lists.push([
        `${name} ${containers}`,
        fieldsOf(pod.properties![containers].items),
        CONTAINER_FIELDS,
      ]);
    }
  }
  return lists;
}

Deno.test("every pod-level field of the RayCluster CRD is decided by a rule or refused", async (t) => {
  for (const [name, fields, decisions] of await fieldLists()) {
    await t.step(name, () => {
      const unknown = fields.filter((field) =>
        !Object.hasOwn(decisions, field)
      );
      assert.deepEqual(
        unknown,
        [],
        `fields the admission does not know (add each to its list in api/auth/admission_fields.ts, "decided" with a check or "refused"): got ${
          unknown.join(", ")
        }`,
      );
    });
  }
});

/** A RayCluster whose one worker sets `at` (pod spec, container, metadata). */
function withField(
  at: "spec" | "container" | "metadata" | "group",
  field: string,
): RayCluster {
  const container: Record<string, unknown> = {
    name: "ray-worker",
    image: "rayproject/ray:2.9.0",
  };
  const spec: Record<string, unknown> = { containers: [container] };
  const metadata: Record<string, unknown> = {};
  const group: Record<string, unknown> = {
    groupName: "workers",
    rayStartParams: {},
    template: { metadata, spec },
  };
  const target = { spec, container, metadata, group }[at];
  target[field] = "x";
  return rayClusterWith([group as never]);
}

const PATHS = {
  group: "spec.workerGroupSpecs[0]",
  metadata: "spec.workerGroupSpecs[0].template.metadata",
  spec: "spec.workerGroupSpecs[0].template.spec",
  container: "spec.workerGroupSpecs[0].template.spec.containers[0]",
} as const;

Deno.test("a refused field is refused under the default grants, and allowed once a rule opens it", async (t) => {
  const lists = [
    ["group", GROUP_FIELDS, "podFields"],
    ["metadata", POD_METADATA_FIELDS, undefined],
    ["spec", POD_SPEC_FIELDS, "podFields"],
    ["container", CONTAINER_FIELDS, "containerFields"],
  ] as const;
  for (const [at, decisions, opener] of lists) {
    const refused = [
      ...Object.keys(decisions).filter((field) =>
        decisions[field] === "refused"
      ),
      "aFieldOfTomorrow",
    ];
    for (const field of refused) {
      await t.step(`${at}.${field}`, () => {
        const path = `${PATHS[at]}.${field}`;
        const closed = workloadRefusals(withField(at, field), defaultGrants());
        assert.ok(
          closed.some((refusal) => refusal.path === path),
          `got ${JSON.stringify(closed)}, want a refusal of ${path}`,
        );
        if (!opener) return;
        const open = workloadRefusals(withField(at, field), {
          ...defaultGrants(),
          [opener]: [field],
        });
        assert.ok(
          !open.some((refusal) => refusal.path === path),
          `opened by ${opener}: got ${JSON.stringify(open)}`,
        );
      });
    }
  }
});
