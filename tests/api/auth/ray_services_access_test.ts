/**
 * Services under the policy, tried as an attacker would, on both
 * transports: the `services` resource per namespace and verb (a grant of
 * clusters is none of services, and the reverse), and a service's
 * cluster_spec admitted exactly as a cluster's: a host path or Corral's
 * own service account is refused 403 naming the service's field, nothing
 * written.
 */
import assert from "node:assert/strict";
import { type Corral, startCorral, TRANSPORTS } from "../../harness.ts";
import { sampleService } from "../service_cases.ts";
import {
  bearer,
  fileAccess,
  person,
  type TestAccess,
  tokenFileText,
} from "./access_fixtures.ts";
import { allow, groups, policyText } from "./policy_fixtures.ts";

const RS = "proto.RayServeService";
const NS = "team-a";

const SERVER = person("server", "server", ["serving"]);
const READER = person("reader", "reader", ["readers"]);
const CLUSTERS_ONLY = person("clusters", "clusters", ["cluster-team"]);
const PEOPLE = [SERVER, READER, CLUSTERS_ONLY];

const POLICY = policyText([
  allow(groups("serving"), ["team-a"], ["services", "computetemplates"], ["*"]),
  allow(groups("readers"), ["team-a"], ["services"], ["get", "list"]),
  allow(
    groups("cluster-team"),
    ["team-a", "team-b"],
    ["clusters", "computetemplates"],
    ["*"],
  ),
]);

async function withCorral(
  run: (corral: Corral) => Promise<void>,
): Promise<void> {
  const files: TestAccess = await fileAccess({
    tokens: tokenFileText(PEOPLE),
    policy: POLICY,
  });
  const corral = await startCorral({ access: files.access });
  try {
    await run(corral);
  } finally {
    await corral.close();
    await files.close();
  }
}

Deno.test("services are granted per namespace and verb, apart from clusters, on both transports", async (t) => {
  await withCorral(async (corral) => {
    const as = (who: typeof SERVER) => ({ authorization: bearer(who) });
    const [, http] = TRANSPORTS[0];
    const template = await http(
      corral,
      "proto.ComputeTemplateService/CreateComputeTemplate",
      { namespace: NS, computeTemplate: { name: "small", cpu: 2, memory: 4 } },
      as(SERVER),
    );
    assert.equal(template.code, 0, template.message);
    for (const [transport, call] of TRANSPORTS) {
      const name = `fruit-${transport}`;
      const create = (who: typeof SERVER, namespace = NS) =>
        call(corral, `${RS}/CreateRayService`, {
          namespace,
          service: sampleService(name, { user: who.user }),
        }, as(who));
      await t.step(
        `${transport}: the serving team creates in team-a`,
        async () => {
          const created = await create(SERVER);
          assert.equal(created.code, 0, created.message);
        },
      );
      await t.step(`${transport}: nobody creates in team-b`, async () => {
        const refused = await create(SERVER, "team-b");
        assert.equal(refused.code, 7);
        assert.match(
          refused.message,
          /may not create services in namespace "team-b"/,
        );
      });
      await t.step(`${transport}: readers read, and no more`, async () => {
        const got = await call(corral, `${RS}/GetRayService`, {
          namespace: NS,
          name,
        }, as(READER));
        assert.equal(got.code, 0, got.message);
        const listed = await call(
          corral,
          `${RS}/ListAllRayServices`,
          {},
          as(
            READER,
          ),
        );
        assert.equal(listed.code, 0, listed.message);
        for (const rpc of ["DeleteRayService", "UpdateRayService"]) {
          const refused = await call(corral, `${RS}/${rpc}`, {
            namespace: NS,
            name,
            ...(rpc === "UpdateRayService"
              ? { service: sampleService(name, { user: SERVER.user }) }
              : {}),
          }, as(READER));
          assert.equal(refused.code, 7, `${rpc}: ${refused.message}`);
        }
        assert.equal((await create(READER)).code, 7);
      });
      await t.step(
        `${transport}: a grant of clusters is none of services`,
        async () => {
          for (const request of [{ namespace: NS, name }, { namespace: NS }]) {
            const rpc = "name" in request ? "GetRayService" : "ListRayServices";
            const refused = await call(
              corral,
              `${RS}/${rpc}`,
              request,
              as(CLUSTERS_ONLY),
            );
            assert.equal(refused.code, 7, `${rpc}: ${refused.message}`);
            assert.match(refused.message, /may not (get|list) services/);
          }
          const refused = await create(CLUSTERS_ONLY);
          assert.equal(refused.code, 7);
        },
      );
      await t.step(`${transport}: the serving team deletes`, async () => {
        const deleted = await call(corral, `${RS}/DeleteRayService`, {
          namespace: NS,
          name,
        }, as(SERVER));
        assert.equal(deleted.code, 0, deleted.message);
      });
    }
  });
});

Deno.test("a service's cluster_spec meets a cluster's workload admission: host paths and Corral's service account are refused 403 naming the field", async (t) => {
  await withCorral(async (corral) => {
    const as = { authorization: bearer(SERVER) };
    const [, http] = TRANSPORTS[0];
    await http(
      corral,
      "proto.ComputeTemplateService/CreateComputeTemplate",
      { namespace: NS, computeTemplate: { name: "small", cpu: 2, memory: 4 } },
      as,
    );
    const attacks = [
      {
        name: "a host path on the head",
        headGroupSpec: {
          computeTemplate: "small",
          volumes: [{
            name: "root",
            mountPath: "/host",
            volumeType: "HOST_PATH",
            source: "/",
          }],
        },
        field: /service\.clusterSpec\.headGroupSpec\.volumes\[0\]/,
      },
      {
        name: "Corral's own service account",
        headGroupSpec: { computeTemplate: "small", serviceAccount: "corral" },
        field: /service\.clusterSpec\.headGroupSpec\.serviceAccount/,
      },
    ];
    for (const [transport, call] of TRANSPORTS) {
      for (const attack of attacks) {
        await t.step(`${transport}: ${attack.name}`, async () => {
          const name = `evil-${transport}`;
          const refused = await call(corral, `${RS}/CreateRayService`, {
            namespace: NS,
            service: sampleService(name, {
              user: SERVER.user,
              clusterSpec: { headGroupSpec: attack.headGroupSpec },
            }),
          }, as);
          assert.equal(refused.code, 7, refused.message);
          assert.match(refused.message, attack.field);
          const got = await call(corral, `${RS}/GetRayService`, {
            namespace: NS,
            name,
          }, as);
          assert.equal(got.code, 5, "nothing was written");
        });
      }
    }
  });
});
