/**
 * deploy/examples/three-teams rendered with `kubectl kustomize`: Corral as
 * every variant is (tests/deploy_checks.ts) with the OIDC overlay, a
 * policy Corral's own loader accepts, Kueue objects that are well formed
 * (one cohort, a ClusterQueue per team admitting only its namespace, a
 * LocalQueue per namespace on it), the same three namespaces in every file,
 * and Corral's quota of each team what its ClusterQueue could ever admit
 * (nominal quota plus borrowing limit), as the example's README says.
 */
import assert from "node:assert/strict";
import { parsePolicyDocument } from "../api/auth/policy_document.ts";
import { cpusOf, gibOf } from "../domain/quantities.ts";
import {
  checkWorkload,
  flagsOf,
  named,
  type Obj,
  only,
  onPath,
  remoteResources,
  render,
  ROOT,
} from "./deploy_checks.ts";

const EXAMPLE = "deploy/examples/three-teams";
const KUEUE = "kueue.x-k8s.io/v1beta1";

function sorted(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

/** The Kueue objects: well formed, one cohort; the team namespaces served. */
function checkKueue(objects: Obj[], teams: string[]): void {
  const of = (kind: string) => objects.filter((o) => o.kind === kind);
  for (const kind of ["ResourceFlavor", "ClusterQueue", "LocalQueue"]) {
    for (const object of of(kind)) assert.equal(object.apiVersion, KUEUE);
  }
  const flavors = new Set(of("ResourceFlavor").map((f) => f.metadata.name));
  const queues = of("ClusterQueue");
  assert.equal(queues.length, teams.length, "a ClusterQueue per team");
  assert.equal(
    new Set(queues.map((q) => q.spec.cohort)).size,
    1,
    "one cohort",
  );
  const admits = new Map<string, string>();
  for (const queue of queues) {
    const name = queue.metadata.name;
    assert.equal(
      queue.metadata.namespace,
      undefined,
      `${name}: cluster-scoped`,
    );
    const selected = queue.spec.namespaceSelector.matchLabels[
      "kubernetes.io/metadata.name"
    ];
    assert.ok(teams.includes(selected), `${name} admits a team's namespace`);
    admits.set(name, selected);
    for (const group of queue.spec.resourceGroups) {
      for (const flavor of group.flavors) {
        assert.ok(flavors.has(flavor.name), `${name}: flavor ${flavor.name}`);
        assert.deepEqual(
          flavor.resources.map((r: Obj) => r.name),
          group.coveredResources,
          `${name}: every covered resource has a quota`,
        );
        for (const r of flavor.resources) {
          const value = (q: unknown) => resourceValue(r.name, String(q));
          assert.ok(r.borrowingLimit !== undefined, `${name}: borrowingLimit`);
          assert.ok(
            value(r.lendingLimit) <= value(r.nominalQuota),
            `${name}: ${r.name} lends at most its nominal quota`,
          );
        }
      }
    }
  }
  assert.deepEqual(sorted(admits.values()), teams, "each team its queue");
  const locals = of("LocalQueue");
  assert.deepEqual(sorted(locals.map((q) => q.metadata.namespace)), teams);
  for (const local of locals) {
    assert.equal(
      admits.get(local.spec.clusterQueue),
      local.metadata.namespace,
      `the LocalQueue of ${local.metadata.namespace} is on its team's ClusterQueue`,
    );
  }
}

/** A Kueue quota in the unit Corral's quotas use (CPUs, GiB, devices). */
function resourceValue(resource: string, quantity: string): number {
  return resource === "memory"
    ? gibOf(quantity)
    : resource === "cpu"
    ? cpusOf(quantity)
    : Number(quantity);
}

/** A team's ClusterQueue's nominal quota plus borrowing limit, by resource. */
function mostAdmitted(objects: Obj[], namespace: string): Obj {
  const queue = objects.find((o) =>
    o.kind === "ClusterQueue" &&
    o.spec.namespaceSelector.matchLabels["kubernetes.io/metadata.name"] ===
      namespace
  )!;
  const most: Record<string, number> = {};
  for (const group of queue.spec.resourceGroups) {
    for (const flavor of group.flavors) {
      for (const r of flavor.resources) {
        const value = (q: unknown) => resourceValue(r.name, String(q));
        most[r.name] = (most[r.name] ?? 0) + value(r.nominalQuota) +
          value(r.borrowingLimit);
      }
    }
  }
  return most;
}

if (!(await onPath("kubectl"))) {
  Deno.test({
    name:
      "deploy/examples/three-teams renders (ignored: kubectl is not on PATH)",
    ignore: true,
    fn() {},
  });
} else {
  Deno.test("deploy/examples/three-teams: Corral with OIDC and the teams' policy, Kueue's queues in one cohort, the same namespaces everywhere", async () => {
    assert.deepEqual(await remoteResources(EXAMPLE), [], "only local files");
    await Deno.stat(new URL(`${EXAMPLE}/README.md`, ROOT));
    const objects = await render(EXAMPLE);
    const corral = await checkWorkload(objects);
    const args = only(objects, "Deployment").spec.template.spec.containers[0]
      .args;
    assert.ok(Object.fromEntries(flagsOf(args))["oidc-issuer-url"]);

    const teams = sorted(
      objects.filter((o) => o.kind === "Namespace").map((o) => o.metadata.name)
        .filter((name) => name !== corral),
    );
    assert.equal(teams.length, 3);
    const policy = parsePolicyDocument(
      named(objects, "ConfigMap", "corral-policy").data["policy.yaml"],
    );
    const namespacesNamed = (entries: { namespaces: string[] }[]) =>
      sorted(entries.flatMap((e) => e.namespaces).filter((n) => n !== "*"));
    assert.deepEqual(
      namespacesNamed(policy.rules),
      teams,
      "the rules' namespaces",
    );
    assert.deepEqual(
      namespacesNamed(policy.quotas),
      teams,
      "the quotas' namespaces",
    );
    assert.deepEqual(
      namespacesNamed(policy.queues),
      teams,
      "the queues' namespaces",
    );
    for (const team of teams) {
      const writes = policy.rules.filter((r) =>
        r.namespaces.includes(team) && r.verbs.includes("*")
      );
      assert.equal(writes.length, 1, `one team runs workloads in ${team}`);
      assert.ok(writes[0].groups.length > 0, `${team}: by an OIDC group`);
    }

    checkKueue(objects, teams);
    const localQueue = objects.find((o) => o.kind === "LocalQueue")!;
    for (const rule of policy.queues) {
      assert.equal(rule.default, localQueue.metadata.name);
    }
    for (const team of teams) {
      const total = policy.quotas.find((q) =>
        q.namespaces.includes(team) && q.users.length === 0 &&
        q.groups.length === 0
      );
      assert.ok(total, `${team} has a quota of its own`);
      const most = mostAdmitted(objects, team);
      assert.deepEqual(
        {
          cpu: total.limits.cpu,
          memory: total.limits.memory,
          gpu: total.limits.gpu,
        },
        { cpu: most.cpu, memory: most.memory, gpu: most["nvidia.com/gpu"] },
        `${team}: Corral's quota is what its ClusterQueue could ever admit`,
      );
    }
  });
}
