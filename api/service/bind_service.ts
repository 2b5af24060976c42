/**
 * RPC handlers bound one service at a time, as connect-es's
 * `router.service(ElizaService, impl)` binds them: a service of the proto
 * is implemented by objects whose methods are named after its methods in
 * lowerCamelCase (CreateCluster -> createCluster), and each method of the
 * service is bound to the first of them that has it. The compiler holds
 * each method an implementation has to its RPC's types (Handler); that
 * every RPC has one is checked here, naming the missing one, when the
 * handlers are made (and again by declareRpcs against the schema).
 */
import { type Handler, type MethodKey, RPC_RULES } from "./rpcs.ts";

/** "proto.ClusterService" */
export type ServiceName = MethodKey extends `${infer S}/${string}` ? S
  : never;

/** The keys of one service's methods. */
type KeyOf<S extends ServiceName> = Extract<MethodKey, `${S}/${string}`>;

/** What implements (part of) a service: its methods, by their lowerCamel names. */
export type ServiceImplementation<S extends ServiceName> = {
  [K in KeyOf<S> as K extends `${S}/${infer M}` ? Uncapitalize<M> : never]:
    Handler<K>;
};

/** A service's handlers, by method key, as the dispatcher takes them. */
export type ServiceHandlers<S extends ServiceName> = {
  [K in KeyOf<S>]: Handler<K>;
};

/**
 * The handlers of `service`'s methods, each bound to the first of `parts`
 * that implements it. Throws, naming the RPC, when none does.
 */
export function bindService<S extends ServiceName>(
  service: S,
  ...parts: Partial<ServiceImplementation<S>>[]
): ServiceHandlers<S> {
  const bound: Record<string, unknown> = {};
  for (const key of Object.keys(RPC_RULES)) {
    if (!key.startsWith(`${service}/`)) continue;
    const method = key.slice(service.length + 1);
    const name = method[0].toLowerCase() + method.slice(1);
    const part = parts.find((part) =>
      typeof (part as Record<string, unknown>)[name] === "function"
    ) as Record<string, (...args: unknown[]) => unknown> | undefined;
    if (!part) {
      throw new Error(
        `RPC ${key} has no handler: no implementation of ${service} has a method ${name}`,
      );
    }
    bound[key] = part[name].bind(part);
  }
  return bound as ServiceHandlers<S>;
}
