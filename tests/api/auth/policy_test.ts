import assert from "node:assert/strict";
import { rayClusterWith } from "./ray_cluster_fixture.ts";
import { globMatches } from "../../../api/auth/workload_grants.ts";
import { Code } from "../../../domain/errors.ts";
import type { ServiceError } from "../../../domain/errors.ts";
import type { Identity } from "../../../api/auth/identity.ts";
import { allowGroups, policyOf } from "../../../api/auth/policy.ts";
import { parsePolicy, PolicyError } from "../../../api/auth/policy_document.ts";
import { policyFile } from "../../../api/auth/policy_file.ts";
import { admitWorkload } from "../../../api/auth/workload_decision.ts";
import type { Resource, Rule, Verb } from "../../../api/auth/policy.ts";
import { recordingLogger } from "./helpers.ts";
import { until } from "../../eventually.ts";
import type { RayCluster } from "../../../domain/resources.ts";
import { allowAll, policyText, ruleOf, users } from "./policy_fixtures.ts";

function person(user: string, ...groups: string[]): Identity {
  return {
    user,
    groups: [...groups, "system:authenticated"],
    authenticator: "token-file",
  };
}

const ANONYMOUS: Identity = {
  user: "system:anonymous",
  groups: ["system:unauthenticated"],
  authenticator: "anonymous",
};

const EXAMPLE = `
rules:
  - users: ["alice"]
    namespaces: ["team-a"]
    resources: ["*"]
    verbs: ["*"]
    allowHostPath: false
    images: ["rayproject/ray:*"]
  - groups: ["team-b"]
    namespaces: ["team-b", "shared"]
    resources: ["clusters"]
    verbs: ["get", "list"]
  - groups: ["admins"]
    namespaces: ["*"]
    resources: ["*"]
    verbs: ["*"]
    allowHostPath: true
  - users: ["ci"]
    namespaces: ["shared"]
    resources: ["computetemplates"]
    verbs: ["create", "delete"]
`;

Deno.test("parsePolicy() reads the policy file format", () => {
  assert.deepEqual(parsePolicy(EXAMPLE), [
    {
      users: ["alice"],
      groups: [],
      namespaces: ["team-a"],
      resources: ["*"],
      verbs: ["*"],
      allowHostPath: false,
      images: ["rayproject/ray:*"],
    },
    {
      users: [],
      groups: ["team-b"],
      namespaces: ["team-b", "shared"],
      resources: ["clusters"],
      verbs: ["get", "list"],
      allowHostPath: false,
    },
    {
      users: [],
      groups: ["admins"],
      namespaces: ["*"],
      resources: ["*"],
      verbs: ["*"],
      allowHostPath: true,
    },
    {
      users: ["ci"],
      groups: [],
      namespaces: ["shared"],
      resources: ["computetemplates"],
      verbs: ["create", "delete"],
      allowHostPath: false,
    },
  ]);
  assert.deepEqual(parsePolicy("rules: []"), []);
});

Deno.test("parsePolicy() reports every problem with its path", async (t) => {
  const rule = 'namespaces: ["a"], resources: ["*"], verbs: ["*"]';
  const cases: [string, string, string[]][] = [
    [
      "an unknown verb",
      `rules:\n  - {users: [a], ${rule}}\n  - {users: [b], ${rule}}\n  - {users: [c], namespaces: [a], resources: ["*"], verbs: [get, destroy]}`,
      [
        'rules[2].verbs[1]: unknown verb "destroy"',
      ],
    ],
    [
      "an unknown resource",
      `rules:\n  - {users: [a], namespaces: [a], resources: [pods], verbs: ["*"]}`,
      [
        'rules[0].resources[0]: unknown resource "pods"',
      ],
    ],
    [
      "a bad namespace",
      `rules:\n  - {users: [a], namespaces: [Team_A, ""], resources: ["*"], verbs: ["*"]}`,
      [
        'rules[0].namespaces[0]: "Team_A" is not a namespace name',
        'rules[0].namespaces[1]: "" is not a namespace name',
      ],
    ],
    [
      "unknown keys",
      `rules:\n  - {users: [a], ${rule}, allowHostPaths: true, image: [x]}\nversion: 2`,
      [
        "version: unknown key",
        "rules[0].allowHostPaths: unknown key",
        "rules[0].image: unknown key",
      ],
    ],
    ["no subject", `rules:\n  - {${rule}}`, [
      "rules[0]: names no users and no groups",
    ]],
    [
      "wildcard subjects",
      `rules:\n  - {users: ["*"], groups: ["*", ""], ${rule}}`,
      [
        'rules[0].users[0]: "*" is not a user: name the group "system:authenticated" for every authenticated caller',
        'rules[0].groups[0]: "*" is not a group: name the group "system:authenticated" for every authenticated caller',
        "rules[0].groups[1]: must not be empty",
      ],
    ],
    ["missing lists", "rules:\n  - {users: [a]}", [
      "rules[0].namespaces: is required",
      "rules[0].resources: is required",
      "rules[0].verbs: is required",
    ]],
    [
      "empty lists",
      "rules:\n  - {users: [a], namespaces: [], resources: [], verbs: []}",
      [
        "rules[0].namespaces: must not be empty",
        "rules[0].resources: must not be empty",
        "rules[0].verbs: must not be empty",
      ],
    ],
    [
      "wrong types",
      `rules:\n  - {users: alice, groups: [1], ${rule}, allowHostPath: "yes", images: ["", 2]}`,
      [
        "rules[0].users: must be a list of strings",
        "rules[0].groups[0]: must be a string",
        "rules[0]: names no users and no groups",
        "rules[0].allowHostPath: must be true or false",
        "rules[0].images[0]: must not be empty",
        "rules[0].images[1]: must be a string",
      ],
    ],
    [
      "a rule that is not a mapping",
      `rules:\n  - alice\n  - {users: [a], ${rule}}\n  - {users: [b]}`,
      [
        "rules[0]: must be a mapping",
        "rules[2].namespaces: is required",
        "rules[2].resources: is required",
        "rules[2].verbs: is required",
      ],
    ],
    ["rules not a list", "rules: {users: [a]}", ["rules: must be a list"]],
    ["no rules key", "policy: []", [
      "policy: unknown key",
      "rules: must be a list",
    ]],
    ["an empty file", "", ['(file): must be a mapping with the key "rules"']],
    ["a list at the top", "- users: [a]", [
      '(file): must be a mapping with the key "rules"',
    ]],
  ];
  for (const [name, text, want] of cases) {
    await t.step(name, () => {
      assert.throws(() => parsePolicy(text), (error: PolicyError) => {
        assert.ok(error instanceof PolicyError, String(error));
        assert.deepEqual(
          error.violations.map((v) => `${v.field}: ${v.description}`),
          want,
        );
        assert.equal(error.message, want.join("; "));
        return true;
      });
    });
  }
  await t.step("YAML that does not parse", () => {
    assert.throws(() => parsePolicy("rules: [\n"), (error: PolicyError) => {
      assert.equal(error.violations.length, 1);
      assert.equal(error.violations[0].field, "(file)");
      return true;
    });
  });
  await t.step("a key given twice", () => {
    assert.throws(
      () => parsePolicy(`rules:\n  - {users: [a], ${rule}, verbs: [get]}`),
      (error: PolicyError) => {
        assert.equal(error.violations[0].field, "(file)");
        assert.match(error.message, /unique/i);
        return true;
      },
    );
  });
});

Deno.test("authorize() denies unless a rule grants", async (t) => {
  const policy = policyOf(parsePolicy(EXAMPLE));
  const rules = policy.rules();
  const cases: [
    string,
    Identity,
    Verb,
    Resource,
    string | undefined,
    number[],
  ][] = [
    [
      "alice in her namespace",
      person("alice"),
      "create",
      "clusters",
      "team-a",
      [0],
    ],
    [
      "alice, any resource there",
      person("alice"),
      "delete",
      "computetemplates",
      "team-a",
      [0],
    ],
    ["alice elsewhere", person("alice"), "get", "clusters", "team-b", []],
    [
      "alice across namespaces",
      person("alice"),
      "list",
      "clusters",
      undefined,
      [],
    ],
    [
      "team-b reads its clusters",
      person("bob", "team-b"),
      "get",
      "clusters",
      "shared",
      [1],
    ],
    [
      "team-b may not create",
      person("bob", "team-b"),
      "create",
      "clusters",
      "team-b",
      [],
    ],
    [
      "team-b may not read templates",
      person("bob", "team-b"),
      "get",
      "computetemplates",
      "team-b",
      [],
    ],
    [
      "a user named like a group is not in it",
      person("team-b"),
      "get",
      "clusters",
      "team-b",
      [],
    ],
    [
      "admins everywhere",
      person("carol", "admins"),
      "delete",
      "clusters",
      "ml-prod",
      [2],
    ],
    [
      'admins\' "*" does not reach the reserved kube-system',
      person("carol", "admins"),
      "delete",
      "clusters",
      "kube-system",
      [],
    ],
    [
      "admins across namespaces",
      person("carol", "admins"),
      "list",
      "clusters",
      undefined,
      [2],
    ],
    [
      "an admin named alice: both rules",
      person("alice", "admins"),
      "get",
      "clusters",
      "team-a",
      [0, 2],
    ],
    [
      "ci creates templates",
      person("ci"),
      "create",
      "computetemplates",
      "shared",
      [3],
    ],
    [
      "ci may not list them",
      person("ci"),
      "list",
      "computetemplates",
      "shared",
      [],
    ],
    ["a stranger", person("mallory"), "get", "clusters", "team-a", []],
    ["anonymous", ANONYMOUS, "list", "clusters", "team-a", []],
    [
      "a namespace that is a prefix",
      person("alice"),
      "get",
      "clusters",
      "team",
      [],
    ],
    ["a namespace named *", person("alice"), "get", "clusters", "*", []],
  ];
  for (const [name, identity, verb, resource, namespace, granting] of cases) {
    await t.step(name, () => {
      const got = policy.authorize({ identity, verb, resource, namespace });
      assert.deepEqual(
        got,
        granting.length > 0
          ? { allowed: true, rules: granting.map((i) => rules[i]) }
          : { allowed: false, rules: [], reason: "no-rule" },
      );
    });
  }
  await t.step("no rules: nothing", () => {
    assert.equal(
      policyOf([]).authorize({
        identity: person("alice", "admins"),
        verb: "get",
        resource: "clusters",
        namespace: "a",
      }).allowed,
      false,
    );
  });
});

Deno.test("namespacesFor() names where an identity may act", async (t) => {
  const policy = policyOf(parsePolicy(EXAMPLE));
  const cases: [string, Identity, Verb, Resource, "*" | string[]][] = [
    ["alice lists clusters", person("alice"), "list", "clusters", ["team-a"]],
    ["team-b lists clusters", person("bob", "team-b"), "list", "clusters", [
      "shared",
      "team-b",
    ]],
    ["team-b and alice", person("alice", "team-b"), "list", "clusters", [
      "shared",
      "team-a",
      "team-b",
    ]],
    [
      "team-b lists templates",
      person("bob", "team-b"),
      "list",
      "computetemplates",
      [],
    ],
    ["an admin", person("alice", "admins"), "list", "clusters", "*"],
    ["ci lists templates", person("ci"), "list", "computetemplates", []],
    ["ci creates templates", person("ci"), "create", "computetemplates", [
      "shared",
    ]],
    ["anonymous", ANONYMOUS, "list", "clusters", []],
  ];
  for (const [name, identity, verb, resource, want] of cases) {
    await t.step(name, () => {
      assert.deepEqual(policy.namespacesFor(identity, verb, resource), want);
    });
  }
});

Deno.test("allowGroups() lets every caller in its groups do everything, and no one else", () => {
  const policy = allowGroups(["system:authenticated"]);
  const request = {
    verb: "create",
    resource: "clusters",
    namespace: "x",
  } as const;
  const allowed = policy.authorize({ identity: person("anyone"), ...request });
  assert.equal(allowed.allowed, true);
  assert.ok(allowed.rules.some((rule) => rule.allowHostPath));
  assert.ok(allowed.rules.some((rule) => rule.images === undefined));
  assert.equal(policy.namespacesFor(person("anyone"), "list", "clusters"), "*");
  assert.deepEqual(policy.authorize({ identity: ANONYMOUS, ...request }), {
    allowed: false,
    rules: [],
    reason: "no-rule",
  });
  assert.deepEqual(policy.namespacesFor(ANONYMOUS, "list", "clusters"), []);
});

Deno.test("globMatches() matches image patterns whole, * across / and :", async (t) => {
  const cases: [string, string, boolean][] = [
    ["rayproject/ray:*", "rayproject/ray:2.9.0", true],
    ["rayproject/ray:*", "rayproject/ray:2.9.0-py310-gpu", true],
    ["rayproject/ray:*", "rayproject/ray:2.9.0@sha256:0123abcd", true],
    ["rayproject/ray:*", "evil/rayproject/ray:2.9.0", false],
    ["rayproject/ray:*", "rayproject/ray", false],
    ["rayproject/ray:*", "rayproject/ray-evil:2.9.0", false],
    ["rayproject/ray:*", "docker.io/rayproject/ray:2.9.0", false],
    ["rayproject/ray:*", "rayproject/ray:", true],
    ["rayproject/ray:2.9.0", "rayproject/ray:2.9.0", true],
    ["rayproject/ray:2.9.0", "rayproject/ray:2.9.01", false],
    ["registry.example.com/*", "registry.example.com/team/ray:1", true],
    ["registry.example.com/*", "registry.example.com.evil.io/ray:1", false],
    ["registry.example.com/*", "registryXexample.com/ray:1", false],
    ["*/ray:2.9.0", "quay.io/x/ray:2.9.0", true],
    ["*", "anything/at:all", true],
    ["*", "", true],
    ["a*b*c", "abc", true],
    ["a*b*c", "aXXbYYc", true],
    ["a*b*c", "acb", false],
    ["a*b*c", "abcb", false],
    ["a*a", "a", false],
    ["a*a", "aa", true],
    ["ray+[0-9]", "ray+[0-9]", true],
    ["ray+[0-9]", "rayy5", false],
    ["**", "x", true],
  ];
  for (const [pattern, image, want] of cases) {
    await t.step(
      `${pattern} ${want ? "matches" : "does not match"} ${
        JSON.stringify(image)
      }`,
      () => {
        assert.equal(globMatches(pattern, image), want);
      },
    );
  }
});

/** A RayCluster of one group per image, the first mounting a host path if asked. */
function workload(
  { images, hostPath }: { images: string[]; hostPath: boolean },
): RayCluster {
  const group = (image: string, i: number) => ({
    groupName: `g${i}`,
    rayStartParams: {},
    template: {
      spec: {
        containers: [{ name: "ray-worker", image }],
        ...(hostPath && i === 0
          ? { volumes: [{ name: "v", hostPath: { path: "/var/log" } }] }
          : {}),
      },
    },
  });
  return rayClusterWith(
    images.length > 0 ? images.map(group) : [group("", 0)],
  );
}

Deno.test("admitWorkload() needs one granting rule that allows the whole workload", async (t) => {
  const base = ruleOf(allowAll(users("a"), ["*"]));
  const hostRay: Rule = {
    ...base,
    allowHostPath: true,
    images: ["rayproject/ray:*", ""],
  };
  const anyImage: Rule = { ...base };
  type Want = { rule: Rule } | { reason: string; what: string };
  const cases: [string, Rule[], Parameters<typeof workload>[0], Want][] = [
    ["host path and ray image: the host-path rule", [hostRay, anyImage], {
      images: ["rayproject/ray:2.9.0"],
      hostPath: true,
    }, { rule: hostRay }],
    ["any image without host path: the other rule", [hostRay, anyImage], {
      images: ["evil/miner:1"],
      hostPath: false,
    }, { rule: anyImage }],
    ["host path with another image: no one rule allows both", [
      hostRay,
      anyImage,
    ], {
      images: ["rayproject/ray:2.9.0", "evil/miner:1"],
      hostPath: true,
    }, { reason: "image", what: 'use the image "evil/miner:1"' }],
    ["host path where no rule allows it", [anyImage], {
      images: [],
      hostPath: true,
    }, { reason: "host-path", what: "mount HOST_PATH volumes" }],
    ["an image no rule allows", [hostRay], {
      images: ["rayproject/ray:1", "evil/miner:1"],
      hostPath: false,
    }, { reason: "image", what: 'use the image "evil/miner:1"' }],
    [
      "images each allowed by a different rule",
      [{ ...base, images: ["a/*"] }, { ...base, images: ["b/*"] }],
      { images: ["a/x:1", "b/y:1"], hostPath: false },
      { reason: "image", what: 'use the image "b/y:1"' },
    ],
  ];
  for (const [name, rules, asked, want] of cases) {
    await t.step(name, () => {
      const got = admitWorkload(rules, workload(asked));
      if ("rule" in want) {
        assert.deepEqual(got, { allowed: true, rule: want.rule });
      } else {
        assert.equal(got.allowed, false);
        const [first] = got.allowed ? [] : got.refusals;
        assert.deepEqual(
          { reason: first?.reason, what: first?.what },
          want,
        );
      }
    });
  }
  await t.step("no rules: refused with nothing to say", () =>
    assert.deepEqual(
      admitWorkload([], workload({ images: [], hostPath: false })),
      { allowed: false, refusals: [] },
    ));
});

Deno.test("policyFile() fails start-up on a policy that does not validate", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/policy.yaml`,
      "rules:\n  - {users: [a], verbs: [destroy]}\n",
    );
    await assert.rejects(
      policyFile({ path: `${dir}/policy.yaml`, log: recordingLogger() }),
      (error: ServiceError) => {
        assert.equal(error.code, Code.INVALID_ARGUMENT);
        assert.equal(
          error.message,
          `Cannot load authorization policy file "${dir}/policy.yaml": rules[0].verbs[0]: unknown verb "destroy"; rules[0].namespaces: is required; rules[0].resources: is required`,
        );
        return true;
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("policyFile() follows the file as it changes, keeping the last valid policy", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/policy.yaml`;
  const log = recordingLogger();
  const grant = (user: string) => policyText([allowAll(users(user), ["a"])]);
  await Deno.writeTextFile(path, grant("alice"));
  const policy = await policyFile({ path, log, intervalMs: 20 });
  const may = (user: string) =>
    policy.authorize({
      identity: person(user),
      verb: "get",
      resource: "clusters",
      namespace: "a",
    }).allowed;
  try {
    assert.ok(may("alice") && !may("bob"));

    await Deno.writeTextFile(path, grant("bob"));
    await until("the new policy", () => may("bob"));
    assert.ok(!may("alice"));
    assert.deepEqual(policy.namespacesFor(person("bob"), "list", "clusters"), [
      "a",
    ]);

    await Deno.writeTextFile(
      path,
      "rules:\n  - {users: [alice], verbs: [destroy]}\n",
    );
    await until(
      "the error log",
      () =>
        log.lines.some((l) =>
          l.level === "error" && String(l.fields.error).includes("destroy")
        ),
    );
    await policy.reload();
    assert.ok(may("bob") && !may("alice"), "the previous policy holds");

    await Deno.writeTextFile(path, "");
    await policy.reload();
    assert.ok(may("bob"), "an emptied file keeps the policy");

    await Deno.writeTextFile(path, "rules: []\n");
    assert.equal(await policy.reload(), true);
    assert.ok(
      !may("bob") && !may("alice"),
      "an explicit empty list denies all",
    );
  } finally {
    await policy.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test('policyOf() reserves kube-* and Corral\'s own namespace: "*" covers neither, naming one grants it', () => {
  const rule = (namespaces: string[]) =>
    ruleOf(allowAll(users("a"), namespaces));
  const policy = policyOf([rule(["*"])], { ownNamespace: "corral" });
  const may = (p: typeof policy, namespace: string) =>
    p.authorize({
      identity: person("a"),
      verb: "create",
      resource: "clusters",
      namespace,
    }).allowed;
  assert.equal(may(policy, "team-a"), true);
  assert.equal(may(policy, "corral"), false);
  assert.equal(may(policy, "kube-system"), false);
  assert.equal(may(policy, "kube-public"), false);
  const named = policyOf([rule(["*", "corral", "kube-system"])], {
    ownNamespace: "corral",
  });
  assert.equal(may(named, "corral"), true);
  assert.equal(may(named, "kube-system"), true);
  assert.equal(may(named, "kube-public"), false);
});

Deno.test("parsePolicy() reads the workload allow-lists and owners, and refuses bad ones", () => {
  const [rule] = parsePolicy(`rules:
  - groups: [g]
    namespaces: [a]
    resources: ["*"]
    verbs: ["*", admin]
    owners: only
    serviceAccounts: [ray]
    tolerations: [{key: "nvidia.com/gpu", effects: [NoSchedule]}]
    volumes: {hostPaths: ["/data/*"], persistentVolumeClaims: [datasets]}
    startParams: {dashboard-host: ["0.0.0.0"]}
    secrets: [db]
`);
  assert.equal(rule.owners, "only");
  assert.deepEqual(rule.workload, {
    serviceAccounts: ["ray"],
    secrets: ["db"],
    tolerations: [{ key: "nvidia.com/gpu", effects: ["NoSchedule"] }],
    hostPaths: ["/data/*"],
    claims: ["datasets"],
    startParams: { "dashboard-host": ["0.0.0.0"] },
  });
  assert.throws(
    () =>
      parsePolicy(`rules:
  - {groups: [g], namespaces: [a], resources: ["*"], verbs: ["*"], owners: me, serviceAccounts: [""], tolerations: [{effects: [x]}], volumes: {nfs: [x]}}
`),
    (error: PolicyError) => {
      assert.deepEqual(error.violations.map((v) => v.field), [
        "rules[0].serviceAccounts",
        "rules[0].tolerations[0]",
        "rules[0].volumes.nfs",
        "rules[0].owners",
      ]);
      return true;
    },
  );
});
