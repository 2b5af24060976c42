/**
 * Helpers of the RayJob and RayService lifecycle tests: a stand-in serving
 * KubeRay v1.7.0's three CRDs with the simulated operator watching it,
 * request bodies, and the check that an object as stored passes the real
 * CRD's strict decoding and validation (status included).
 */

import assert from "node:assert/strict";
import {
  type SimulatedOperatorOptions,
  type Standin,
  startSimulatedOperator,
  startStandin,
} from "../../standin/mod.ts";
import { until } from "../eventually.ts";

// deno-lint-ignore no-explicit-any
export type Json = any;

const testdata = (file: string) =>
  new URL(`../testdata/${file}`, import.meta.url).pathname;

/** KubeRay v1.7.0's CRDs. */
export const KUBERAY_CRDS = [
  testdata("ray.io_rayclusters.yaml"),
  testdata("ray.io_rayjobs.yaml"),
  testdata("ray.io_rayservices.yaml"),
];

export const NS = "team-a";
export const RAY = `/apis/ray.io/v1/namespaces/${NS}`;

export async function send(
  standin: Standin,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${standin.url}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/**
 * Runs `fn` against a stand-in with the KubeRay CRDs (or none, with
 * `crds: []`) and the simulated operator, closing both after.
 */
export async function withKubeRay(
  options: Partial<SimulatedOperatorOptions> & { crds?: string[] },
  fn: (standin: Standin) => Promise<void>,
): Promise<void> {
  const { crds = KUBERAY_CRDS, ...operatorOptions } = options;
  const standin = startStandin({ crds });
  const operator = startSimulatedOperator({
    server: standin.url,
    delayMs: 0,
    retryIntervalMs: 10,
    ...operatorOptions,
  });
  try {
    await fn(standin);
  } finally {
    await operator.stop();
    await standin.close();
  }
}

/** A RayClusterSpec the CRD accepts, with one worker group of `workers`. */
export function clusterSpec(workers = 1) {
  return {
    rayVersion: "2.9.0",
    headGroupSpec: {
      rayStartParams: {},
      template: {
        spec: {
          containers: [{
            name: "ray-head",
            image: "rayproject/ray:2.9.0",
            ports: [{ name: "dashboard", containerPort: 8265 }],
          }],
        },
      },
    },
    workerGroupSpecs: [{
      groupName: "small",
      replicas: workers,
      minReplicas: 0,
      maxReplicas: 5,
      rayStartParams: {},
      template: {
        spec: {
          containers: [{ name: "ray-worker", image: "rayproject/ray:2.9.0" }],
        },
      },
    }],
  };
}

export function rayJob(
  name: string,
  spec: Record<string, unknown>,
  labels?: Record<string, string>,
) {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayJob",
    metadata: { name, ...(labels ? { labels } : {}) },
    spec: { entrypoint: "python -c 'print(1)'", ...spec },
  };
}

/** GETs `path`; undefined when 404. */
export async function read(
  standin: Standin,
  path: string,
): Promise<Json | undefined> {
  const answer = await send(standin, "GET", path);
  if (answer.status === 404) return undefined;
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

/** Waits until the object at `path` satisfies `condition`; returns it. */
export async function waitFor(
  standin: Standin,
  path: string,
  what: string,
  condition: (object: Json | undefined) => boolean,
  timeoutMs = 10_000,
): Promise<Json> {
  let last: Json;
  await until(what, async () => {
    last = await read(standin, path);
    return condition(last);
  }, timeoutMs).catch((error) => {
    throw new Error(`${error.message}; last seen: ${JSON.stringify(last)}`);
  });
  return last;
}

/** The reasons of the Events about a `kind` named `name`, in order. */
export async function eventReasons(
  standin: Standin,
  kind: string,
  name: string,
): Promise<string[]> {
  const selector = encodeURIComponent(
    `involvedObject.kind=${kind},involvedObject.name=${name}`,
  );
  const answer = await send(
    standin,
    "GET",
    `/api/v1/namespaces/${NS}/events?fieldSelector=${selector}`,
  );
  return (answer.body.items as Json[]).map((e) => e.reason);
}

/**
 * Asserts that the object as stored passes the CRD's strict decoding (no
 * unknown field) and validation, spec and status: it is written back, as
 * it is, with fieldValidation=Strict to the object and to its status.
 */
export async function assertValidAgainstCrd(
  standin: Standin,
  path: string,
): Promise<void> {
  const object = await read(standin, path);
  assert.ok(object, `${path} is there`);
  for (const target of [path, `${path}/status`]) {
    const answer = await send(
      standin,
      "PUT",
      `${target}?fieldValidation=Strict`,
      object,
    );
    assert.equal(
      answer.status,
      200,
      `PUT ${target}: got ${answer.status} ${JSON.stringify(answer.body)}`,
    );
    object.metadata.resourceVersion = answer.body.metadata.resourceVersion;
  }
}
