/**
 * Handlers for every RPC that do nothing but count their calls: for tests
 * of what runs around a handler (the chain, the transports) and of whether
 * a handler ran at all; and the HTTP gateway in front of them, for what the
 * gateway and the router answer themselves, with no socket and no
 * Kubernetes behind.
 */
import { openAccess } from "../../../api/auth/access.ts";
import { createGateway, type Gateway } from "../../../api/http/gateway.ts";
import { silentLogger } from "../../../api/log.ts";
import { createDispatcher } from "../../../api/service/dispatcher.ts";
import { Code, ServiceError } from "../../../domain/errors.ts";
import {
  type Handlers,
  type MethodKey,
  RPC_RULES,
} from "../../../api/service/rpcs.ts";
import { schema } from "../../schema.ts";

export interface Probe {
  handlers: Handlers;
  /** Calls by method key. */
  calls: Map<string, number>;
}

/** Each handler counts its call and answers UNIMPLEMENTED. */
export function probeHandlers(): Probe {
  const calls = new Map<string, number>();
  const handlers = Object.fromEntries(
    Object.keys(RPC_RULES).map((key) => [key, () => {
      calls.set(key, (calls.get(key) ?? 0) + 1);
      return Promise.reject(
        new ServiceError(Code.UNIMPLEMENTED, `${key} is a probe`),
      );
    }]),
  ) as unknown as Handlers;
  return { handlers, calls };
}

/** The gateway over `probe`'s handlers, every caller allowed everything. */
export async function probeGateway(
  probe: Probe = probeHandlers(),
): Promise<Gateway> {
  const api = await schema();
  return createGateway({
    schema: api,
    dispatcher: createDispatcher({
      schema: api,
      handlers: probe.handlers,
      access: openAccess(),
      log: silentLogger(),
    }),
  });
}

/** Every method key of the policy table. */
export const METHOD_KEYS = Object.keys(RPC_RULES) as MethodKey[];
