/**
 * The examples of the OpenAPI document: the hand-written example bodies
 * and the namespace they all live in.
 */
/** The namespace every example lives in. */
export const EXAMPLE_NAMESPACE = "team-a";

/**
 * Hand-written example bodies: the spec's sample cluster (a head and one
 * worker group) and the compute template it names, so that trying the
 * operations in order (create the template, create the cluster, get it,
 * delete it) works as written.
 */
export const EXAMPLES: Record<string, unknown> = {
  "proto.ComputeTemplate": {
    name: "small",
    namespace: EXAMPLE_NAMESPACE,
    cpu: 2,
    memory: 4,
  },
  "proto.Cluster": {
    name: "blue",
    namespace: EXAMPLE_NAMESPACE,
    user: "ada",
    version: "2.9.0",
    environment: "DEV",
    clusterSpec: {
      headGroupSpec: {
        computeTemplate: "small",
        serviceType: "NodePort",
        engineStartParams: { "dashboard-host": "0.0.0.0" },
      },
      workerGroupSpec: [{
        groupName: "workers",
        computeTemplate: "small",
        replicas: 2,
        minReplicas: 0,
        maxReplicas: 4,
      }],
    },
  },
  "proto.ExtendClusterRequest": {
    namespace: EXAMPLE_NAMESPACE,
    name: "blue",
    by: "4h",
  },
  "proto.RayJob": {
    name: "train",
    namespace: EXAMPLE_NAMESPACE,
    user: "ada",
    version: "2.9.0",
    entrypoint: "python -c 'import ray; ray.init()'",
    shutdownAfterJobFinishes: true,
    clusterSpec: {
      headGroupSpec: { engineStartParams: { "dashboard-host": "0.0.0.0" } },
      workerGroupSpec: [{ groupName: "workers", replicas: 1 }],
    },
  },
  "proto.RayJobSubmission": {
    entrypoint: "python main.py",
    runtimeEnv: "working_dir: gcs://_ray_pkg_5b6e0a1f3d2c4e7a.zip\n",
    metadata: { team: "a" },
  },
  "proto.UploadJobPackageRequest": {
    namespace: EXAMPLE_NAMESPACE,
    clustername: "blue",
    name: "_ray_pkg_5b6e0a1f3d2c4e7a.zip",
    content: "UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA==",
  },
  "proto.RayService": {
    name: "fruit",
    namespace: EXAMPLE_NAMESPACE,
    user: "ada",
    version: "2.9.0",
    serveConfigV2: [
      "applications:",
      "  - name: fruit",
      "    import_path: fruit.deployment_graph",
      "    route_prefix: /fruit",
      "",
    ].join("\n"),
    clusterSpec: {
      headGroupSpec: { computeTemplate: "small" },
      workerGroupSpec: [{
        groupName: "workers",
        computeTemplate: "small",
        replicas: 1,
        minReplicas: 1,
        maxReplicas: 3,
      }],
    },
  },
  "proto.UpdateRayServiceBody": {
    workerGroupUpdateSpec: [{
      groupName: "workers",
      replicas: 2,
      minReplicas: 1,
      maxReplicas: 3,
    }],
  },
};
