/**
 * Discovery documents (`/api`, `/apis`, `/apis/{group}`, resource lists) and
 * the version the stand-in reports, so kubectl and client-node find what it
 * serves.
 */

import { DEFAULT_VERBS, groupVersion, type ResourceType } from "./types.ts";

/** The Kubernetes version discovery reports. */
export const SERVER_VERSION = {
  major: "1",
  minor: "32",
  gitVersion: "v1.32.0+corral-standin",
  gitCommit: "",
  gitTreeState: "clean",
  buildDate: "2025-01-01T00:00:00Z",
  goVersion: "",
  compiler: "deno",
  platform: "linux/amd64",
};

export function apiVersions(url: URL) {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{
      clientCIDR: "0.0.0.0/0",
      serverAddress: url.host,
    }],
  };
}

/**
 * Kubernetes version priority (apimachinery version.CompareKubeAwareVersionStrings):
 * GA before beta before alpha, higher numbers first, then other names
 * alphabetically.
 */
function compareVersions(a: string, b: string): number {
  const rank = (v: string): [number, number, number, string] => {
    const match = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!match) return [3, 0, 0, v];
    const stage = match[2] === undefined ? 0 : match[2] === "beta" ? 1 : 2;
    return [stage, -Number(match[1]), -Number(match[3] ?? 0), ""];
  };
  const [x, y] = [rank(a), rank(b)];
  for (let i = 0; i < 3; i++) {
    if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  }
  return x[3] < y[3] ? -1 : x[3] > y[3] ? 1 : 0;
}

export function groupVersions(
  resources: readonly ResourceType[],
  group: string,
) {
  const versions = [
    ...new Set(
      resources.filter((r) => r.group === group).map((r) => r.version),
    ),
  ].sort(compareVersions);
  const entries = versions.map((version) => ({
    groupVersion: `${group}/${version}`,
    version,
  }));
  return { name: group, versions: entries, preferredVersion: entries[0] };
}

export function apiGroupList(resources: readonly ResourceType[]) {
  const groups = [...new Set(resources.map((r) => r.group))].filter((g) =>
    g !== ""
  );
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: groups.map((g) => groupVersions(resources, g)),
  };
}

export function apiGroup(resources: readonly ResourceType[], group: string) {
  return {
    kind: "APIGroup",
    apiVersion: "v1",
    ...groupVersions(resources, group),
  };
}

export function apiResourceList(
  resources: readonly ResourceType[],
  group: string,
  version: string,
) {
  const served = resources.filter((r) =>
    r.group === group && r.version === version
  );
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: groupVersion({ group, version }),
    resources: served.flatMap((r) => [
      {
        name: r.plural,
        singularName: r.singular,
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: r.verbs ?? DEFAULT_VERBS,
        ...(r.shortNames ? { shortNames: r.shortNames } : {}),
        ...(r.categories ? { categories: r.categories } : {}),
      },
      ...(r.subresources ?? []).map((sub) => ({
        name: `${r.plural}/${sub}`,
        singularName: "",
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: ["get", "patch", "update"],
      })),
      ...Object.entries(r.actions ?? {}).map(([sub, action]) => ({
        name: `${r.plural}/${sub}`,
        singularName: "",
        namespaced: r.namespaced,
        group: action.group,
        version: action.version,
        kind: action.kind,
        verbs: ["create"],
      })),
      ...Object.keys(r.reads ?? {}).map((sub) => ({
        name: `${r.plural}/${sub}`,
        singularName: "",
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: ["get"],
      })),
    ]),
  };
}
