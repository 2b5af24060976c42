/**
 * The harness's calls (viaHttp, viaGrpc) against main.ts running as a
 * process: HTTP over a real socket with fetch, gRPC with the real client,
 * so a process-level test asks its questions as the in-process ones do.
 */
import { grpcCaller } from "./api/grpc/client.ts";
import type { MainProcess } from "./main_process.ts";
import {
  type CallOptions,
  type Corral,
  type Outcome,
  schema,
  TRANSPORTS,
} from "./harness.ts";
import type { Gateway } from "../api/http/gateway.ts";

export interface MainClient {
  /** `rpc` through `transport`, with `authorization` if given. */
  call(
    transport: "http" | "grpc",
    rpc: string,
    request: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<Outcome>;
  close(): Promise<void>;
}

/**
 * The harness's Corral for a running main.ts: the gateway as a fetch to its
 * HTTP port (a streamed answer stays streamed), gRPC with the real client,
 * which `corral.close()` closes (the process is the caller's to stop).
 */
export async function corralOf(main: MainProcess): Promise<Corral> {
  const api = await schema();
  // The gateway the harness calls, as a fetch to the process's HTTP port.
  const gateway = (async (request: Request) => {
    const url = new URL(request.url);
    return await fetch(`${main.http}${url.pathname}${url.search}`, {
      method: request.method,
      headers: request.headers,
      body: request.body ? await request.text() : undefined,
    });
  }) as unknown as Gateway;
  const grpc = grpcCaller(api, main.grpc);
  return {
    schema: api,
    gateway,
    grpc,
    kubeUrl: "",
    close: () => Promise.resolve(grpc.close()),
  };
}

/** A client of both transports of a running main.ts. */
export async function mainClient(main: MainProcess): Promise<MainClient> {
  const corral = await corralOf(main);
  const runs = Object.fromEntries(TRANSPORTS);
  return {
    call: (transport, rpc, request, options = {}) =>
      runs[transport](corral, rpc, request, options),
    close: () => corral.close(),
  };
}
