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
 * `kubeUrl` and marked ready, as the operator would: for tests of what
 * Corral does with a ready cluster (its dashboard), not of creating one.
 */
export async function readyCluster(
  kubeUrl: string,
  name: string,
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
  const patched = await kubeFetch(kubeUrl, "PATCH", `${path}/${name}/status`, {
    status: { state: "ready" },
  });
  if (patched.status !== 200) {
    throw new Error(`ready ${name}: ${patched.status} ${await patched.text()}`);
  }
}
