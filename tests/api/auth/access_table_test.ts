/**
 * Who may do what, as a table: every identity (none, a malformed header, an
 * unknown token, and the people of access_fixtures.ts) times every RPC
 * times the namespaces team-a, team-b and kube-system, through the HTTP
 * gateway and a real gRPC client, over access built by createAccess() from
 * a real token file and policy file. Both transports must answer each row
 * with the same code and message: 16 without valid credentials, 7 where no
 * rule grants, and where one does, what the operation itself answers.
 * (That every RPC of the schema, these and any added later, is refused
 * without its rule is tests/api/service/declared_rpcs_test.ts's to show.)
 */
import assert from "node:assert/strict";
import type { Resource, Verb } from "../../../api/auth/policy.ts";
import {
  clusterAction,
  computeTemplateAction,
} from "../../../domain/actions.ts";
import { type Outcome, startCorral, TRANSPORTS } from "../../harness.ts";
import { sampleCluster } from "../cases.ts";
import {
  ALICE,
  ALICE_MAIL,
  bearer,
  BOB,
  CAROL,
  DAVE,
  fileAccess,
  type Person,
  ROOT,
} from "./access_fixtures.ts";

const NAMESPACES = ["team-a", "team-b", "kube-system"];

/** What the policy file grants each person, as the table expects it. */
const GRANTS: Record<string, { namespaces: string[]; verbs: Verb[] }> = {
  alice: { namespaces: ["team-a"], verbs: ["get", "list", "create", "delete"] },
  "alice-mail": {
    namespaces: ["team-a"],
    verbs: ["get", "list", "create", "delete"],
  },
  bob: { namespaces: ["team-b"], verbs: ["get", "list", "create", "delete"] },
  carol: { namespaces: ["team-a"], verbs: ["get", "list"] },
  root: { namespaces: ["*"], verbs: ["get", "list", "create", "delete"] },
  dave: { namespaces: [], verbs: [] },
};

function may(person: Person, verb: Verb, namespace: string): boolean {
  const grant = GRANTS[person.name];
  return grant.verbs.includes(verb) &&
    (grant.namespaces.includes("*") || grant.namespaces.includes(namespace));
}

/** A caller of the table: how it presents itself, and who it is if anyone. */
interface Identity {
  name: string;
  authorization?: string;
  person?: Person;
  /** The 401's message, for those that are refused. */
  unauthenticated?: string;
}

const IDENTITIES: Identity[] = [
  {
    name: "no credentials",
    unauthenticated: "Unauthorized: the request has no bearer token",
  },
  {
    name: "a malformed Authorization header",
    authorization: `Token ${ALICE.token}`,
    unauthenticated:
      'Unauthorized: the Authorization header is not "Bearer" and a token',
  },
  {
    name: "an unknown token",
    authorization: "Bearer unknown-0123456789abcdef0123456789abcdef",
    unauthenticated: "Unauthorized: the token is not valid",
  },
  ...[ALICE, BOB, CAROL, ROOT, DAVE, ALICE_MAIL].map((person) => ({
    name: person.user,
    authorization: bearer(person),
    person,
  })),
];

const CS = "proto.ClusterService";
const CT = "proto.ComputeTemplateService";

interface Operation {
  rpc: string;
  verb: Verb;
  resource: Resource;
  request: (namespace: string, person: string) => Record<string, unknown>;
  /** The 403's message before the colon. */
  action: (namespace: string, person: string) => string;
}

const templateName = (person: string) => `t-${person}`;
const clusterName = (person: string) => `c-${person}`;

/** In order: each person creates, reads and deletes their own pair. */
const OPERATIONS: Operation[] = [
  {
    rpc: `${CT}/CreateComputeTemplate`,
    verb: "create",
    resource: "computetemplates",
    request: (namespace, person) => ({
      namespace,
      computeTemplate: {
        name: templateName(person),
        namespace,
        cpu: 1,
        memory: 1,
      },
    }),
    action: (ns, p) => computeTemplateAction("create", ns, templateName(p)),
  },
  {
    rpc: `${CT}/GetComputeTemplate`,
    verb: "get",
    resource: "computetemplates",
    request: (namespace, person) => ({ namespace, name: templateName(person) }),
    action: (ns, p) => computeTemplateAction("get", ns, templateName(p)),
  },
  {
    rpc: `${CT}/ListComputeTemplates`,
    verb: "list",
    resource: "computetemplates",
    request: (namespace) => ({ namespace }),
    action: (ns) => `Cannot list compute templates in namespace "${ns}"`,
  },
  {
    rpc: `${CS}/CreateCluster`,
    verb: "create",
    resource: "clusters",
    request: (namespace, person) => ({
      namespace,
      cluster: sampleCluster({
        name: clusterName(person),
        namespace,
        user: "",
        clusterSpec: {
          headGroupSpec: { computeTemplate: templateName(person) },
          workerGroupSpec: [{
            groupName: "workers",
            computeTemplate: templateName(person),
            replicas: 1,
          }],
        },
      }),
    }),
    action: (ns, p) => clusterAction("create", ns, clusterName(p)),
  },
  {
    rpc: `${CS}/GetCluster`,
    verb: "get",
    resource: "clusters",
    request: (namespace, person) => ({ namespace, name: clusterName(person) }),
    action: (ns, p) => clusterAction("get", ns, clusterName(p)),
  },
  {
    rpc: `${CS}/ListCluster`,
    verb: "list",
    resource: "clusters",
    request: (namespace) => ({ namespace }),
    action: (ns) => `Cannot list clusters in namespace "${ns}"`,
  },
  {
    rpc: `${CS}/DeleteCluster`,
    verb: "delete",
    resource: "clusters",
    request: (namespace, person) => ({ namespace, name: clusterName(person) }),
    action: (ns, p) => clusterAction("delete", ns, clusterName(p)),
  },
  {
    rpc: `${CT}/DeleteComputeTemplate`,
    verb: "delete",
    resource: "computetemplates",
    request: (namespace, person) => ({ namespace, name: templateName(person) }),
    action: (ns, p) => computeTemplateAction("delete", ns, templateName(p)),
  },
];

const LIST_ALL: { rpc: string; resource: Resource; action: string }[] = [
  {
    rpc: `${CS}/ListAllClusters`,
    resource: "clusters",
    action: "Cannot list clusters",
  },
  {
    rpc: `${CT}/ListAllComputeTemplates`,
    resource: "computetemplates",
    action: "Cannot list compute templates",
  },
];

interface Want {
  code: number;
  message?: string;
}

/** What `identity` must get for `op` in `namespace`. */
function expected(identity: Identity, op: Operation, namespace: string): Want {
  if (identity.unauthenticated) {
    return { code: 16, message: identity.unauthenticated };
  }
  const person = identity.person!;
  if (!may(person, op.verb, namespace)) {
    return {
      code: 7,
      message: `${op.action(namespace, person.name)}: user "${person.user}" ` +
        `may not ${op.verb} ${op.resource} in namespace "${namespace}"`,
    };
  }
  // Only what the person could create is there to get and delete.
  const exists = may(person, "create", namespace);
  return { code: op.verb === "list" || exists ? 0 : 5 };
}

function expectedListAll(
  identity: Identity,
  op: typeof LIST_ALL[number],
): Want {
  if (identity.unauthenticated) {
    return { code: 16, message: identity.unauthenticated };
  }
  const person = identity.person!;
  if (GRANTS[person.name].namespaces.length === 0) {
    return {
      code: 7,
      message:
        `${op.action}: user "${person.user}" may list ${op.resource} in no namespace`,
    };
  }
  return { code: 0 };
}

function check(got: Outcome, want: Want) {
  assert.equal(
    got.code,
    want.code,
    `code: got ${got.code} (${got.message}), want ${want.code}`,
  );
  if (want.message !== undefined) {
    assert.equal(got.message, want.message, "message");
  }
}

const short = (rpc: string) => rpc.split("/")[1];

Deno.test("identities x RPCs x namespaces: 16 without valid credentials, 7 where no rule grants, the same code and message over HTTP and gRPC", async (t) => {
  const outcomes: Record<string, Map<string, Outcome>> = {};
  for (const [transport, run] of TRANSPORTS) {
    const files = await fileAccess();
    const corral = await startCorral({ access: files.access });
    const seen = outcomes[transport] = new Map();
    try {
      await t.step(transport, async (t) => {
        for (const identity of IDENTITIES) {
          await t.step(identity.name, async (t) => {
            const options = { authorization: identity.authorization };
            const person = identity.person?.name ?? "nobody";
            for (const namespace of NAMESPACES) {
              for (const op of OPERATIONS) {
                const row = `${short(op.rpc)} in ${namespace}`;
                await t.step(row, async () => {
                  const got = await run(
                    corral,
                    op.rpc,
                    op.request(namespace, person),
                    options,
                  );
                  seen.set(`${identity.name}: ${row}`, got);
                  check(got, expected(identity, op, namespace));
                  if (op.verb === "create" && got.code === 0) {
                    assert.equal(
                      got.result?.namespace,
                      namespace,
                      "namespace",
                    );
                  }
                });
              }
            }
            for (const op of LIST_ALL) {
              await t.step(short(op.rpc), async () => {
                const got = await run(corral, op.rpc, {}, options);
                seen.set(`${identity.name}: ${short(op.rpc)}`, got);
                check(got, expectedListAll(identity, op));
              });
            }
          });
        }
      });
    } finally {
      await corral.close();
      await files.close();
    }
  }
  await t.step("both transports answer every row alike", () => {
    const rows = [...outcomes.http.keys()];
    assert.equal(
      rows.length,
      IDENTITIES.length * (NAMESPACES.length * OPERATIONS.length + 2),
    );
    for (const row of rows) {
      const [http, grpc] = [outcomes.http.get(row), outcomes.grpc.get(row)];
      assert.equal(grpc?.code, http?.code, `${row}: code`);
      assert.equal(grpc?.message, http?.message, `${row}: message`);
    }
  });
});
