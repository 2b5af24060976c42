import assert from "node:assert/strict";
import { bindService } from "../../../api/service/bind_service.ts";
import type { CallContext, NamespaceScope } from "../../../api/service/rpcs.ts";
import type { ApiMethods } from "../../../domain/types.ts";

type Usage = ApiMethods["proto.QuotaService/GetQuotaUsage"];

Deno.test("bindService() binds each method of the service to the first implementation that has it, as that object's method", async () => {
  class Quotas {
    readonly answer = { quotas: [] } as unknown as Usage["response"];
    getQuotaUsage(
      _request: Usage["request"],
      _call: CallContext<NamespaceScope>,
    ): Promise<Usage["response"]> {
      return Promise.resolve(this.answer);
    }
  }
  const first = new Quotas();
  const handlers = bindService("proto.QuotaService", first, new Quotas());
  assert.deepEqual(Object.keys(handlers), ["proto.QuotaService/GetQuotaUsage"]);
  const answer = await handlers["proto.QuotaService/GetQuotaUsage"](
    {} as Usage["request"],
    {} as CallContext<NamespaceScope>,
  );
  assert.equal(answer, first.answer);
});

Deno.test("bindService() refuses a service with a method no implementation has, naming the RPC", () => {
  assert.throws(
    () => bindService("proto.ClusterService", {}),
    /^Error: RPC proto\.ClusterService\/CreateCluster has no handler: no implementation of proto\.ClusterService has a method createCluster$/,
  );
});
