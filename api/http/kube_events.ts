/**
 * Events at `/api/v1/namespaces/{namespace}/events`, as KubeRay's API
 * server passes them on for its dashboard, but only those about objects
 * the caller may see: Corral's own RayClusters, RayJobs and RayServices
 * (the managed-by label) of the kinds the caller may list in the
 * namespace, each event matched to its object by name and uid. Its row
 * is `list` on the kind the field selector names
 * (`involvedObject.kind=RayJob`), clusters without one; the other kinds'
 * events are added where the policy lets the caller list them.
 *
 * The answer is a core/v1 EventList. `fieldSelector` takes the fields
 * clients filter Events by (involvedObject.kind, .name, .uid, type,
 * reason), with `=`, `==` or `!=`; `labelSelector` and paging are not
 * taken (an object's events are few: the API server keeps them an hour).
 */
import { Code } from "../../domain/errors.ts";
import { KINDS, type WorkloadKindName } from "../../domain/kinds.ts";
import type { KubeEvent } from "../../domain/resources.ts";
import { HttpError } from "../errors.ts";
import { portOf } from "../service/object_writes.ts";
import type { Service } from "../service/service.ts";
import type { HttpRequest } from "./http_request.ts";
import { statusResponse } from "./kube_status.ts";
import type { HttpUnit, UnitContext, UnitRule } from "./units.ts";

const WORKLOADS = ["clusters", "jobs", "services"] as const;

/** The Events route's unit, over what the RPCs' handlers act with. */
export function eventsUnit(service: Service): HttpUnit {
  const shape = ["api", "v1", "namespaces", undefined, "events"];
  return {
    key: "core.Event/List",
    methods: ["GET"],
    path: "/api/v1/namespaces/{namespace}/events",
    shape,
    match: (parts) =>
      parts.length === shape.length &&
        shape.every((want, i) => want === undefined || parts[i] === want)
        ? { namespace: parts[3] }
        : undefined,
    rule: rowOf("clusters"),
    ruleOf: (request) => rowOf(selectedKind(fieldsOf(request)) ?? "clusters"),
    refuse: (error, requestId) =>
      statusResponse(error, {
        requestId,
        target: { group: "", kind: "events" },
      }),
    handle: async (request, _params, call) =>
      Response.json({
        kind: "EventList",
        apiVersion: "v1",
        metadata: { resourceVersion: "" },
        items: await visibleEvents(service, fieldsOf(request), call),
      }),
  };
}

function rowOf(kind: WorkloadKindName): UnitRule {
  return { verb: "list", resource: kind, namespace: "request" };
}

/** One requirement of a field selector. */
interface FieldRequirement {
  field: string;
  value: string;
  equal: boolean;
}

/** The fields an event is selected by, as the API server names them. */
const FIELDS: Record<string, (event: KubeEvent) => string | undefined> = {
  "involvedObject.kind": (event) => event.involvedObject?.kind,
  "involvedObject.name": (event) => event.involvedObject?.name,
  "involvedObject.uid": (event) => event.involvedObject?.uid,
  "involvedObject.namespace": (event) => event.involvedObject?.namespace,
  "type": (event) => event.type,
  "reason": (event) => event.reason,
};

/** The request's field selector; 400 for a field it does not take. */
function fieldsOf(request: HttpRequest): FieldRequirement[] {
  if (!request.url.includes("?")) return [];
  const text = new URL(request.url).searchParams.get("fieldSelector") ?? "";
  if (text.trim() === "") return [];
  return text.split(",").map((part) => {
    const match = /^\s*([\w.]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(part);
    if (!match || !Object.hasOwn(FIELDS, match[1])) {
      throw new HttpError(
        400,
        Code.INVALID_ARGUMENT,
        `Cannot list events: fieldSelector: "${
          part.slice(0, 100)
        }" is not one of ${Object.keys(FIELDS).join(", ")} with =, == or !=`,
      );
    }
    return { field: match[1], value: match[3], equal: match[2] !== "!=" };
  });
}

/** The workload kind whose Events the selector asks for, if one. */
function selectedKind(
  requirements: FieldRequirement[],
): WorkloadKindName | undefined {
  const kind = requirements.find((r) =>
    r.field === "involvedObject.kind" && r.equal
  )?.value;
  return WORKLOADS.find((name) => KINDS[name].resource.kind === kind);
}

/**
 * The events of the call's namespace about Corral's objects of the kinds
 * the caller may list there, that the selector selects.
 */
async function visibleEvents(
  service: Service,
  requirements: FieldRequirement[],
  { scope, caller, kube }: UnitContext,
): Promise<KubeEvent[]> {
  const { namespace } = scope;
  const selected = selectedKind(requirements);
  const kinds = WORKLOADS.filter((kind) =>
    (selected === undefined || kind === selected) &&
    (kind === (selected ?? "clusters") || caller.may("list", kind, namespace))
  );
  const lists = await Promise.all(kinds.map(async (kind) => {
    const port = portOf(service, kind);
    const [objects, events] = await Promise.all([
      port.list(namespace, kube),
      port.events(namespace, undefined, kube),
    ]);
    const uids = new Map(
      objects.map((o) => [o.metadata.name, o.metadata.uid ?? ""]),
    );
    return events.filter((event) => {
      const about = event.involvedObject ?? {};
      const uid = uids.get(about.name ?? "");
      return uid !== undefined &&
        (uid === "" || !about.uid || about.uid === uid);
    });
  }));
  return lists.flat().filter((event) =>
    requirements.every((r) => (FIELDS[r.field](event) === r.value) === r.equal)
  );
}
