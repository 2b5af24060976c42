/**
 * Writes of whole objects: a RayCluster, RayJob or RayService as a client
 * of the CRDs sends it (the Kubernetes-shaped routes, api/http/
 * ray_objects.ts), through the same steps as the RPCs' writes. A create
 * runs writeWorkload (workload_create.ts: owners, validate, queue, expiry,
 * admission, quota), the object itself being what it renders, with what
 * the steps decided stamped on it; an update and a delete run what the
 * RPCs' do (the owners rule, the whole workload admitted, quotas held
 * while it grows). What differs from kind to kind is its row in
 * object_kinds.ts.
 *
 * What Corral decides of an object is carried in its labels and
 * annotations, as the RPCs write them: its owner (`ray.io/user`), that it
 * is Corral's (`app.kubernetes.io/managed-by`), its queue (Kueue's
 * `kueue.x-k8s.io/queue-name`) and its expiry (`corral.dev/expires-at`). A
 * create may ask for a queue and a lifetime there (or a ttl in
 * `corral.dev/ttl`), which the policy then decides as it decides the
 * RPCs' fields; an update cannot change any of them: they are carried
 * over from the object as stored.
 */
import { Code, invalidArgument, ServiceError } from "../../domain/errors.ts";
import {
  namedTemplates,
  withTemplatesApplied,
} from "../../domain/template_groups.ts";
import { lookUpTemplates } from "./template_lookup.ts";
import {
  EXPIRES_AT_ANNOTATION,
  expiryAnnotations,
  TTL_ANNOTATION,
} from "../../domain/expiry.ts";
import { KINDS, type WorkloadKindName } from "../../domain/kinds.ts";
import { userLabelValue } from "../../domain/conversions.ts";
import { isLabelValue } from "../../domain/kubernetes_names.ts";
import { isPlainObject } from "../../domain/message_form.ts";
import type { ObjectPort } from "../../domain/ports.ts";
import {
  isWaitingInQueue,
  QUEUE_LABEL,
  queueLabels,
  queueViolations,
} from "../../domain/queues.ts";
import {
  ANNOTATION,
  APP_NAME,
  LABEL,
  MANAGED_BY,
  type ObjectMeta,
  type RayCluster,
} from "../../domain/resources.ts";
import { checkLimit, Violations } from "../../domain/violations.ts";
import { LIMIT_FLAGS, type Limits } from "../../domain/limits.ts";
import { cpusOf, gibOf } from "../../domain/quantities.ts";
import { AuthorizationError } from "../auth/authorization_error.ts";
import { checkOwner, ownerOf } from "../auth/owners.ts";
import { workloadUsage } from "../auth/quota.ts";
import { summarizeWorkload } from "../auth/workload_summary.ts";
import { holdingOf } from "./quota_guard.ts";
import type { CallContext, NamespaceScope } from "./rpcs.ts";
import {
  OBJECT_KINDS,
  type ObjectKind,
  type RayObject,
} from "./object_kinds.ts";
import { readToChange, type Service } from "./service.ts";
import {
  type WorkloadCreate,
  type WorkloadFields,
  type WorkloadMessage,
  writeWorkload,
} from "./workload_create.ts";

type NamespaceCall = CallContext<NamespaceScope>;

export type { RayObject } from "./object_kinds.ts";

/** Where an object carries what the steps decide. */
const OBJECT_FIELDS: WorkloadFields = {
  queue: `metadata.labels["${QUEUE_LABEL}"]`,
  ttl: `metadata.annotations["${TTL_ANNOTATION}"]`,
  expiresAt: `metadata.annotations["${EXPIRES_AT_ANNOTATION}"]`,
  user: `metadata.annotations["${ANNOTATION.user}"]`,
};

/** A whole object as the write steps take it. */
interface ObjectMessage extends WorkloadMessage {
  object: RayObject;
}

/**
 * Creates `object` of `kind` in the call's namespace through the steps
 * every workload's create goes through; the object as stored.
 */
export function createObject(
  service: Service,
  kind: WorkloadKindName,
  object: RayObject,
  call: NamespaceCall,
): Promise<RayObject> {
  return writeWorkload(
    service,
    objectCreate(service, kind),
    messageOf(object),
    call,
  );
}

/** What a whole object's create is, of the steps (WorkloadCreate). */
function objectCreate(
  service: Service,
  kind: WorkloadKindName,
): WorkloadCreate<ObjectMessage, RayObject> {
  const row = OBJECT_KINDS[kind];
  return {
    kind,
    field: "metadata",
    fields: OBJECT_FIELDS,
    what: row.what,
    ...(row.admittedAs ? { admittedAs: row.admittedAs } : {}),
    validate: (message, call) => validateObject(service, row, message!, call),
    queueable: (message) => row.queueable?.(message.object) ?? true,
    expires: (message) => row.expires?.(message.object) ?? true,
    render: async (message, call) => {
      const object = await withComputeTemplates(
        service,
        row,
        message.object,
        call,
      );
      checkObjectFields(row, object, call);
      await row.check?.(service, object, call);
      const resource = stamped(row, { ...message, object });
      return { resource, workload: row.workload(resource) };
    },
  };
}

/** The steps' message of `object`: what its metadata says. */
function messageOf(object: RayObject): ObjectMessage {
  const { name, namespace, labels, annotations } = object.metadata;
  const expiresAt = annotations?.[EXPIRES_AT_ANNOTATION];
  return {
    name,
    namespace: namespace ?? "",
    user: ownerOf(object),
    queue: labels?.[QUEUE_LABEL] ?? "",
    ttl: annotations?.[TTL_ANNOTATION] ?? "",
    ...(expiresAt !== undefined ? { expiresAt: new Date(expiresAt) } : {}),
    object,
  };
}

/**
 * `object` with the compute templates its groups name written into their
 * pods, as KubeRay's API server does on these routes
 * (domain/template_groups.ts), the templates read from the namespace;
 * INVALID_ARGUMENT naming each group whose template is missing.
 */
async function withComputeTemplates(
  service: Service,
  row: ObjectKind,
  object: RayObject,
  { scope, kube, action }: NamespaceCall,
): Promise<RayObject> {
  const path = row.clusterPath;
  const key = path === "spec" ? undefined : path.slice("spec.".length);
  const spec = row.clusterSpec(object);
  const names = namedTemplates(spec, path);
  const { templates } = await lookUpTemplates(
    service.orchestrator,
    scope.namespace,
    names,
    kube,
  );
  const applied = withTemplatesApplied(spec, path, templates);
  if (applied.violations.length > 0) {
    throw invalidArgument(action, applied.violations);
  }
  if (applied.spec === spec) return object;
  return {
    ...object,
    spec: key === undefined
      ? applied.spec
      : { ...object.spec, [key]: applied.spec },
  } as RayObject;
}

/**
 * A create's own checks: the name, the queue's and expiry's form, the
 * cluster's bounds (--max-worker-groups, --max-replicas); every violation
 * at once.
 */
function validateObject(
  service: Service,
  row: ObjectKind,
  message: ObjectMessage,
  { action }: NamespaceCall,
): void {
  const v = new Violations();
  v.addAll("metadata.name", row.nameProblems(message.name));
  for (const violation of queueViolations(OBJECT_FIELDS.queue, message.queue)) {
    v.add(violation.field, violation.description);
  }
  if (message.queue && !(row.queueable?.(message.object) ?? true)) {
    v.add(
      OBJECT_FIELDS.queue,
      "only a job with a cluster of its own and shutdownAfterJobFinishes true may wait in a queue",
    );
  }
  if (message.expiresAt && Number.isNaN(message.expiresAt.getTime())) {
    v.add(OBJECT_FIELDS.expiresAt, "must be a time in RFC 3339");
  }
  const spec = row.clusterSpec(message.object);
  const workers = Array.isArray(spec?.workerGroupSpecs)
    ? spec.workerGroupSpecs
    : [];
  checkLimit(
    v,
    "spec.workerGroupSpecs",
    workers.length,
    service.limits,
    "maxWorkerGroups",
  );
  checkAutoscalerFigures(v, row, spec, service.limits);
  workers.forEach((group, i) => {
    for (const key of ["replicas", "minReplicas", "maxReplicas"] as const) {
      const value = group?.[key];
      if (typeof value !== "number") continue;
      checkLimit(
        v,
        `spec.workerGroupSpecs[${i}].${key}`,
        value,
        service.limits,
        "maxReplicas",
      );
    }
  });
  v.throwIfAny(action);
}

/**
 * The autoscaler container's cpu and memory within the bounds of a
 * compute template's (--max-template-cpu, --max-template-memory), as a
 * cluster request's autoscalerOptions are.
 */
function checkAutoscalerFigures(
  v: Violations,
  row: ObjectKind,
  spec: RayCluster["spec"] | undefined,
  limits: Limits,
): void {
  const options = spec?.autoscalerOptions;
  const resources = isPlainObject(options) && isPlainObject(options.resources)
    ? options.resources
    : {};
  const base = `${row.clusterPath}.autoscalerOptions.resources`;
  for (const kind of ["limits", "requests"]) {
    const figures = isPlainObject(resources[kind]) ? resources[kind] : {};
    const cpu = cpusOf(String(figures.cpu ?? ""));
    const memory = gibOf(String(figures.memory ?? ""));
    if (cpu > limits.maxTemplateCpu) {
      v.add(
        `${base}.${kind}.cpu`,
        `must be at most ${limits.maxTemplateCpu} CPUs (--${LIMIT_FLAGS.maxTemplateCpu})`,
      );
    }
    if (memory > limits.maxTemplateMemory) {
      v.add(
        `${base}.${kind}.memory`,
        `must be at most ${limits.maxTemplateMemory} GiB (--${LIMIT_FLAGS.maxTemplateMemory})`,
      );
    }
  }
}

/**
 * PERMISSION_DENIED for what no rule lets an object carry beyond its
 * workload: finalizers (which would hold it past its expiry and its
 * owner's delete), owner references, and the spec fields of a kind that
 * lists its own (specFields).
 */
function checkObjectFields(
  row: ObjectKind,
  object: RayObject,
  { action, caller }: NamespaceCall,
): void {
  const who = `user "${caller.identity.user}"`;
  const refuse = (field: string, what: string) => {
    throw new AuthorizationError(
      "workload",
      `${action}: ${field}: ${who} may not ${what}`,
    );
  };
  const metadata = object.metadata as unknown as Record<string, unknown>;
  for (const field of ["finalizers", "ownerReferences"]) {
    const value = metadata[field];
    if (Array.isArray(value) && value.length > 0) {
      refuse(`metadata.${field}`, `set ${field}`);
    }
  }
  if (!row.specFields) return;
  for (const key of Object.keys(object.spec ?? {})) {
    if (!row.specFields.has(key)) {
      refuse(`spec.${key}`, `set the field "${key}"`);
    }
  }
}

/**
 * `message.object` with what the steps decided written on it, as the
 * RPCs' renders write it: the owner, Corral's labels, the queue (and, in
 * one, created suspended as Kueue expects) and the expiry.
 */
function stamped(row: ObjectKind, message: ObjectMessage): RayObject {
  const { object, name, namespace, user, queue, expiresAt } = message;
  const metadata = object.metadata;
  const labels = withoutKeys(metadata.labels, [QUEUE_LABEL]);
  const annotations = withoutKeys(metadata.annotations, [
    TTL_ANNOTATION,
    EXPIRES_AT_ANNOTATION,
    ANNOTATION.user,
  ]);
  return {
    ...object,
    metadata: {
      ...metadata,
      name,
      namespace,
      labels: {
        ...labels,
        ...(row.clusterNameLabel ? { [LABEL.clusterName]: name } : {}),
        [LABEL.user]: userLabelValue(user),
        [LABEL.appName]: APP_NAME,
        [LABEL.managedBy]: MANAGED_BY,
        ...queueLabels(queue),
      },
      annotations: {
        ...annotations,
        ...(isLabelValue(user) ? {} : { [ANNOTATION.user]: user }),
        ...expiryAnnotations(expiresAt),
      },
    },
    spec: queue ? { ...object.spec, suspend: true } : object.spec,
  } as RayObject;
}

/** `map` without `keys`; {} for none. */
function withoutKeys(
  map: Record<string, string> | undefined,
  keys: readonly string[],
): Record<string, string> {
  const kept = { ...map };
  for (const key of keys) delete kept[key];
  return kept;
}

/** The port of `kind`'s objects. */
export function portOf(
  service: Service,
  kind: WorkloadKindName,
): ObjectPort<RayObject> {
  return service.orchestrator[kind] as unknown as ObjectPort<RayObject>;
}

/**
 * Replaces the object `object` names with it (Kubernetes' PUT): read fresh
 * (NOT_FOUND when it is gone or not Corral's), the owners rule, what
 * Corral decided carried over from the object as stored, the whole
 * workload admitted, quotas held while it grows; written with the
 * resourceVersion the caller sent (ABORTED when the object has moved on),
 * or the one just read. The object as stored.
 */
export async function updateObject(
  service: Service,
  kind: WorkloadKindName,
  object: RayObject,
  call: NamespaceCall,
): Promise<RayObject> {
  const row = OBJECT_KINDS[kind];
  const { scope, action, kube, caller, log } = call;
  const { namespace } = scope;
  const { name } = object.metadata;
  const port = portOf(service, kind);
  const current = await readToChange(
    action,
    port.get(namespace, name, { ...kube, fresh: true }),
  );
  checkOwner(call, current, row.update);
  const applied = await withComputeTemplates(service, row, object, call);
  checkObjectFields(row, applied, call);
  await row.check?.(service, applied, call);
  const next = carriedOver(current, applied);
  const workload = row.workload(next);
  caller.admit(action, scope.rules, workload, "update", row.admittedAs);
  call.wrote?.(summarizeWorkload(workload));
  const updated = await service.quotas.write(call, {
    holding: holdingOf(next),
    what: "this update",
    before: workloadUsage(current),
    write: () => port.update(next, kube),
  });
  log.info(`Updated ${KINDS[kind].noun}`, { namespace, name });
  return updated;
}

/**
 * `object` with what Corral decided of `current` kept: its owner, that it
 * is Corral's, its queue and expiry (labels and annotations, as stored),
 * and its suspension while it waits in its queue (Kueue resumes it, no
 * caller); its resourceVersion, unless the caller sent one.
 */
function carriedOver(current: RayObject, object: RayObject): RayObject {
  const was = current.metadata;
  const decidedLabels = [
    LABEL.clusterName,
    LABEL.user,
    LABEL.appName,
    LABEL.managedBy,
    QUEUE_LABEL,
  ];
  const decidedAnnotations = [ANNOTATION.user, EXPIRES_AT_ANNOTATION];
  const labels = withoutKeys(object.metadata.labels, decidedLabels);
  const annotations = withoutKeys(object.metadata.annotations, [
    ...decidedAnnotations,
    TTL_ANNOTATION,
  ]);
  const metadata: ObjectMeta = {
    ...object.metadata,
    namespace: was.namespace,
    resourceVersion: object.metadata.resourceVersion || was.resourceVersion,
    labels: { ...labels, ...picked(was.labels, decidedLabels) },
    annotations: {
      ...annotations,
      ...picked(was.annotations, decidedAnnotations),
    },
  };
  const waiting = isWaitingInQueue(was.labels, current.spec);
  return {
    ...object,
    metadata,
    spec: waiting ? { ...object.spec, suspend: true } : object.spec,
  } as RayObject;
}

/** The entries of `map` under `keys`. */
function picked(
  map: Record<string, string> | undefined,
  keys: readonly string[],
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const key of keys) {
    if (map?.[key] !== undefined) kept[key] = map[key];
  }
  return kept;
}

/**
 * Deletes the object `name` of `kind` (NOT_FOUND when missing or not
 * Corral's), under the owners rule and the caller's preconditions (the
 * object read fresh must be of their uid and resourceVersion: ABORTED
 * otherwise); the object as it was.
 */
export async function deleteObject(
  service: Service,
  kind: WorkloadKindName,
  name: string,
  call: NamespaceCall,
  conditions: { uid?: string; resourceVersion?: string } = {},
): Promise<RayObject> {
  const { scope, action, kube, log } = call;
  const port = portOf(service, kind);
  const current = await readToChange(
    action,
    port.get(scope.namespace, name, { ...kube, fresh: true }),
  );
  checkOwner(call, current, OBJECT_KINDS[kind].delete);
  for (const key of ["uid", "resourceVersion"] as const) {
    const want = conditions[key];
    if (want !== undefined && want !== current.metadata[key]) {
      throw new ServiceError(
        Code.ABORTED,
        `${action}: precondition failed: ${key} in precondition: ${want}, ${key} in object meta: ${
          current.metadata[key] ?? ""
        }`,
      );
    }
  }
  await port.delete(scope.namespace, name, kube);
  log.info(`Deleted ${KINDS[kind].noun}`, { namespace: scope.namespace, name });
  return current;
}
