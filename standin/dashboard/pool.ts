/**
 * The simulated dashboards of the simulated operator, one per ready
 * cluster, by cluster uid. The pool owns them: release() closes one when
 * its cluster goes, close() closes every one when the operator stops.
 */

import { SimulatedDashboard } from "./server.ts";

export interface DashboardPoolOptions {
  /** Time between the steps of a simulated job run (see jobs.ts). */
  stepMs?: number;
}

export class DashboardPool {
  #dashboards = new Map<string, SimulatedDashboard>();
  #stepMs?: number;

  constructor(options: DashboardPoolOptions = {}) {
    this.#stepMs = options.stepMs;
  }

  /**
   * The dashboard of the cluster `uid`, started if it has none yet;
   * `cluster` (namespace/name) is what its index page names.
   */
  start(uid: string, cluster: string): SimulatedDashboard {
    let dashboard = this.#dashboards.get(uid);
    if (!dashboard) {
      dashboard = new SimulatedDashboard({ cluster, stepMs: this.#stepMs });
      this.#dashboards.set(uid, dashboard);
    }
    return dashboard;
  }

  /** The dashboard of the cluster `uid`, if it has one. */
  get(uid: string): SimulatedDashboard | undefined {
    return this.#dashboards.get(uid);
  }

  /** Closes the dashboard of a cluster gone. */
  async release(uid: string): Promise<void> {
    const dashboard = this.#dashboards.get(uid);
    this.#dashboards.delete(uid);
    await dashboard?.close();
  }

  /** Closes every dashboard. */
  async close(): Promise<void> {
    const all = [...this.#dashboards.values()];
    this.#dashboards.clear();
    await Promise.all(all.map((d) => d.close()));
  }
}
