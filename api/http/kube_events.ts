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
 *
 * The same Events are served at
 * `/apis/events.k8s.io/v1/namespaces/{namespace}/events` in that group's
 * shape (events_v1.ts), selected as the API server selects them there
 * (`regarding.kind` and the rest, or the core names), with the same rows.
 */
import { Code } from "../../domain/errors.ts";
import { KINDS, type WorkloadKindName } from "../../domain/kinds.ts";
import type { KubeEvent } from "../../domain/resources.ts";
import { HttpError } from "../errors.ts";
import { portOf } from "../service/object_writes.ts";
import type { Service } from "../service/service.ts";
import type { HttpRequest } from "./http_request.ts";
import { eventV1Of, REGARDING_FIELDS } from "./events_v1.ts";
import { statusResponse } from "./kube_status.ts";
import type { HttpUnit, UnitContext, UnitRule } from "./units.ts";

const WORKLOADS = ["clusters", "jobs", "services"] as const;

/** The Events routes' units, over what the RPCs' handlers act with. */
export function eventsUnits(service: Service): HttpUnit[] {
  return [
    eventsUnit(service, {
      key: "core.Event/List",
      group: "",
      prefix: ["api", "v1"],
      apiVersion: "v1",
      convert: (event) => event,
    }),
    eventsUnit(service, {
      key: "events.k8s.io.Event/List",
      group: "events.k8s.io",
      prefix: ["apis", "events.k8s.io", "v1"],
      apiVersion: "events.k8s.io/v1",
      aliases: REGARDING_FIELDS,
      convert: eventV1Of,
    }),
  ];
}

/** Where one Events route is, and what its events are. */
interface EventsRoute {
  key: string;
  /** The API group Status errors name ("" for the core group). */
  group: string;
  /** The path's segments before `namespaces`. */
  prefix: string[];
  /** The EventList's apiVersion. */
  apiVersion: string;
  /** Field names of the route's own taken for the core's. */
  aliases?: Record<string, string>;
  convert(event: KubeEvent): unknown;
}

function eventsUnit(service: Service, route: EventsRoute): HttpUnit {
  const shape = [...route.prefix, "namespaces", undefined, "events"];
  const at = route.prefix.length + 1;
  const fields = (request: HttpRequest) => fieldsOf(request, route.aliases);
  return {
    key: route.key,
    methods: ["GET"],
    path: `/${route.prefix.join("/")}/namespaces/{namespace}/events`,
    shape,
    match: (parts) =>
      parts.length === shape.length &&
        shape.every((want, i) => want === undefined || parts[i] === want)
        ? { namespace: parts[at] }
        : undefined,
    rule: rowOf("clusters"),
    ruleOf: (request) => rowOf(selectedKind(fields(request)) ?? "clusters"),
    refuse: (error, requestId) =>
      statusResponse(error, {
        requestId,
        target: { group: route.group, kind: "events" },
      }),
    handle: async (request, _params, call) =>
      Response.json({
        kind: "EventList",
        apiVersion: route.apiVersion,
        metadata: { resourceVersion: "" },
        items: (await visibleEvents(service, fields(request), call)).map(
          route.convert,
        ),
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

/**
 * The request's field selector, a field of `aliases` taken as the core
 * field it names; 400 for a field it does not take.
 */
function fieldsOf(
  request: HttpRequest,
  aliases: Record<string, string> = {},
): FieldRequirement[] {
  if (!request.url.includes("?")) return [];
  const text = new URL(request.url).searchParams.get("fieldSelector") ?? "";
  if (text.trim() === "") return [];
  return text.split(",").map((part) => {
    const match = /^\s*([\w.]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(part);
    const field = match && Object.hasOwn(aliases, match[1])
      ? aliases[match[1]]
      : match?.[1];
    if (!match || !field || !Object.hasOwn(FIELDS, field)) {
      throw new HttpError(
        400,
        Code.INVALID_ARGUMENT,
        `Cannot list events: fieldSelector: "${
          part.slice(0, 100)
        }" is not one of ${
          [...Object.keys(aliases), ...Object.keys(FIELDS)].join(", ")
        } with =, == or !=`,
      );
    }
    return { field, value: match[3], equal: match[2] !== "!=" };
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
