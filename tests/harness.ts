/**
 * Corral assembled in-process for tests, as main.ts assembles it: the
 * Kubernetes API stand-in, the client-node orchestrator, the handlers, the
 * HTTP gateway function and a gRPC server on 127.0.0.1:0.
 */
import * as grpc from "@grpc/grpc-js";
import * as k8s from "@kubernetes/client-node";
import { createDispatcher } from "../api/calls.ts";
import { createGateway, type Gateway } from "../api/gateway.ts";
import { createGrpcServer } from "../api/grpc.ts";
import { silentLogger } from "../api/log.ts";
import { type ApiSchema, loadApiSchema } from "../api/schema.ts";
import { createHandlers } from "../api/service.ts";
import type { Logger } from "../domain/log.ts";
import type { KubernetesCallRecord } from "../domain/ports.ts";
import { createKubernetesOrchestrator } from "../orchestrator/kubernetes.ts";
import { kubeconfigFor, startStandin } from "../orchestrator/standin.ts";
import { type GrpcCaller, grpcCaller } from "./api/grpc_client.ts";

export interface Corral {
  schema: ApiSchema;
  gateway: Gateway;
  grpc: GrpcCaller;
  /** The stand-in's base URL, to look at what Corral wrote. */
  kubeUrl: string;
  close(): Promise<void>;
}

let schemaPromise: Promise<ApiSchema> | undefined;

/** The API definition, loaded once per test process. */
export function schema(): Promise<ApiSchema> {
  return schemaPromise ??= loadApiSchema();
}

export async function startCorral(
  options: {
    log?: Logger;
    /** Served namespaces (createHandlers' `namespaces`); all by default. */
    namespaces?: readonly string[];
    /** Told of every Kubernetes call a request makes. */
    onKubernetesCall?: (record: KubernetesCallRecord) => void;
  } = {},
): Promise<Corral> {
  const log = options.log ?? silentLogger();
  const standin = await startStandin({ hostname: "127.0.0.1", port: 0 });
  const kubeConfig = new k8s.KubeConfig();
  kubeConfig.loadFromString(kubeconfigFor(standin.url));
  const orchestrator = createKubernetesOrchestrator({ kubeConfig });
  const api = await schema();
  const handlers = createHandlers({
    orchestrator,
    clusterApiVersion: "ray.io/v1",
    namespaces: options.namespaces,
  });
  const dispatcher = createDispatcher({
    handlers,
    log,
    onKubernetesCall: options.onKubernetesCall,
  });
  const gateway = createGateway({ schema: api, dispatcher });
  const server = createGrpcServer({ schema: api, dispatcher });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(
      "127.0.0.1:0",
      grpc.ServerCredentials.createInsecure(),
      (error, bound) => error ? reject(error) : resolve(bound),
    )
  );
  const client = grpcCaller(api, `127.0.0.1:${port}`);
  return {
    schema: api,
    gateway,
    grpc: client,
    kubeUrl: standin.url,
    async close() {
      client.close();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      await standin.close();
    },
  };
}
