/**
 * Lists made without the cache come in pages of 500, as kubectl and
 * client-go's pager ask, and a continue token gone stale lists again whole.
 */
import assert from "node:assert/strict";
import { ApiException } from "@kubernetes/client-node";
import { KINDS } from "../../domain/kinds.ts";
import type { RayCluster } from "../../domain/resources.ts";
import type {
  CoreV1Port,
  CustomObjectsPort,
} from "../../orchestrator/client_ports.ts";
import { KubernetesCaller } from "../../orchestrator/kubernetes_call.ts";
import { LIST_PAGE_SIZE } from "../../orchestrator/list_pages.ts";
import { ManagedObjectCalls } from "../../orchestrator/managed_objects.ts";
import { customObjectCalls } from "../../orchestrator/resource_calls.ts";
import { MANAGED_CLUSTER_SELECTOR } from "../../domain/resources.ts";

type Asked = { limit?: number; _continue?: string; namespace?: string };

/** A list API over `count` managed clusters, recording what it was asked. */
function pagedApi(count: number, expireContinue = false) {
  const all = Array.from({ length: count }, (_, i) => ({
    metadata: {
      name: `c-${i}`,
      namespace: "team-a",
      labels: MANAGED_CLUSTER_SELECTOR,
    },
  }));
  const asked: Asked[] = [];
  const list = (params: Asked) => {
    asked.push({
      limit: params.limit,
      _continue: params._continue,
      namespace: params.namespace,
    });
    if (params._continue && expireContinue) {
      return Promise.reject(
        new ApiException(410, "Gone", { reason: "Expired" }, {}),
      );
    }
    if (!params.limit) return Promise.resolve({ items: all, metadata: {} });
    const from = Number(params._continue ?? 0);
    const to = from + params.limit;
    return Promise.resolve({
      items: all.slice(from, to),
      metadata: to < all.length ? { continue: String(to) } : {},
    });
  };
  const api = {
    listNamespacedCustomObject: list,
    listClusterCustomObject: list,
  } as unknown as CustomObjectsPort;
  return { api, asked };
}

function clusters(api: CustomObjectsPort) {
  return new ManagedObjectCalls<RayCluster>(
    new KubernetesCaller({ readAttempts: 1 }),
    customObjectCalls(api, {
      group: "ray.io",
      version: "v1",
      plural: "rayclusters",
    }),
    KINDS.clusters,
    {} as CoreV1Port,
  );
}

Deno.test("a list without the cache asks for pages of 500 and follows the continue tokens to the end", async () => {
  const { api, asked } = pagedApi(1_201);
  const listed = await clusters(api).list("team-a");
  assert.equal(listed.length, 1_201);
  assert.equal(listed.at(-1)?.metadata.name, "c-1200");
  assert.deepEqual(asked, [
    { limit: LIST_PAGE_SIZE, _continue: undefined, namespace: "team-a" },
    { limit: LIST_PAGE_SIZE, _continue: "500", namespace: "team-a" },
    { limit: LIST_PAGE_SIZE, _continue: "1000", namespace: "team-a" },
  ]);
});

Deno.test("a list whose continue token has expired (410) is made again whole, in one answer", async () => {
  const { api, asked } = pagedApi(700, true);
  const listed = await clusters(api).list();
  assert.equal(listed.length, 700);
  assert.deepEqual(asked.map((a) => [a.limit, a._continue]), [
    [LIST_PAGE_SIZE, undefined],
    [LIST_PAGE_SIZE, "500"],
    [undefined, undefined],
  ]);
});
