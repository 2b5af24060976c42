/**
 * What the quota tests share: a Corral (or several, as replicas over one
 * stand-in) under the quota fixtures' policy, the compute template every
 * cluster of theirs is made of, and the bodies of their requests.
 */
import assert from "node:assert/strict";
import { Code } from "../../../domain/errors.ts";
import { type Corral, startCorral, TRANSPORTS } from "../../harness.ts";
import {
  bearer,
  fileAccess,
  ROOT,
  type TestAccess,
} from "./access_fixtures.ts";
import { POLICY_WITH_QUOTAS } from "./quota_fixtures.ts";

export const CS = "proto.ClusterService";
const CT = "proto.ComputeTemplateService";

export const root = { authorization: bearer(ROOT) };

/** A cluster of a head and `count` workers, all of template `t`. */
export function clusterBody(
  namespace: string,
  name: string,
  user: string,
  count = 1,
) {
  return {
    namespace,
    cluster: {
      name,
      namespace,
      user,
      version: "2.9.0",
      clusterSpec: {
        headGroupSpec: { computeTemplate: "t", rayStartParams: {} },
        workerGroupSpec: [workers(count)],
      },
    },
  };
}

/** One worker group of `count` workers of template `t`. */
export function workers(count: number) {
  return {
    groupName: "w",
    computeTemplate: "t",
    replicas: count,
    minReplicas: 0,
    maxReplicas: count,
    rayStartParams: {},
  };
}

/** A Corral with the fixtures' people and quotas; over `kubeUrl`'s stand-in if given. */
export async function quotaCorral(kubeUrl?: string) {
  const access: TestAccess = await fileAccess({ policy: POLICY_WITH_QUOTAS });
  let corral: Corral;
  try {
    corral = await startCorral({ access: access.access, kubeUrl });
  } catch (error) {
    await access.close();
    throw error;
  }
  return {
    corral,
    async [Symbol.asyncDispose]() {
      await corral.close();
      await access.close();
    },
  };
}

export async function ok(
  got: Promise<{ code: number; message: string }>,
  what: string,
) {
  const outcome = await got;
  assert.equal(outcome.code, Code.OK, `${what}: ${outcome.message}`);
}

/** Template `t` (2 CPUs, 4 GiB, 1 GPU) in each of `namespaces`. */
export async function withTemplates(corral: Corral, namespaces: string[]) {
  for (const namespace of namespaces) {
    const [, via] = TRANSPORTS[0];
    await ok(
      via(corral, `${CT}/CreateComputeTemplate`, {
        namespace,
        computeTemplate: { name: "t", namespace, cpu: 2, memory: 4, gpu: 1 },
      }, root),
      `template in ${namespace}`,
    );
  }
}
