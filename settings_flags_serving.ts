/** The flags of where Corral listens, the orchestrator it drives and the CRD it serves. */
import type { Spec } from "./settings_flags_spec.ts";

export const SERVING_SPECS = {
  "http-port": {
    env: "CORRAL_HTTP_PORT",
    default: "8888",
    value: "PORT",
    help: "HTTP/JSON port (0 picks a free one)",
  },
  "grpc-port": {
    env: "CORRAL_GRPC_PORT",
    default: "8887",
    value: "PORT",
    help: "gRPC port (0 picks a free one)",
  },
  "kuberay-grpc-port": {
    env: "CORRAL_KUBERAY_GRPC_PORT",
    default: "",
    value: "PORT",
    help:
      "a second gRPC port, off unless set (0 picks a free one): the same calls in KubeRay's current numbering (proto/kuberay/), for stubs built from KubeRay's protos since 1.0; the main port keeps v0.6.0's",
  },
  host: {
    env: "CORRAL_HOST",
    default: "0.0.0.0",
    value: "ADDRESS",
    help: "address both listeners bind",
  },
  "allowed-hosts": {
    env: "CORRAL_ALLOWED_HOSTS",
    default: { kubernetes: "*", embedded: "localhost,127.0.0.1,[::1]" },
    value: "LIST",
    help:
      "comma-separated Host header values the HTTP port serves (name or address, optional :port, *.domain, or * for any); others get 421 code 3, a defence against DNS rebinding. /healthz and /readyz answer any Host",
  },
  "cors-allowed-origins": {
    env: "CORRAL_CORS_ALLOWED_ORIGINS",
    default: "",
    value: "LIST",
    help:
      "comma-separated origins (scheme://host[:port]) whose pages may call the HTTP API: they get CORS answers and may send POST, PUT, PATCH and DELETE, which other origins' pages may not",
  },
  orchestrator: {
    env: "CORRAL_ORCHESTRATOR",
    default: "kubernetes",
    value: "MODE",
    help:
      "kubernetes: the cluster of --kubeconfig or the in-cluster service account; embedded: a local Kubernetes API stand-in with a simulated operator",
  },
  kubeconfig: {
    env: "KUBECONFIG",
    default: "",
    value: "FILE",
    help:
      "kubeconfig file (kubernetes mode); without one, the in-cluster service account",
  },
  "write-kubeconfig": {
    env: "CORRAL_WRITE_KUBECONFIG",
    default: "",
    value: "FILE",
    help:
      "embedded mode: write a kubeconfig for the stand-in to this path, for kubectl and other clients",
  },
  "operator-delay": {
    env: "CORRAL_OPERATOR_DELAY",
    default: "2s",
    value: "DURATION",
    help:
      "embedded mode: how long the simulated operator waits before a new cluster turns ready",
  },
  crd: {
    env: "CORRAL_CRDS",
    default: "",
    value: "FILE",
    multiple: true,
    help:
      "embedded mode: a CustomResourceDefinition file (YAML or JSON) to install into the stand-in, which then validates and prunes custom objects as a real API server; repeatable (env: comma-separated)",
  },
  "cluster-group": {
    env: "CORRAL_CLUSTER_GROUP",
    default: "ray.io",
    value: "GROUP",
    help: "API group of the cluster custom resource",
  },
  "cluster-version": {
    env: "CORRAL_CLUSTER_VERSION",
    default: "v1",
    value: "VERSION",
    help: "API version of the cluster custom resource",
  },
  "cluster-plural": {
    env: "CORRAL_CLUSTER_PLURAL",
    default: "rayclusters",
    value: "PLURAL",
    help: "plural resource name of the cluster custom resource",
  },
  namespaces: {
    env: "CORRAL_NAMESPACES",
    default: "",
    value: "LIST",
    help:
      "comma-separated namespaces to serve, for a namespaced install (others get code 7); empty serves all",
  },
  "kuberay-json": {
    env: "CORRAL_KUBERAY_JSON",
    default: "false",
    value: "BOOL",
    boolean: true,
    help:
      "HTTP answers in the JSON KubeRay's API server writes (enums as numbers, unpopulated fields left out, a group's start parameters as rayStartParams) and request fields the API does not know are dropped with a warning instead of refused",
  },
} as const satisfies Record<string, Spec>;
