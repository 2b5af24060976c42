/**
 * Every RPC of the API as a declared unit. The proto gives a method's
 * request and response types and whether it streams (`ApiMethods`,
 * generated into domain/types.ts); RPC_RULES below is the one place its
 * verb and resource are written, with where the namespace and the name it
 * acts on come from. The dispatcher authorizes every call from its row
 * before any handler code runs (authorize.ts), and refuses to start when
 * a method of the schema has no row (declareRpcs).
 *
 * Adding an RPC: the method in proto/ (then `deno task types:gen`), its
 * row here, and its handler in the resource's file (clusters.ts,
 * compute_templates.ts, jobs.ts, job_logs.ts, ray_services.ts, job_submissions.ts,
 * quotas.ts, watch.ts), listed in handlers.ts. The compiler then holds the
 * handler to the method's types and the scope its row gives.
 */
import type protobuf from "protobufjs";
import type { ApiMethods } from "../../domain/types.ts";
import type { CallOptions } from "../../domain/ports.ts";
import type { Logger } from "../../domain/log.ts";
import type { Message } from "../../domain/message_form.ts";
import type { Caller } from "../auth/caller.ts";
import type { Resource, Rule, Verb } from "../auth/policy.ts";
import type { WorkloadSummary } from "../auth/workload_summary.ts";
import { type ApiSchema, methodKey } from "../schema.ts";
import type { HttpAnswer } from "./call.ts";

/** "proto.ClusterService/CreateCluster" */
export type MethodKey = keyof ApiMethods;

/**
 * Where the namespace an RPC acts in comes from:
 * - "request": the request's `namespace`, one namespace, required;
 * - "all": every namespace the caller may use (ListAll*);
 * - "request-or-all": the request's `namespace`, or every namespace the
 *   caller may use when it is empty (Watch*).
 */
export type NamespaceSource = "request" | "all" | "request-or-all";

/** Who may call an RPC, in the policy's words. */
export interface RpcRule {
  verb: Verb;
  resource: Resource;
  namespace: NamespaceSource;
  /**
   * The request field that names the one object acted on: "name" for an
   * existing object (the dispatcher validates it as a key), a body's
   * "cluster.name" for a create. None for a collection.
   */
  name?:
    | "name"
    | "cluster.name"
    | "computeTemplate.name"
    | "job.name"
    | "service.name"
    | "clustername";
  /**
   * The body field that names the namespace when the request's is empty:
   * KubeRay v0.6.0's `POST /apis/v1alpha2/jobs` carries it in the job.
   */
  bodyNamespace?: "job.namespace";
}

/** The rows of the policy table, one per RPC of the API. */
export const RPC_RULES = {
  "proto.ClusterService/CreateCluster": {
    verb: "create",
    resource: "clusters",
    namespace: "request",
    name: "cluster.name",
  },
  "proto.ClusterService/GetCluster": {
    verb: "get",
    resource: "clusters",
    namespace: "request",
    name: "name",
  },
  "proto.ClusterService/ListCluster": {
    verb: "list",
    resource: "clusters",
    namespace: "request",
  },
  "proto.ClusterService/ListAllClusters": {
    verb: "list",
    resource: "clusters",
    namespace: "all",
  },
  "proto.ClusterService/UpdateCluster": {
    verb: "update",
    resource: "clusters",
    namespace: "request",
    name: "name",
  },
  // Extending a cluster's lifetime changes the cluster: update, as PATCH.
  "proto.ClusterService/ExtendCluster": {
    verb: "update",
    resource: "clusters",
    namespace: "request",
    name: "name",
  },
  "proto.ClusterService/DeleteCluster": {
    verb: "delete",
    resource: "clusters",
    namespace: "request",
    name: "name",
  },
  "proto.ClusterService/WatchClusters": {
    verb: "watch",
    resource: "clusters",
    namespace: "request-or-all",
  },
  "proto.ComputeTemplateService/CreateComputeTemplate": {
    verb: "create",
    resource: "computetemplates",
    namespace: "request",
    name: "computeTemplate.name",
  },
  "proto.ComputeTemplateService/GetComputeTemplate": {
    verb: "get",
    resource: "computetemplates",
    namespace: "request",
    name: "name",
  },
  "proto.ComputeTemplateService/ListComputeTemplates": {
    verb: "list",
    resource: "computetemplates",
    namespace: "request",
  },
  "proto.ComputeTemplateService/ListAllComputeTemplates": {
    verb: "list",
    resource: "computetemplates",
    namespace: "all",
  },
  "proto.ComputeTemplateService/DeleteComputeTemplate": {
    verb: "delete",
    resource: "computetemplates",
    namespace: "request",
    name: "name",
  },
  "proto.RayJobService/CreateRayJob": {
    verb: "create",
    resource: "jobs",
    namespace: "request",
    name: "job.name",
    bodyNamespace: "job.namespace",
  },
  "proto.RayJobService/GetRayJob": {
    verb: "get",
    resource: "jobs",
    namespace: "request",
    name: "name",
  },
  "proto.RayJobService/ListRayJobs": {
    verb: "list",
    resource: "jobs",
    namespace: "request",
  },
  "proto.RayJobService/ListAllRayJobs": {
    verb: "list",
    resource: "jobs",
    namespace: "all",
  },
  "proto.RayJobService/UpdateRayJob": {
    verb: "update",
    resource: "jobs",
    namespace: "request",
    name: "name",
  },
  "proto.RayJobService/DeleteRayJob": {
    verb: "delete",
    resource: "jobs",
    namespace: "request",
    name: "name",
  },
  "proto.RayJobService/WatchRayJobs": {
    verb: "watch",
    resource: "jobs",
    namespace: "request-or-all",
  },
  // A job's log is read as the job is, followed or not; under
  // `owners: only`, of the caller's own jobs (api/service/job_logs.ts).
  "proto.RayJobService/GetRayJobLog": {
    verb: "get",
    resource: "jobs",
    namespace: "request",
    name: "name",
  },
  "proto.RayJobService/WatchRayJobLog": {
    verb: "get",
    resource: "jobs",
    namespace: "request",
    name: "name",
  },
  "proto.RayServeService/CreateRayService": {
    verb: "create",
    resource: "services",
    namespace: "request",
    name: "service.name",
  },
  // What a namespace holds against its quotas (api/auth/quota.ts).
  "proto.QuotaService/GetQuotaUsage": {
    verb: "get",
    resource: "quotas",
    namespace: "request",
  },
  "proto.RayServeService/GetRayService": {
    verb: "get",
    resource: "services",
    namespace: "request",
    name: "name",
  },
  "proto.RayServeService/ListRayServices": {
    verb: "list",
    resource: "services",
    namespace: "request",
  },
  "proto.RayServeService/ListAllRayServices": {
    verb: "list",
    resource: "services",
    namespace: "all",
  },
  "proto.RayServeService/UpdateRayService": {
    verb: "update",
    resource: "services",
    namespace: "request",
    name: "name",
  },
  "proto.RayServeService/UpdateRayServiceConfigs": {
    verb: "update",
    resource: "services",
    namespace: "request",
    name: "name",
  },
  "proto.RayServeService/DeleteRayService": {
    verb: "delete",
    resource: "services",
    namespace: "request",
    name: "name",
  },
  // Job submission runs code on a cluster through its dashboard, which is
  // what `proxy` grants (and "*" does not imply): one right for both ways
  // in, so that granting one never silently grants the other.
  "proto.RayJobSubmissionService/SubmitRayJob": {
    verb: "proxy",
    resource: "clusters",
    namespace: "request",
    name: "clustername",
  },
  "proto.RayJobSubmissionService/GetJobDetails": {
    verb: "proxy",
    resource: "clusters",
    namespace: "request",
    name: "clustername",
  },
  "proto.RayJobSubmissionService/GetJobLog": {
    verb: "proxy",
    resource: "clusters",
    namespace: "request",
    name: "clustername",
  },
  "proto.RayJobSubmissionService/ListJobDetails": {
    verb: "proxy",
    resource: "clusters",
    namespace: "request",
    name: "clustername",
  },
  "proto.RayJobSubmissionService/StopRayJob": {
    verb: "proxy",
    resource: "clusters",
    namespace: "request",
    name: "clustername",
  },
  "proto.RayJobSubmissionService/DeleteRayJob": {
    verb: "proxy",
    resource: "clusters",
    namespace: "request",
    name: "clustername",
  },
  "proto.RayJobSubmissionService/WatchJobLog": {
    verb: "proxy",
    resource: "clusters",
    namespace: "request",
    name: "clustername",
  },
  "proto.RayJobSubmissionService/UploadJobPackage": {
    verb: "proxy",
    resource: "clusters",
    namespace: "request",
    name: "clustername",
  },
} as const satisfies Record<MethodKey, RpcRule>;

/** One namespace the caller may act in, with the rules that let it. */
export interface NamespaceScope {
  kind: "namespace";
  namespace: string;
  /** For the workload's admission (Caller.admit). */
  rules: Rule[];
}

/**
 * The namespaces a call across namespaces covers: those both the policy
 * and --namespaces allow; undefined for all of them (one cluster-wide list).
 * Never empty: a caller with none is refused before the handler.
 */
export interface NamespacesScope {
  kind: "namespaces";
  namespaces: readonly string[] | undefined;
  /**
   * With `namespaces` undefined: whether a namespace is left out (a
   * reserved one the caller's "*" does not cover); absent hides none.
   */
  hidden?: (namespace: string) => boolean;
}

export type Scope = NamespaceScope | NamespacesScope;

/**
 * `request` with its namespace filled in from the body field the row names
 * (bodyNamespace) when it has none; `request` itself otherwise. Runs right
 * after decoding, so authorization, the handler, audit and logs all see
 * the one namespace.
 */
export function withBodyNamespace(
  rule: RpcRule | undefined,
  request: Message,
): Message {
  if (!rule?.bodyNamespace || request.namespace) return request;
  let value: unknown = request;
  for (const part of rule.bodyNamespace.split(".")) {
    value = (value as Message | undefined)?.[part];
  }
  return typeof value === "string" && value !== ""
    ? { ...request, namespace: value }
    : request;
}

/** The scope an RPC's handler is given, as its row's namespace source says. */
export type ScopeOf<K extends MethodKey> = {
  request: NamespaceScope;
  all: NamespacesScope;
  "request-or-all": Scope;
}[(typeof RPC_RULES)[K]["namespace"]];

/** What a handler knows of the call besides its request. */
export interface CallContext<S extends Scope = Scope> {
  log: Logger;
  /** Handed to every Kubernetes call the request causes. */
  kube: CallOptions;
  /** Who calls; the policy's questions about secondary resources. */
  caller: Caller;
  /** Where the caller was authorized to act. */
  scope: S;
  /** `Cannot get cluster "team-a/blue"`: the start of every error message. */
  action: string;
  /**
   * Tells the audit trail what workload the call writes (a create's or an
   * update's RayCluster, summarized); absent where nothing audits.
   */
  wrote?: (workload: WorkloadSummary) => void;
}

/** A method's answer: its response, or for a streaming method a stream of them. */
export type Answer<K extends MethodKey> = ApiMethods[K]["streaming"] extends
  true ? AsyncIterableIterator<ApiMethods[K]["response"]>
  : ApiMethods[K]["response"];

/** A method's handler, typed from the proto and its row. */
export type Handler<K extends MethodKey> = (
  request: ApiMethods[K]["request"],
  call: CallContext<ScopeOf<K>>,
) => Promise<Answer<K>>;

/** A handler for every method of the API. */
export type Handlers = { [K in MethodKey]: Handler<K> };

/**
 * A unit as the dispatcher runs it, whatever its types: an RPC of the
 * proto (declared here), or an HTTP unit that is no RPC (api/http/units.ts:
 * the dashboard proxy, its sessions, /whoami, /metrics).
 */
export interface Declaration {
  key: string;
  /**
   * The unit's row in the policy table. Only a unit that any authenticated
   * caller may use (`check: "authentication"`) may have none.
   */
  rule?: RpcRule;
  /**
   * What the chain asks before the handler: "policy" (the default) checks
   * the row; "authentication" only that the caller is known (signing out,
   * whoami), the row then naming the call in the audit alone.
   */
  check?: "policy" | "authentication";
  streaming: boolean;
  /**
   * What every error of the call starts with, where the row's words are
   * not the unit's (`Cannot proxy to cluster "team-a/blue"`).
   */
  action?: (request: Message) => string;
  handle(
    request: Message,
    call: CallContext,
  ): Promise<Message | AsyncIterableIterator<Message> | HttpAnswer>;
}

/**
 * The declaration of every method of `schema`, by key. Throws, naming the
 * method, when one has no row in RPC_RULES or no handler: Corral does not
 * start with an RPC nobody decided who may call.
 */
export function declareRpcs(
  schema: ApiSchema,
  handlers: Handlers,
  rules: Readonly<Record<string, RpcRule>> = RPC_RULES,
): Map<string, Declaration> {
  const declarations = new Map<string, Declaration>();
  for (const service of schema.services) {
    for (const method of service.methodsArray) {
      const declaration = declare(method, handlers, rules);
      declarations.set(declaration.key, declaration);
    }
  }
  return declarations;
}

function declare(
  method: protobuf.Method,
  handlers: Handlers,
  rules: Readonly<Record<string, RpcRule>>,
): Declaration {
  const key = methodKey(method);
  if (!Object.hasOwn(rules, key)) {
    throw new Error(
      `RPC ${key} has no row in the policy table (RPC_RULES in api/service/rpcs.ts): say which verb on which resource it is`,
    );
  }
  if (!Object.hasOwn(handlers, key)) {
    throw new Error(`RPC ${key} has no handler (api/service/handlers.ts)`);
  }
  return {
    key,
    rule: rules[key],
    streaming: method.responseStream === true,
    handle: untyped(handlers[key as MethodKey]),
  };
}

/**
 * A typed handler as the dispatcher calls it. The one place types are
 * asserted rather than checked: the transports decode every request against
 * its method's request type in the proto, domain/types.ts is generated from
 * that proto (tests/tools/types_gen_test.ts fails while they differ), and
 * the scope is made from the same row ScopeOf reads.
 */
function untyped(handler: Handlers[MethodKey]): Declaration["handle"] {
  return handler as unknown as Declaration["handle"];
}
