/**
 * Requests to the stand-in as a client sends them, and the objects and
 * assertions the stand-in's tests share.
 */
import assert from "node:assert/strict";
import type { Standin } from "../../standin/mod.ts";

export interface Answer {
  status: number;
  /** The JSON body; {} for an empty one, undefined for one not JSON. */
  // deno-lint-ignore no-explicit-any
  body: any;
  text: string;
  /** The texts of the answer's `Warning: 299 - "..."` headers. */
  warnings: string[];
}

export async function send(
  standin: Standin,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/json",
): Promise<Answer> {
  const response = await fetch(`${standin.url}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": contentType },
    body: body === undefined
      ? undefined
      : typeof body === "string"
      ? body
      : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === "" ? {} : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const warnings = [
    ...(response.headers.get("warning") ?? "").matchAll(
      /299 - "((?:[^"\\]|\\.)*)"/g,
    ),
  ].map((m) => m[1].replace(/\\(.)/g, "$1"));
  return { status: response.status, body: parsed, text, warnings };
}

export const CM = "/api/v1/namespaces/team-a/configmaps";
export const RC = "/apis/ray.io/v1/namespaces/team-a/rayclusters";
export const EV = "/api/v1/namespaces/team-a/events";

export function configMap(name: string, labels?: Record<string, string>) {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, ...(labels ? { labels } : {}) },
    data: { cpu: "2" },
  };
}

export function rayCluster(name: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: { name },
    spec: { rayVersion: "2.9.0", headGroupSpec: { rayStartParams: {} } },
    ...extra,
  };
}

export function event(
  name: string,
  involved: Record<string, string>,
  extra: Record<string, unknown> = {},
) {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name, namespace: involved.namespace ?? "team-a" },
    involvedObject: { namespace: "team-a", ...involved },
    reason: "CreatedHeadPod",
    type: "Normal",
    ...extra,
  };
}

export async function create(
  standin: Standin,
  path: string,
  body: unknown,
): Promise<Answer> {
  const answer = await send(standin, "POST", path, body);
  assert.equal(answer.status, 201, `create at ${path}: ${answer.text}`);
  return answer;
}

export function assertStatus(
  answer: Answer,
  want: { code: number; reason: string; message?: string | RegExp },
): void {
  assert.equal(answer.status, want.code, `status code, body: ${answer.text}`);
  assert.equal(answer.body?.kind, "Status", `kind, body: ${answer.text}`);
  assert.equal(answer.body.apiVersion, "v1");
  assert.equal(answer.body.status, "Failure");
  assert.equal(answer.body.code, want.code, "Status.code");
  assert.equal(answer.body.reason, want.reason, "Status.reason");
  if (typeof want.message === "string") {
    assert.equal(answer.body.message, want.message, "Status.message");
  } else if (want.message) {
    assert.match(answer.body.message, want.message, "Status.message");
  }
}

export const UUID =
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const RFC3339_SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
