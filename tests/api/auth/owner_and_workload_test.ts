/**
 * What CreateCluster checks of an authenticated caller beyond the verb and
 * namespace: the cluster's user is the caller (filled in when empty, code 7
 * when it names someone else; an e-mail username kept whole), and its
 * workload (HOST_PATH volumes, images) is allowed by the rule that granted
 * the call, the field at fault named. One case list through both
 * transports, over access built from real files.
 */
import assert from "node:assert/strict";
import { openAccess } from "../../../api/auth/access.ts";
import {
  type Corral,
  type Outcome,
  startCorral,
  TRANSPORTS,
} from "../../harness.ts";
import { sampleCluster } from "../cases.ts";
import {
  ALICE,
  ALICE_MAIL,
  bearer,
  fileAccess,
  type Person,
  person,
  tokenFileText,
} from "./access_fixtures.ts";
import type { FieldViolation } from "../../../domain/errors.ts";
import { allow, allowAll, policyText, users } from "./policy_fixtures.ts";

const NS = "team-a";
const CREATE = "proto.ClusterService/CreateCluster";
const GET = "proto.ClusterService/GetCluster";
const LIST = "proto.ClusterService/ListCluster";

const HANA = person("hana", "hana");
const IVY = person("ivy", "ivy");
const VIC = person("vic", "vic");

const POLICY = policyText([
  allowAll(users("alice", "alice@example.com"), ["team-a"]),
  allow(users("hana"), ["team-a"], ["clusters"], ["create"], {
    allowHostPath: true,
  }),
  allow(users("ivy"), ["team-a"], ["clusters"], ["create"], {
    images: ["rayproject/ray:*"],
  }),
  allow(users("vic"), ["team-a"], ["clusters"], ["create"], {
    images: ["rayproject/ray:2.9.*"],
  }),
]);

const HOST_PATH = {
  name: "logs",
  mountPath: "/logs",
  source: "/var/log",
  volumeType: "HOST_PATH",
  hostPathType: "DIRECTORY",
  readOnly: true,
};

/** A cluster of no compute template: a head and one worker group. */
function cluster(
  name: string,
  options: {
    user?: string;
    version?: string;
    head?: Record<string, unknown>;
    worker?: Record<string, unknown>;
  } = {},
) {
  return sampleCluster({
    name,
    user: options.user ?? "",
    version: options.version ?? "2.9.0",
    clusterSpec: {
      headGroupSpec: { ...options.head },
      workerGroupSpec: [{
        groupName: "workers",
        replicas: 1,
        ...options.worker,
      }],
    },
  });
}

interface CreateCase {
  name: string;
  person: Person;
  rpc?: string;
  request: Record<string, unknown>;
  want: {
    code: number;
    message?: string;
    fields?: string[];
    check?: (result: Record<string, unknown>) => void;
  };
}

const create = (c: ReturnType<typeof cluster>) => ({
  namespace: NS,
  cluster: c,
});

const refused = (name: string, detail: string) =>
  `Cannot create cluster "${NS}/${name}": ${detail}`;

const hasUser = (user: string) => (result: Record<string, unknown>) =>
  assert.equal(result.user, user, "user");

const OWNER_CASES: CreateCase[] = [
  {
    name:
      "an empty user is filled with the caller's username, an e-mail address kept whole",
    person: ALICE_MAIL,
    request: create(cluster("mail")),
    want: { code: 0, check: hasUser("alice@example.com") },
  },
  {
    name: "GetCluster reads the e-mail username back",
    person: ALICE_MAIL,
    rpc: GET,
    request: { namespace: NS, name: "mail" },
    want: { code: 0, check: hasUser("alice@example.com") },
  },
  {
    name: "ListCluster reads the e-mail username back",
    person: ALICE,
    rpc: LIST,
    request: { namespace: NS },
    want: {
      code: 0,
      check: (result) => {
        const clusters = result.clusters as { name: string; user: string }[];
        assert.deepEqual(
          clusters.map((c) => [c.name, c.user]),
          [["mail", "alice@example.com"]],
        );
      },
    },
  },
  {
    name: "a user naming the caller is taken",
    person: ALICE,
    request: create(cluster("own", { user: "alice" })),
    want: { code: 0, check: hasUser("alice") },
  },
  {
    name: "a user naming someone else is code 7, naming cluster.user",
    person: ALICE,
    request: create(cluster("for-bob", { user: "bob" })),
    want: {
      code: 7,
      message: refused(
        "for-bob",
        'cluster.user: user "alice" may not create clusters for "bob"',
      ),
    },
  },
];

const WORKLOAD_CASES: CreateCase[] = [
  {
    name: "a rule without allowHostPath refuses a worker's HOST_PATH volume",
    person: ALICE,
    request: create(cluster("hp-worker", { worker: { volumes: [HOST_PATH] } })),
    want: {
      code: 7,
      message: refused(
        "hp-worker",
        'cluster.clusterSpec.workerGroupSpec[0].volumes[0].volumeType: user "alice" may not mount HOST_PATH volumes (RayCluster spec.workerGroupSpecs[0].template.spec.volumes[0].hostPath)',
      ),
    },
  },
  {
    name: "a rule without allowHostPath refuses the head's HOST_PATH volume",
    person: ALICE,
    request: create(cluster("hp-head", { head: { volumes: [HOST_PATH] } })),
    want: {
      code: 7,
      message: refused(
        "hp-head",
        'cluster.clusterSpec.headGroupSpec.volumes[0].volumeType: user "alice" may not mount HOST_PATH volumes (RayCluster spec.headGroupSpec.template.spec.volumes[0].hostPath)',
      ),
    },
  },
  {
    name: "a rule with allowHostPath allows HOST_PATH volumes",
    person: HANA,
    request: create(cluster("hp-allowed", {
      head: { volumes: [HOST_PATH] },
      worker: { volumes: [HOST_PATH] },
    })),
    want: { code: 0, check: hasUser("hana") },
  },
  {
    name: "an image rule without allowHostPath still refuses HOST_PATH",
    person: IVY,
    request: create(cluster("hp-ivy", { worker: { volumes: [HOST_PATH] } })),
    want: {
      code: 7,
      message: refused(
        "hp-ivy",
        'cluster.clusterSpec.workerGroupSpec[0].volumes[0].volumeType: user "ivy" may not mount HOST_PATH volumes (RayCluster spec.workerGroupSpecs[0].template.spec.volumes[0].hostPath)',
      ),
    },
  },
  {
    name: 'images ["rayproject/ray:*"] refuses a worker image evil/ray:1',
    person: IVY,
    request: create(cluster("evil", { worker: { image: "evil/ray:1" } })),
    want: {
      code: 7,
      message: refused(
        "evil",
        'cluster.clusterSpec.workerGroupSpec[0].image: user "ivy" may not use the image "evil/ray:1" (RayCluster spec.workerGroupSpecs[0].template.spec.containers[0].image)',
      ),
    },
  },
  {
    name: 'images ["rayproject/ray:*"] refuses a head image evil/ray:1',
    person: IVY,
    request: create(cluster("evil-head", { head: { image: "evil/ray:1" } })),
    want: {
      code: 7,
      message: refused(
        "evil-head",
        'cluster.clusterSpec.headGroupSpec.image: user "ivy" may not use the image "evil/ray:1" (RayCluster spec.headGroupSpec.template.spec.containers[0].image)',
      ),
    },
  },
  {
    name: 'images ["rayproject/ray:*"] allows rayproject/ray images',
    person: IVY,
    request: create(
      cluster("good", { worker: { image: "rayproject/ray:2.9.0-gpu" } }),
    ),
    want: { code: 0 },
  },
  {
    name:
      "a version whose image the rule does not allow is refused, naming cluster.version",
    person: VIC,
    request: create(cluster("newer", { version: "2.10.0" })),
    want: {
      code: 7,
      message: refused(
        "newer",
        'cluster.version: user "vic" may not use the image "rayproject/ray:2.10.0" (RayCluster spec.headGroupSpec.template.spec.containers[0].image)',
      ),
    },
  },
  {
    name: "a version whose image the rule allows is taken",
    person: VIC,
    request: create(cluster("older", { version: "2.9.3" })),
    want: { code: 0 },
  },
];

function check(got: Outcome, want: CreateCase["want"]): void {
  assert.equal(
    got.code,
    want.code,
    `code: got ${got.code} (${got.message}), want ${want.code}`,
  );
  if (want.message !== undefined) assert.equal(got.message, want.message);
  if (want.fields) {
    const fields = got.details.flatMap((d) =>
      (d as { fieldViolations?: FieldViolation[] }).fieldViolations ?? []
    ).map((v) => v.field);
    assert.deepEqual(fields, want.fields, `violations: ${got.message}`);
  }
  if (want.check) want.check(got.result!);
}

/**
 * Runs `cases` in order through each transport, each on a fresh Corral
 * made by `start`; then both transports must have answered alike.
 * `after` looks at a transport's Corral once its cases ran, in its step.
 */
async function throughBoth(
  t: Deno.TestContext,
  cases: CreateCase[],
  start: () => Promise<{ corral: Corral; close(): Promise<void> }>,
  after?: (t: Deno.TestContext, corral: Corral) => Promise<void>,
): Promise<void> {
  const outcomes: Record<string, Outcome[]> = { http: [], grpc: [] };
  for (const [transport, run] of TRANSPORTS) {
    const { corral, close } = await start();
    try {
      await t.step(transport, async (t) => {
        for (const c of cases) {
          await t.step(c.name, async () => {
            const got = await run(corral, c.rpc ?? CREATE, c.request, {
              authorization: c.person.token ? bearer(c.person) : undefined,
            });
            outcomes[transport].push(got);
            check(got, c.want);
          });
        }
        if (after) await after(t, corral);
      });
    } finally {
      await close();
    }
  }
  await t.step("both transports answer alike", () => {
    cases.forEach((c, i) => {
      const [http, grpc] = [outcomes.http[i], outcomes.grpc[i]];
      assert.equal(grpc?.code, http?.code, `${c.name}: code`);
      assert.equal(grpc?.message, http?.message, `${c.name}: message`);
      assert.deepEqual(grpc?.details, http?.details, `${c.name}: details`);
    });
  });
}

/** A Corral whose access is read from the token file and `policy`. */
function withPolicy(policy?: string) {
  return async () => {
    const files = await fileAccess({
      tokens: tokenFileText([ALICE, ALICE_MAIL, HANA, IVY, VIC]),
      ...(policy === undefined ? { noPolicy: true } : { policy }),
    });
    const corral = await startCorral({ access: files.access });
    return {
      corral,
      async close() {
        await corral.close();
        await files.close();
      },
    };
  };
}

/** A label value: 63 characters at most, alphanumeric at both ends. */
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

Deno.test("CreateCluster makes an authenticated caller the cluster's user, alike over HTTP and gRPC", async (t) => {
  await throughBoth(
    t,
    OWNER_CASES,
    withPolicy(POLICY),
    async (t, corral) => {
      await t.step(
        "the RayCluster has a valid ray.io/user label and the exact name in the annotation",
        async () => {
          const response = await fetch(
            `${corral.kubeUrl}/apis/ray.io/v1/namespaces/${NS}/rayclusters/mail`,
          );
          assert.equal(response.status, 200);
          const { metadata } = await response.json();
          const label = metadata.labels["ray.io/user"];
          assert.match(label, LABEL_VALUE, "label value");
          assert.ok(label.length <= 63, `label length: got ${label.length}`);
          assert.equal(
            metadata.annotations?.["ray.io/user"],
            "alice@example.com",
          );
        },
      );
    },
  );
});

Deno.test("CreateCluster enforces the user without a policy file too", async (t) => {
  await throughBoth(t, [
    {
      name: "a user naming someone else is code 7",
      person: ALICE,
      request: create(cluster("for-bob", { user: "bob" })),
      want: {
        code: 7,
        message: refused(
          "for-bob",
          'cluster.user: user "alice" may not create clusters for "bob"',
        ),
      },
    },
    {
      name: "an empty user is filled",
      person: ALICE,
      request: create(cluster("mine")),
      want: { code: 0, check: hasUser("alice") },
    },
  ], withPolicy());
});

Deno.test("CreateCluster does not enforce the user of anonymous callers", async (t) => {
  const anonymous: Person = {
    name: "anonymous",
    user: "",
    groups: [],
    token: "",
  };
  await throughBoth(
    t,
    [
      {
        name: "any user is taken",
        person: anonymous,
        request: create(cluster("ada", { user: "ada" })),
        want: { code: 0, check: hasUser("ada") },
      },
      {
        name: "an empty user is not filled: it is required",
        person: anonymous,
        request: create(cluster("nobody")),
        want: { code: 3, fields: ["cluster.user"] },
      },
    ],
    async () => {
      const corral = await startCorral({ access: openAccess() });
      return { corral, close: () => corral.close() };
    },
  );
});

Deno.test("CreateCluster admits HOST_PATH volumes and images only as the granting rule allows, alike over HTTP and gRPC", async (t) => {
  await throughBoth(t, WORKLOAD_CASES, withPolicy(POLICY));
});
