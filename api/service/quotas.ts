/**
 * The handler of proto.QuotaService: what a namespace holds against the
 * policy's quotas (api/auth/quota.ts). Read from the cache, as other reads:
 * the figures may lag a write by as long as the cache does; the decisions
 * of quota_guard.ts read Kubernetes itself.
 */
import {
  type Dimension,
  limitedBy,
  quotasFor,
  sumUsage,
  type Usage,
  usageUnder,
  usageWithAccelerators,
} from "../auth/quota.ts";
import { isAccelerator } from "../auth/accelerators.ts";
import type {
  GetQuotaUsageRequest,
  GetQuotaUsageResponse,
  QuotaAmounts,
} from "../../domain/types.ts";
import type { Service } from "./service.ts";
import type { CallContext, NamespaceScope } from "./rpcs.ts";

/** The words the API uses for the policy file's dimensions. */
const API_NAMES: Record<Dimension, string> = {
  maxClusters: "clusters",
  maxWorkers: "workers",
  cpu: "cpu",
  gpu: "gpu",
  memory: "memory",
};

export class QuotaHandlers {
  constructor(private readonly service: Service) {}

  async getQuotaUsage(
    _request: GetQuotaUsageRequest,
    { kube, caller, scope }: CallContext<NamespaceScope>,
  ): Promise<GetQuotaUsageResponse> {
    const { namespace } = scope;
    const holdings = await this.service.quotas.holdings(namespace, kube, false);
    const quotas = quotasFor(
      caller.quotas?.() ?? [],
      namespace,
      caller.identity,
    )
      .map((quota) => {
        const named = Object.keys(quota.limits.extended ?? {});
        return {
          scope: quota.scope,
          limits: amounts(quota.limits, named),
          limited: limitedBy(quota.limits).map((key) =>
            API_NAMES[key as Dimension] ?? key
          ),
          used: amounts(usageUnder(quota, holdings), named),
        };
      });
    const accelerators = caller.accelerators?.();
    const used = usageWithAccelerators(sumUsage(holdings), accelerators);
    const held = Object.keys(used.extended ?? {}).filter((name) =>
      isAccelerator(name, accelerators)
    );
    return { namespace, used: amounts(used, held), quotas };
  }
}

/**
 * Usage as the API answers it (an absent dimension as 0), with the
 * accelerators `named` by resource name.
 */
function amounts(usage: Partial<Usage>, named: string[]): QuotaAmounts {
  return {
    clusters: usage.maxClusters ?? 0,
    workers: usage.maxWorkers ?? 0,
    cpu: usage.cpu ?? 0,
    gpu: usage.gpu ?? 0,
    memoryGib: usage.memory ?? 0,
    accelerators: Object.fromEntries(
      named.sort().map((name) => [name, usage.extended?.[name] ?? 0]),
    ),
  };
}
