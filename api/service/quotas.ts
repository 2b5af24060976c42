/**
 * The handler of proto.QuotaService: what a namespace holds against the
 * policy's quotas (api/auth/quota.ts). Read from the cache, as other reads:
 * the figures may lag a write by as long as the cache does; the decisions
 * of quota_guard.ts read Kubernetes itself.
 */
import {
  DIMENSIONS,
  quotasFor,
  sumUsage,
  type Usage,
  usageUnder,
} from "../auth/quota.ts";
import type {
  GetQuotaUsageRequest,
  GetQuotaUsageResponse,
  QuotaAmounts,
} from "../../domain/types.ts";
import type { Service } from "./service.ts";
import type { CallContext, NamespaceScope } from "./rpcs.ts";

/** The words the API uses for the policy file's dimensions. */
const API_NAMES: Record<keyof Usage, string> = {
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
      .map((quota) => ({
        scope: quota.scope,
        limits: amounts(quota.limits),
        limited: DIMENSIONS.filter((d) => quota.limits[d] !== undefined)
          .map((d) => API_NAMES[d]),
        used: amounts(usageUnder(quota, holdings)),
      }));
    return { namespace, used: amounts(sumUsage(holdings)), quotas };
  }
}

/** Usage as the API answers it (an absent dimension as 0). */
function amounts(usage: Partial<Usage>): QuotaAmounts {
  return {
    clusters: usage.maxClusters ?? 0,
    workers: usage.maxWorkers ?? 0,
    cpu: usage.cpu ?? 0,
    gpu: usage.gpu ?? 0,
    memoryGib: usage.memory ?? 0,
  };
}
