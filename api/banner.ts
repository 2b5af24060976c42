/**
 * What a person at a terminal reads when Corral has started (`--log-format
 * text`, the default there): where to point a browser, the command line and
 * gRPC, what Corral runs against, and who may call it. Logs read by machines
 * get the "Corral started" JSON record instead, with the same facts.
 */

/** The facts of a start, as main.ts has them once the ports are bound. */
export interface StartedFacts {
  version: string;
  mode: string;
  urls: {
    api: string;
    console: string;
    docs: string;
    grpc: string;
    /** The second gRPC port's address (--kuberay-grpc-port), if any. */
    kuberayGrpc?: string;
  };
  /** The Kubernetes API server's URL. */
  server: string | undefined;
  /** "all", or the namespaces served. */
  namespaces: string[] | "all";
  /** The authenticators' names, "anonymous" among them when it is on. */
  authentication: string[];
  /** How requests are authorized, in words (access.ts's summary). */
  authorization: string;
  /** Where --write-kubeconfig wrote the stand-in's kubeconfig, if it did. */
  kubeconfigWritten?: string;
}

const MODES: Record<string, string> = {
  embedded:
    "embedded: an in-memory Kubernetes API stand-in and a simulated operator, for development",
  kubernetes: "kubernetes",
};

/** The banner's lines, without colour (it may be copied into a ticket). */
export function banner(facts: StartedFacts): string[] {
  const anonymous = facts.authentication.includes("anonymous");
  const others = facts.authentication.filter((a) => a !== "anonymous");
  const who = [
    ...(others.length > 0 ? [`callers with ${others.join(", ")}`] : []),
    ...(anonymous ? ["anyone, without credentials"] : []),
  ].join("; ");
  return [
    `Corral ${facts.version} started`,
    `  console     ${facts.urls.console}`,
    `  HTTP API    ${facts.urls.api}   (reference: ${facts.urls.docs})`,
    `  gRPC        ${facts.urls.grpc}`,
    ...(facts.urls.kuberayGrpc
      ? [
        `  KubeRay gRPC ${facts.urls.kuberayGrpc}   (KubeRay's current protos; the port above: v0.6.0's)`,
      ]
      : []),
    `  mode        ${MODES[facts.mode] ?? facts.mode}`,
    `  Kubernetes  ${facts.server ?? "(none)"}${
      facts.namespaces === "all" ? "" : `, namespaces ${facts.namespaces}`
    }`,
    ...(facts.kubeconfigWritten
      ? [`  kubeconfig  ${facts.kubeconfigWritten} (for kubectl)`]
      : []),
    `  who may call: ${who || "nobody"}; authorization: ${facts.authorization}`,
    "Stop with Ctrl-C. Logs follow, a line each (--log-format json for JSON).",
  ];
}
