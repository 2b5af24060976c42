/**
 * HTTP units: what the HTTP port serves that is no RPC of the proto (the
 * dashboard proxy and its sessions, /whoami, /metrics under
 * authentication), declared as the RPCs are and run through the same chain
 * (api/service/dispatcher.ts): authentication, the policy row, rate limits
 * and stream caps, audit, request metrics and the log line. A unit's
 * handler is called only once the chain has let the call through, with the
 * same CallContext an RPC's gets; it never authenticates, authorizes or
 * audits by itself.
 *
 * A unit's request, as the chain sees it, is its path variables
 * (`{namespace, name}`), or what its own `decode` makes of the request
 * once the caller is known (a body it reads): what the row authorizes, the
 * audit names and the log line says. Its answer is a Response, or an
 * HttpAnswer whose lifetime (a WebSocket, a watch) the chain then guards
 * and follows to its end. Its refusals are Corral's error answers, or
 * what its own `refuse` makes of them (a Kubernetes Status).
 */
import type { ServiceError } from "../../domain/errors.ts";
import type { Message } from "../../domain/message_form.ts";
import type { Call } from "../service/call.ts";
import { type Dispatcher, HttpAnswer } from "../service/dispatcher.ts";
import type {
  CallContext,
  Declaration,
  NamespaceScope,
  RpcRule,
} from "../service/rpcs.ts";
import { errorResponse } from "./error_answers.ts";
import { httpCall } from "./http_call.ts";
import type { HttpRequest } from "./http_request.ts";
import type { Endpoint, Params } from "./router.ts";

export interface HttpUnit {
  /** How logs, metrics and the audit name it: "corral.Dashboard/Proxy". */
  key: string;
  /** The methods it serves; HEAD is GET's (router.ts). */
  methods: readonly string[];
  /**
   * Its path with variables, as the route label of the request metrics
   * and the log line say it: "/apis/v1alpha2/whoami".
   */
  path: string;
  /** The path variables when `parts` (the decoded path) is the unit's. */
  match(parts: string[]): Params | undefined;
  /** As Endpoint's: the segments its paths may take (router.ts). */
  shape?: readonly (string | undefined)[];
  /**
   * Its row in the policy table (Declaration's), of one namespace, the
   * path's: a unit acts on one cluster, or on none (whoami).
   */
  rule?: UnitRule;
  /**
   * The row of one call, where the request says which (an Events list
   * narrowed to one kind's); `rule` otherwise.
   */
  ruleOf?(request: HttpRequest): UnitRule;
  /** What the chain asks before the handler; Declaration's. */
  check?: Declaration["check"];
  /** What its errors start with; Declaration's. */
  action?: (request: Message) => string;
  /**
   * What the call is besides its request line: credentials of another
   * kind (a cookie), a stream it opens (a WebSocket).
   */
  prepare?(
    request: HttpRequest,
    params: Params,
  ): Pick<Call, "credentials" | "opensStream">;
  /**
   * The request as the chain sees it, where it is more than the path
   * variables: called once the caller is authenticated, before the row is
   * checked; what it throws is the call's refusal. Its `namespace` and
   * `name` are what the row authorizes.
   */
  decode?(request: HttpRequest, params: Params): Promise<Message>;
  /** How its refusals are answered, where not as Corral's (errorResponse). */
  refuse?(error: ServiceError, requestId: string, params: Params): Response;
  handle(
    request: HttpRequest,
    params: Params,
    call: UnitContext,
    /** The request as the chain saw it (`decode`'s, or the path's). */
    message: Message,
  ): Promise<Response | HttpAnswer>;
}

/**
 * A unit's row: of one namespace, the path's; or of every namespace the
 * caller may use (a list across namespaces), whose handler is then given
 * a NamespacesScope.
 */
export type UnitRule = RpcRule & { namespace: "request" | "all" };

/**
 * What a unit's handler knows of the call: its path's one namespace (a
 * unit whose row is of every namespace is given a NamespacesScope instead,
 * and reads its scope as a Scope).
 */
export type UnitContext = CallContext<NamespaceScope>;

/** The router's endpoints of `units`, each call through `dispatcher`. */
export function unitEndpoints(
  dispatcher: Dispatcher,
  units: readonly HttpUnit[],
): Endpoint[] {
  return units.flatMap((unit) =>
    unit.methods.map((method) => ({
      method,
      match: unit.match,
      ...(unit.shape ? { shape: unit.shape } : {}),
      handle: (request: HttpRequest, params: Params) =>
        serveUnit(dispatcher, unit, `${method} ${unit.path}`, request, params),
    }))
  );
}

/** One call of `unit`: through the chain, answered or refused. */
async function serveUnit(
  dispatcher: Dispatcher,
  unit: HttpUnit,
  route: string,
  request: HttpRequest,
  params: Params,
): Promise<Response> {
  const call: Call = {
    ...httpCall(request, unit.key, route),
    authorization: request.headers.get("authorization") ?? undefined,
    target: { namespace: params.namespace, name: params.name },
    http: { method: request.method, path: new URL(request.url).pathname },
    ...unit.prepare?.(request, params),
  };
  const declaration: Declaration = {
    key: unit.key,
    rule: unit.ruleOf?.(request) ?? unit.rule,
    check: unit.check,
    action: unit.action,
    streaming: false,
    handle: async (message, context) => {
      // One namespace: the row's (HttpUnit.rule), or none (authenticatedOnly).
      const scoped = context as UnitContext;
      const answer = await unit.handle(request, params, scoped, message);
      return answer instanceof HttpAnswer ? answer : new HttpAnswer(answer);
    },
  };
  const { response, error } = await dispatcher.serve(
    call,
    declaration,
    unit.decode ? () => unit.decode!(request, params) : () => requestOf(params),
    request.signal,
  );
  if (error) {
    // A body the unit never read is left as the gateway's refusals leave
    // it, for the listener to pass over: cancelled here, after the chain's
    // awaits, node's web view of the request can still be handed data,
    // which it then throws out of its event handler (Deno 2.9), taking
    // the process with it.
    return unit.refuse
      ? unit.refuse(error, call.requestId, params)
      : errorResponse(error, { requestId: call.requestId });
  }
  return response!;
}

/** The request the chain sees: the path's namespace and name. */
function requestOf(params: Params): Message {
  return {
    ...(params.namespace !== undefined ? { namespace: params.namespace } : {}),
    ...(params.name !== undefined ? { name: params.name } : {}),
  };
}
