import {
  type Standin,
  type StandinOptions,
  startStandin,
} from "../../standin/mod.ts";

/** Runs `fn` against a fresh stand-in, closed after it whatever happens. */
export async function withStandin(
  fn: (standin: Standin) => Promise<void>,
  options: StandinOptions = {},
): Promise<void> {
  const standin = startStandin(options);
  try {
    await fn(standin);
  } finally {
    await standin.close();
  }
}

/**
 * A request to the Kubernetes API at `base`, as another client makes it:
 * a JSON body, and a PATCH as a JSON merge patch.
 */
export function kubeFetch(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Response> {
  return fetch(`${base}${path}`, {
    method,
    headers: {
      "content-type": method === "PATCH"
        ? "application/merge-patch+json"
        : "application/json",
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/**
 * A managed RayCluster `name` in team-a, written straight to the API at
 * `kubeUrl`, with `status` set as the operator would set it (none when
 * absent): for tests of what Corral does with a cluster in some state,
 * not of creating one.
 */
export async function managedCluster(
  kubeUrl: string,
  name: string,
  status?: Record<string, unknown>,
): Promise<void> {
  const path = "/apis/ray.io/v1/namespaces/team-a/rayclusters";
  const created = await kubeFetch(kubeUrl, "POST", path, {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: {
      name,
      namespace: "team-a",
      labels: { "app.kubernetes.io/managed-by": "kuberay-apiserver" },
    },
    spec: {
      headGroupSpec: {
        rayStartParams: {},
        template: {
          spec: { containers: [{ name: "ray-head", image: "rayproject/ray" }] },
        },
      },
    },
  });
  if (created.status !== 201) {
    throw new Error(
      `create ${name}: ${created.status} ${await created.text()}`,
    );
  }
  if (!status) return;
  const patched = await kubeFetch(kubeUrl, "PATCH", `${path}/${name}/status`, {
    status,
  });
  if (patched.status !== 200) {
    throw new Error(
      `status ${name}: ${patched.status} ${await patched.text()}`,
    );
  }
}

/** A managed RayCluster `name` in team-a, marked ready (managedCluster). */
export function readyCluster(kubeUrl: string, name: string): Promise<void> {
  return managedCluster(kubeUrl, name, { state: "ready" });
}
