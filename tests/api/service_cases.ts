/**
 * The service the services tests send: its Serve config and a cluster of
 * one head and one worker group on the compute template "small".
 */

export const SERVE_CONFIG = [
  "applications:",
  "  - name: fruit",
  "    import_path: fruit.deployment_graph",
  "    route_prefix: /fruit",
].join("\n");

/** A service as a user sends it over HTTP/JSON. */
export function sampleService(name: string, overrides = {}) {
  return {
    name,
    user: "ada",
    version: "2.9.0",
    serveConfigV2: SERVE_CONFIG,
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
    ...overrides,
  };
}
