/**
 * A ready cluster's `status.endpoints`, as ray-operator's updateEndpoints
 * fills them from the head service's ports: NodePort numbers when
 * `spec.headGroupSpec.serviceType` is NodePort, else the head container's
 * ports, keyed by port name. The NodePorts come from one pool per operator.
 */

import type { ObservedCluster } from "./api_client.ts";

/**
 * Head ports when the head container declares none. The names and numbers
 * are those every head container Corral writes declares (the KubeRay API
 * server's set, domain/conversions.ts HEAD_PORTS), not the real operator's
 * own defaults (gcs-server, client, ...): a cluster written by another
 * client then shows the same endpoint keys as one Corral wrote. Kept here,
 * not imported, so the simulated operator reads only the Kubernetes API.
 */
const DEFAULT_HEAD_PORTS: Record<string, number> = {
  dashboard: 8265,
  head: 10001,
  metrics: 8080,
  redis: 6379,
};
export const NODE_PORT_MIN = 30000;
export const NODE_PORT_MAX = 32767;

/**
 * The head service's named ports, as the operator builds them from the head
 * container: its named ports, plus the metrics port the operator always
 * adds; the defaults when the container declares none.
 */
export function headServicePorts(
  cluster: ObservedCluster,
): Map<string, number> {
  const container = cluster.spec?.headGroupSpec?.template?.spec?.containers
    ?.[0];
  const declared = (container?.ports ?? []).filter((p) =>
    p.name && typeof p.containerPort === "number"
  );
  if (declared.length === 0) return new Map(Object.entries(DEFAULT_HEAD_PORTS));
  const ports = new Map(declared.map((p) => [p.name!, p.containerPort!]));
  if (!ports.has("metrics")) ports.set("metrics", DEFAULT_HEAD_PORTS.metrics);
  return ports;
}

export function isNodePortService(cluster: ObservedCluster): boolean {
  return cluster.spec?.headGroupSpec?.serviceType?.toLowerCase() ===
    "nodeport";
}

/** The NodePorts in use, each given to at most one head service port. */
export class NodePortPool {
  #used = new Set<number>();

  /** The lowest free NodePort, now in use; throws when none is free. */
  allocate(): number {
    for (let port = NODE_PORT_MIN; port <= NODE_PORT_MAX; port++) {
      if (!this.#used.has(port)) {
        this.#used.add(port);
        return port;
      }
    }
    throw new Error("Cannot allocate a NodePort: all 2768 are in use");
  }

  /**
   * Marks the NodePorts among a cluster's endpoints in use (a cluster made
   * ready earlier, e.g. before a restart) and returns them; none unless
   * its head service is a NodePort one.
   */
  adopt(cluster: ObservedCluster): number[] {
    const ports: number[] = [];
    if (!isNodePortService(cluster)) return ports;
    for (const value of Object.values(cluster.status?.endpoints ?? {})) {
      const port = Number(value);
      if (port >= NODE_PORT_MIN && port <= NODE_PORT_MAX) {
        this.#used.add(port);
        ports.push(port);
      }
    }
    return ports;
  }

  /** Frees `ports` for other clusters. */
  release(ports: Iterable<number>): void {
    for (const port of ports) this.#used.delete(port);
  }
}

/**
 * The endpoints of a cluster being made ready, by port name in name order;
 * the NodePorts allocated from `pool` are appended to `allocated`.
 */
export function endpointsFor(
  cluster: ObservedCluster,
  pool: NodePortPool,
  allocated: number[],
): Record<string, string> {
  const nodePort = isNodePortService(cluster);
  const endpoints: Record<string, string> = {};
  for (const [name, port] of [...headServicePorts(cluster)].sort()) {
    if (nodePort) {
      const given = pool.allocate();
      allocated.push(given);
      endpoints[name] = String(given);
    } else {
      endpoints[name] = String(port);
    }
  }
  return endpoints;
}
