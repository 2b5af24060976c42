/**
 * A cluster's lifetime through both transports, under a policy with an
 * `expiry:` section: ttl and expires_at on create (stored as the
 * RayCluster's corral.dev/expires-at annotation, read back as expiresAt),
 * the namespace's default, the maximum refused with code 3 naming the field
 * and the maximum, and ExtendCluster within and beyond the maximum.
 */
import assert from "node:assert/strict";
import { startCorral, TRANSPORTS } from "../harness.ts";
import { sampleCluster } from "./cases.ts";
import {
  ALICE,
  bearer,
  fileAccess,
  tokenFileText,
} from "./auth/access_fixtures.ts";
import { allowAll, policyText, users } from "./auth/policy_fixtures.ts";

const POLICY = policyText([allowAll(users("alice"), ["team-a", "team-b"])], {
  expiry: [{ namespaces: ["team-a"], default: "8h", max: "24h" }],
});

const CREATE = "proto.ClusterService/CreateCluster";
const EXTEND = "proto.ClusterService/ExtendCluster";
const HOUR = 3_600_000;

function cluster(name: string, extra: Record<string, unknown> = {}) {
  return {
    ...sampleCluster({
      name,
      user: "alice",
      version: "2.9.0",
      clusterSpec: {
        headGroupSpec: {},
        workerGroupSpec: [{ groupName: "workers", replicas: 1 }],
      },
    }),
    ...extra,
  };
}

/** Hours from now to an expiresAt answer, to a tenth. */
function hoursAhead(result: Record<string, unknown> | undefined): number {
  const at = Date.parse(String(result?.expiresAt));
  return Math.round((at - Date.now()) / HOUR * 10) / 10;
}

Deno.test("expiry: ttl, expires_at, the policy's default and max, and ExtendCluster, on both transports", async (t) => {
  const files = await fileAccess({
    tokens: tokenFileText([ALICE]),
    policy: POLICY,
  });
  const corral = await startCorral({ access: files.access });
  const authorization = bearer(ALICE);
  try {
    for (const [transport, run] of TRANSPORTS) {
      await t.step(transport, async () => {
        const call = (rpc: string, request: Record<string, unknown>) =>
          run(corral, rpc, request, { authorization });
        const ns = "team-a";
        const at = (n: string) => `${n}-${transport}`;

        const byTtl = await call(CREATE, {
          namespace: ns,
          cluster: cluster(at("ttl"), { ttl: "2h" }),
        });
        assert.equal(byTtl.code, 0, byTtl.message);
        assert.equal(hoursAhead(byTtl.result), 2);
        assert.equal(byTtl.result?.ttl ?? "", "");
        const stored = await (await fetch(
          `${corral.kubeUrl}/apis/ray.io/v1/namespaces/${ns}/rayclusters/${
            at("ttl")
          }`,
        )).json();
        assert.match(
          stored.metadata.annotations["corral.dev/expires-at"],
          /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
        );

        const byDefault = await call(CREATE, {
          namespace: ns,
          cluster: cluster(at("default")),
        });
        assert.equal(byDefault.code, 0, byDefault.message);
        assert.equal(hoursAhead(byDefault.result), 8);

        const noPolicy = await call(CREATE, {
          namespace: "team-b",
          cluster: cluster(at("forever"), { namespace: "team-b" }),
        });
        assert.equal(noPolicy.code, 0, noPolicy.message);
        assert.equal(noPolicy.result?.expiresAt ?? null, null);

        const tooLong = await call(CREATE, {
          namespace: ns,
          cluster: cluster(at("long"), { ttl: "25h" }),
        });
        assert.equal(tooLong.code, 3);
        assert.match(
          tooLong.message,
          /^Cannot create cluster "team-a\/long-\w+": cluster\.ttl: the cluster would expire at .*, past the maximum lifetime of 24h/,
        );

        const badTtl = await call(CREATE, {
          namespace: ns,
          cluster: cluster(at("bad"), { ttl: "soon" }),
        });
        assert.equal(badTtl.code, 3);
        assert.match(badTtl.message, /cluster\.ttl: "soon" is not a duration/);

        const past = await call(CREATE, {
          namespace: ns,
          cluster: cluster(at("past"), {
            expiresAt: "2020-01-01T00:00:00Z",
          }),
        });
        assert.equal(past.code, 3);
        assert.match(
          past.message,
          /cluster\.expires_at: must be in the future/,
        );

        const extended = await call(EXTEND, {
          namespace: ns,
          name: at("ttl"),
          by: "4h",
        });
        assert.equal(extended.code, 0, extended.message);
        assert.equal(hoursAhead(extended.result), 6);

        const beyond = await call(EXTEND, {
          namespace: ns,
          name: at("ttl"),
          by: "20h",
        });
        assert.equal(beyond.code, 3);
        assert.match(
          beyond.message,
          /^Cannot update cluster "team-a\/ttl-\w+": by: the cluster would expire at .*, past the maximum lifetime of 24h/,
        );

        const missing = await call(EXTEND, {
          namespace: ns,
          name: "nobody",
          by: "1h",
        });
        assert.equal(missing.code, 5);
      });
    }
  } finally {
    await corral.close();
    await files.close();
  }
});
