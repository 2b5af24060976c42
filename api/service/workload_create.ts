/**
 * A workload's create: the same steps, in one order, for every kind that
 * runs pods (a cluster, a job, a service), each taken as the kind's row in
 * KINDS says (domain/kinds.ts, `writes`):
 *
 *   owners     `user` filled in with the caller's, and no one else's
 *   validate   the kind's own checks, every violation at once
 *   queue      the queue named (if the policy allows it), else the default
 *   expiry     ttl, expires_at or the policy's default (else its max),
 *              within its max; none where the policy exempts the kind
 *   render     the kind's resource, with what the steps above decided
 *   admission  every pod the rendered workload would run, against the rules
 *   quota      what it holds counted, and held while it is written
 *
 * What a kind declares is only what differs (WorkloadCreate): how it is
 * validated and rendered, and what admission and the quota refusal call
 * it. A kind cannot skip owners, admission or quota; that it takes no
 * queue or expiry is written in its row, with why. The RPCs' creates and
 * those of whole objects through the Kubernetes-shaped routes
 * (object_writes.ts, whose render is the object sent, with what the steps
 * decided stamped on it) run the same steps: writeWorkload.
 */
import { expiryOnCreate, limitOfKind } from "../../domain/expiry.ts";
import {
  type Kind,
  type KindObjects,
  KINDS,
  type WorkloadKindName,
  writeStepsOf,
} from "../../domain/kinds.ts";
import type { ObjectPort } from "../../domain/ports.ts";
import type { Workload } from "../auth/workload.ts";
import { AuthorizationError } from "../auth/authorization_error.ts";
import { queueOnCreate } from "../auth/queue_policy.ts";
import { summarizeWorkload } from "../auth/workload_summary.ts";
import { holdingOf } from "./quota_guard.ts";
import type { CallContext, NamespaceScope } from "./rpcs.ts";
import type { Service } from "./service.ts";

type NamespaceCall = CallContext<NamespaceScope>;

/** What the steps read and set of a workload's message. */
export interface WorkloadMessage {
  name: string;
  namespace: string;
  user: string;
  queue?: string;
  ttl?: string;
  expiresAt?: Date;
}

/** What a kind renders its message into. */
export interface Rendered<R> {
  /** The object written. */
  resource: R;
  /**
   * What admission sees of it: the resource itself, or the cluster a
   * RayService runs.
   */
  workload: Workload;
}

/** Where a workload's queue, lifetime and owner are given. */
export interface WorkloadFields {
  queue: string;
  ttl: string;
  expiresAt: string;
  user: string;
}

/** The part of a create that differs from kind to kind. */
export interface WorkloadCreate<M extends WorkloadMessage, R> {
  kind: WorkloadKindName;
  /** The request field that holds it ("cluster"): violations name its fields. */
  field: string;
  /** How admission's refusals name what it checks: "cluster", "service". */
  admittedAs?: string;
  /** How a quota's refusal names it: "this cluster", "this job". */
  what: string;
  /**
   * Where the queue, the lifetime and the owner are given, where not the
   * message's fields under `field` (`cluster.queue`, `cluster.ttl`): a
   * whole Kubernetes object carries them in its labels and annotations
   * (object_writes.ts), and refusals name those.
   */
  fields?: WorkloadFields;
  /**
   * The kind's own checks of the message, in the call's namespace; throws
   * INVALID_ARGUMENT listing every violation.
   */
  validate(message: M | undefined, call: NamespaceCall): void;
  /**
   * Whether it may wait in a queue, where its row takes one: yes by
   * default (a job on an existing cluster may not: that cluster was
   * admitted already).
   */
  queueable?(message: M): boolean;
  /**
   * Whether it takes an expiry, where its row takes one: yes by default (a
   * job on an existing cluster holds no cluster of its own: that cluster's
   * expiry is what bounds it).
   */
  expires?(message: M): boolean;
  render(message: M, call: NamespaceCall): Promise<Rendered<R>>;
}

/**
 * Creates the workload `requested` (the request's field, as sent) of
 * `create`'s kind in the call's namespace; its message, from the resource
 * as stored (the kind's row's conversion).
 */
export async function createWorkload<
  M extends WorkloadMessage,
  R extends KindObjects[WorkloadKindName],
>(
  service: Service,
  create: WorkloadCreate<M, R>,
  requested: M | undefined,
  call: NamespaceCall,
): Promise<M> {
  const created = await writeWorkload(service, create, requested, call);
  const kind = KINDS[create.kind] as unknown as Kind<R, M>;
  return kind.message(created, []);
}

/**
 * The steps of a workload's create, in their one order, then the write:
 * the resource as stored. What `requested` is (a message of the API, or a
 * whole Kubernetes object: object_writes.ts) is `create`'s to say; the
 * steps are the same.
 */
export async function writeWorkload<
  M extends WorkloadMessage,
  R extends KindObjects[WorkloadKindName],
>(
  service: Service,
  create: WorkloadCreate<M, R>,
  requested: M | undefined,
  call: NamespaceCall,
): Promise<R> {
  const steps = writeStepsOf(create.kind);
  const { caller, scope, action, log, kube } = call;
  const namespace = scope.namespace;
  const fields = fieldsOf(create);
  const owned = ownedBy(requested, call);
  create.validate(owned, call);
  const message = { ...owned!, namespace };
  checkCreator(message, create.kind, fields.user, call);
  if (steps.queue === true) {
    const limit = caller.queueLimit?.(namespace) ?? {};
    message.queue = queueOnCreate(
      message.queue ?? "",
      create.queueable?.(message) === false
        ? { allowed: limit.allowed }
        : limit,
      action,
      fields.queue,
    );
  }
  if (steps.expiry === true && create.expires?.(message) !== false) {
    message.expiresAt = expiryOnCreate(
      message,
      limitOfKind(caller.expiryLimit?.(namespace) ?? {}, create.kind),
      service.now(),
      action,
      { field: create.field, noun: KINDS[create.kind].noun, fields },
    );
  }
  const { resource, workload } = await create.render(message, call);
  caller.admit(action, scope.rules, workload, "create", create.admittedAs);
  call.wrote?.(summarizeWorkload(workload));
  const port = service.orchestrator[create.kind] as unknown as ObjectPort<R>;
  const created = await service.quotas.write(call, {
    holding: holdingOf(resource),
    what: create.what,
    write: () => port.create(resource, kube),
  });
  log.info(`Created ${KINDS[create.kind].noun}`, {
    namespace,
    name: message.name,
  });
  return created;
}

/** Where `create`'s refusals say its queue, lifetime and owner are. */
function fieldsOf(
  create: { field: string; fields?: WorkloadFields },
): WorkloadFields {
  const { field } = create;
  return create.fields ?? {
    queue: `${field}.queue`,
    ttl: `${field}.ttl`,
    expiresAt: `${field}.expires_at`,
    user: `${field}.user`,
  };
}

/**
 * An authenticated caller's workloads are theirs: the user is filled in
 * when left empty.
 */
function ownedBy<M extends WorkloadMessage>(
  requested: M | undefined,
  { caller }: NamespaceCall,
): M | undefined {
  if (!caller.authenticated || !requested || requested.user) return requested;
  return { ...requested, user: caller.identity.user };
}

/** PERMISSION_DENIED for an authenticated caller creating for another. */
function checkCreator(
  message: WorkloadMessage,
  kind: WorkloadKindName,
  field: string,
  { caller, action }: NamespaceCall,
): void {
  const { user } = caller.identity;
  if (!caller.authenticated || message.user === user) return;
  const { noun } = KINDS[kind];
  throw new AuthorizationError(
    "no-rule",
    `${action}: ${field}: user "${user}" may not create ${noun}s for "${message.user}"`,
  );
}
