/**
 * The Kubernetes API server's discovery documents of what the
 * Kubernetes-shaped routes serve, so that `kubectl --server` and other
 * clients that find resources by name (`kubectl get rayclusters`) work
 * against Corral: `/api` and `/api/v1` (Events), `/apis` and each group's
 * `/apis/{group}` and `/apis/{group}/{version}` (Corral's RayCluster API
 * group with its three kinds, and events.k8s.io/v1). Their verbs are
 * those served (no deletecollection, no status writes), their categories
 * those KubeRay's CRDs declare (`all`; they declare no short names).
 *
 * Only the legacy (unaggregated) documents are served: a client asking
 * for aggregated discovery (apidiscovery.k8s.io/v2) gets plain JSON and
 * falls back, as it does against an older API server. Each document is a
 * unit any authenticated caller may read, as the API server lets any
 * authenticated user read discovery (system:discovery); what a caller may
 * then do is the policy's.
 */
import { KINDS } from "../../domain/kinds.ts";
import { documentUnit } from "./document_unit.ts";
import type { HttpUnit } from "./units.ts";

/** The verbs of a kind's objects the routes serve (ray_objects.ts). */
const OBJECT_VERBS = [
  "create",
  "delete",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];

/** One group-version the routes serve, and its resources. */
interface GroupVersion {
  group: string;
  version: string;
  resources: Record<string, unknown>[];
}

/** The discovery units, for Corral's RayCluster API version. */
export function discoveryUnits(clusterApiVersion: string): HttpUnit[] {
  const [group, version] = clusterApiVersion.split("/");
  const ray: GroupVersion = { group, version, resources: rayResources() };
  const events: GroupVersion = {
    group: "events.k8s.io",
    version: "v1",
    resources: [eventsResource()],
  };
  const groups = [ray, events];
  return [
    documentUnit("discovery.APIVersions/Get", "/api", {
      kind: "APIVersions",
      versions: ["v1"],
      serverAddressByClientCIDRs: [],
    }),
    documentUnit("discovery.APIResourceList/Get", "/api/v1", {
      kind: "APIResourceList",
      groupVersion: "v1",
      resources: [eventsResource()],
    }),
    documentUnit("discovery.APIGroupList/Get", "/apis", {
      kind: "APIGroupList",
      apiVersion: "v1",
      groups: groups.map(apiGroup),
    }),
    ...groups.flatMap((gv) => [
      documentUnit("discovery.APIGroup/Get", `/apis/${gv.group}`, {
        kind: "APIGroup",
        apiVersion: "v1",
        ...apiGroup(gv),
      }),
      documentUnit(
        "discovery.APIResourceList/Get",
        `/apis/${gv.group}/${gv.version}`,
        {
          kind: "APIResourceList",
          apiVersion: "v1",
          groupVersion: `${gv.group}/${gv.version}`,
          resources: gv.resources,
        },
      ),
    ]),
  ];
}

/** The resources of the three kinds, each with its status subresource. */
function rayResources(): Record<string, unknown>[] {
  return (["clusters", "jobs", "services"] as const).flatMap((name) => {
    const { kind, plural } = KINDS[name].resource;
    return [
      {
        name: plural,
        singularName: kind.toLowerCase(),
        namespaced: true,
        kind,
        verbs: OBJECT_VERBS,
        categories: ["all"],
      },
      {
        name: `${plural}/status`,
        singularName: "",
        namespaced: true,
        kind,
        // Read only: its writes are refused (the operator's).
        verbs: ["get"],
      },
    ];
  });
}

function eventsResource(): Record<string, unknown> {
  return {
    name: "events",
    singularName: "event",
    namespaced: true,
    kind: "Event",
    verbs: ["list"],
    shortNames: ["ev"],
  };
}

function apiGroup({ group, version }: GroupVersion) {
  const preferred = { groupVersion: `${group}/${version}`, version };
  return { name: group, versions: [preferred], preferredVersion: preferred };
}
