/**
 * A RayService's Serve applications as the simulated Serve controller
 * reports them once deployed: every application of spec.serveConfigV2's
 * `applications:` list RUNNING, with the deployments it lists HEALTHY
 * (keyed by name, as RayServiceStatus.applicationStatuses is). Ray knows
 * an application's other deployments from its code; the simulation knows
 * only those the config names.
 */

import { parse } from "yaml";
import { isRecord } from "../json.ts";

/** AppStatus (rayservice_types.go). */
export interface AppStatus {
  status: string;
  message?: string;
  serveDeploymentStatuses?: Record<string, { status: string }>;
}

/** Serve's name for an application the config leaves unnamed. */
const DEFAULT_APP_NAME = "default";

/**
 * The applications of `serveConfigV2` by name, or the reason it cannot be
 * read (not YAML, or `applications` not a list).
 */
export function applicationStatuses(
  serveConfigV2: string | undefined,
): { applications: Record<string, AppStatus> } | { problem: string } {
  let config: unknown;
  try {
    config = parse(serveConfigV2 ?? "") ?? {};
  } catch (error) {
    return {
      problem: `serveConfigV2 is not YAML: ${
        (error as Error).message.split("\n")[0]
      }`,
    };
  }
  if (!isRecord(config)) return { problem: "serveConfigV2 is not a map" };
  const listed = config.applications ?? [];
  if (!Array.isArray(listed)) {
    return { problem: "serveConfigV2's applications is not a list" };
  }
  const applications: Record<string, AppStatus> = {};
  for (const app of listed) {
    if (!isRecord(app)) continue;
    const name = typeof app.name === "string" && app.name !== ""
      ? app.name
      : DEFAULT_APP_NAME;
    const deployments: Record<string, { status: string }> = {};
    for (
      const deployment of Array.isArray(app.deployments) ? app.deployments : []
    ) {
      if (isRecord(deployment) && typeof deployment.name === "string") {
        deployments[deployment.name] = { status: "HEALTHY" };
      }
    }
    applications[name] = {
      status: "RUNNING",
      ...(Object.keys(deployments).length > 0
        ? { serveDeploymentStatuses: deployments }
        : {}),
    };
  }
  return { applications };
}
