/** Small helpers shared by the cache tests. */
import type { KindName } from "../../domain/kinds.ts";
import type { KindPorts, Orchestrator } from "../../domain/ports.ts";
import { LABEL, MANAGED_BY } from "../../domain/resources.ts";
import type { Standin } from "../../standin/mod.ts";
import { create, rayCluster, RC } from "../standin/requests.ts";

/**
 * Creates a managed RayCluster in namespace team-a straight in the
 * stand-in, as another replica would; answers its resourceVersion.
 */
export async function createElsewhere(
  standin: Standin,
  name: string,
): Promise<string> {
  const { body } = await create(
    standin,
    RC,
    rayCluster(name, {
      metadata: { name, labels: { [LABEL.managedBy]: MANAGED_BY } },
    }),
  );
  return body.metadata.resourceVersion;
}

/** "ok" when `promise` resolves, else the code of the error it rejects with. */
export async function codeOf(
  promise: Promise<unknown>,
): Promise<number | "ok"> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    return (error as { code: number }).code;
  }
}

/**
 * `orchestrator` with the get() of its `kind` port replaced by what `wrap`
 * makes of the port's own (to count, or hold back, the cache's lookups).
 */
export function withGet<K extends KindName>(
  orchestrator: Orchestrator,
  kind: K,
  wrap: (get: KindPorts[K]["get"]) => KindPorts[K]["get"],
): Orchestrator {
  const port = (orchestrator as KindPorts)[kind];
  const get = wrap(port.get.bind(port));
  const wrapped = new Proxy(port, {
    get: (target, property) =>
      property === "get" ? get : bound(target, property),
  });
  return new Proxy(orchestrator, {
    get: (target, property) =>
      property === kind ? wrapped : bound(target, property),
  });
}

/** `target`'s member, a method bound to it. */
function bound(target: object, property: string | symbol): unknown {
  const value = Reflect.get(target, property);
  return typeof value === "function" ? value.bind(target) : value;
}
