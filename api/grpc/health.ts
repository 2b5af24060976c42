/**
 * The standard gRPC health service, grpc.health.v1.Health
 * (https://github.com/grpc/grpc/blob/master/doc/health-checking.md): Check,
 * List and Watch over a table of statuses by service name, "" being the
 * whole server. Kubernetes' gRPC probes, grpc_health_probe and load
 * balancers ask it. Whoever knows whether Corral can serve (the readiness
 * check) reports that through `HealthReporter.setStatus`.
 *
 * Hand-written rather than grpc-health-check (checked: 2.1.0, the gRPC
 * project's own, which does have Check, List and Watch and takes grpc-js
 * from the caller): its HealthImplementation answers Check and List from its
 * table at once, with no hook to re-evaluate readiness before answering, so
 * a probe would see the status of the last /readyz instead of a fresh one;
 * and it cannot end its Watch streams (watchers go only when the client
 * cancels), so a graceful tryShutdown() would wait for every watching probe.
 */
import * as grpc from "@grpc/grpc-js";
import protobuf from "protobufjs";

/** grpc/health/v1/health.proto, as published by the gRPC project. */
const HEALTH_PROTO = `
syntax = "proto3";

package grpc.health.v1;

message HealthCheckRequest {
  string service = 1;
}

message HealthCheckResponse {
  enum ServingStatus {
    UNKNOWN = 0;
    SERVING = 1;
    NOT_SERVING = 2;
    SERVICE_UNKNOWN = 3;  // Used only by the Watch method.
  }
  ServingStatus status = 1;
}

message HealthListRequest {}

message HealthListResponse {
  map<string, HealthCheckResponse> statuses = 1;
}

service Health {
  rpc Check(HealthCheckRequest) returns (HealthCheckResponse);
  rpc List(HealthListRequest) returns (HealthListResponse);
  rpc Watch(HealthCheckRequest) returns (stream HealthCheckResponse);
}
`;

export const HEALTH_FILE = "grpc/health/v1/health.proto";

export type ServingStatus = "SERVING" | "NOT_SERVING";

export interface HealthReporter {
  /** Sets the status of a service ("" is the whole server). */
  setStatus(service: string, status: ServingStatus): void;
  /** Sets the status of the server and of every service. */
  setAll(status: ServingStatus): void;
  /** The status of a service, or undefined for an unknown one. */
  status(service: string): ServingStatus | undefined;
  /**
   * Marks every service NOT_SERVING and ends the Watch streams, which would
   * otherwise keep a graceful server shutdown waiting for ever.
   */
  shutdown(): void;
}

let healthService: protobuf.Service | undefined;

/** The grpc.health.v1.Health service definition, for reflection. */
export function healthServiceDefinition(): protobuf.Service {
  if (!healthService) {
    const { root } = protobuf.parse(HEALTH_PROTO, { keepCase: false });
    root.resolveAll();
    // Parsed from text, it comes from no file: name the one it is.
    const pkg = root.lookup("grpc.health.v1") as protobuf.Namespace;
    for (const nested of pkg.nestedArray) nested.filename = HEALTH_FILE;
    healthService = root.lookupService("grpc.health.v1.Health");
  }
  return healthService;
}

/** A Watch call: the service asked about in, its statuses out. */
type WatchCall = grpc.ServerWritableStream<
  { service: string },
  { status: string }
>;

/**
 * Adds grpc.health.v1.Health to the server, every service in `services`
 * and the server as a whole ("") SERVING.
 */
export function addHealthService(
  server: grpc.Server,
  services: string[],
  options: {
    /**
     * Re-evaluates readiness (and so the statuses, through the reporter)
     * before Check and List answer, so a gRPC probe sees what /readyz does.
     */
    refresh?: () => Promise<unknown>;
  } = {},
): HealthReporter {
  const table = new HealthTable(services);
  const refresh = () =>
    Promise.resolve(options.refresh?.()).catch(() => undefined);
  server.addService(healthMethods(), healthHandlers(table, refresh));
  return table;
}

/**
 * The statuses by service name and the Watch streams on them: what the
 * handlers answer from and what the reporter changes.
 */
export class HealthTable implements HealthReporter {
  readonly #statuses: Map<string, ServingStatus>;
  readonly #watchers = new Map<string, Set<WatchCall>>();
  #stopped = false;

  /** How many services have Watch streams on them. */
  get watchedServices(): number {
    return this.#watchers.size;
  }

  /** Every service in `services` and the server ("") SERVING. */
  constructor(services: string[]) {
    this.#statuses = new Map(["", ...services].map((s) => [s, "SERVING"]));
  }

  setStatus(service: string, status: ServingStatus): void {
    if (this.#statuses.get(service) === status) return;
    this.#statuses.set(service, status);
    for (const call of this.#watchers.get(service) ?? []) {
      call.write({ status });
    }
  }

  setAll(status: ServingStatus): void {
    for (const service of this.#statuses.keys()) {
      this.setStatus(service, status);
    }
  }

  status(service: string): ServingStatus | undefined {
    return this.#statuses.get(service);
  }

  /** List's answer: every service's status. */
  list(): Record<string, { status: ServingStatus }> {
    return Object.fromEntries(
      [...this.#statuses].map(([service, status]) => [service, { status }]),
    );
  }

  /**
   * Writes the service's status (SERVICE_UNKNOWN for an unknown one) to the
   * call now and on every change, until the client goes or shutdown() ends
   * the call; after shutdown(), ends it at once.
   */
  watch(call: WatchCall): void {
    const service = call.request.service;
    call.write({ status: this.#statuses.get(service) ?? "SERVICE_UNKNOWN" });
    if (this.#stopped) {
      call.end();
      return;
    }
    const set = this.#watchers.get(service) ?? new Set();
    this.#watchers.set(service, set);
    set.add(call);
    // A service name is whatever a client sends: its entry goes with its
    // last watcher.
    const forget = () => {
      set.delete(call);
      if (set.size === 0 && this.#watchers.get(service) === set) {
        this.#watchers.delete(service);
      }
    };
    call.on("cancelled", forget);
    call.on("close", forget);
  }

  shutdown(): void {
    this.#stopped = true;
    this.setAll("NOT_SERVING");
    for (const set of this.#watchers.values()) {
      for (const call of set) call.end();
      set.clear();
    }
  }
}

/** Check, List and Watch as grpc-js methods, their messages coded by protobufjs. */
function healthMethods(): grpc.ServiceDefinition {
  const root = healthServiceDefinition().root;
  const Request = root.lookupType("grpc.health.v1.HealthCheckRequest");
  const Response = root.lookupType("grpc.health.v1.HealthCheckResponse");
  const ListRequest = root.lookupType("grpc.health.v1.HealthListRequest");
  const ListResponse = root.lookupType("grpc.health.v1.HealthListResponse");
  return {
    Check: healthMethod("Check", Request, Response),
    List: healthMethod("List", ListRequest, ListResponse),
    Watch: healthMethod("Watch", Request, Response, true),
  };
}

function healthMethod(
  name: string,
  request: protobuf.Type,
  response: protobuf.Type,
  responseStream = false,
): grpc.MethodDefinition<object, object> {
  const decode = (type: protobuf.Type) => (bytes: Buffer) =>
    type.toObject(type.decode(bytes), { enums: String, defaults: true });
  const encode = (type: protobuf.Type) => (message: object) =>
    Buffer.from(type.encode(type.fromObject(message)).finish());
  return {
    path: `/grpc.health.v1.Health/${name}`,
    requestStream: false,
    responseStream,
    requestSerialize: encode(request),
    requestDeserialize: decode(request),
    responseSerialize: encode(response),
    responseDeserialize: decode(response),
  };
}

/** The handlers of Check, List and Watch over `table`. */
function healthHandlers(
  table: HealthTable,
  refresh: () => Promise<unknown>,
): grpc.UntypedServiceImplementation {
  return {
    Check: (
      call: grpc.ServerUnaryCall<{ service: string }, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ) => {
      refresh().then(() => {
        const status = table.status(call.request.service);
        if (status === undefined) {
          callback({
            code: grpc.status.NOT_FOUND,
            details: `Unknown service "${call.request.service}"`,
          });
        } else {
          callback(null, { status });
        }
      });
    },
    List: (
      _call: grpc.ServerUnaryCall<unknown, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ) => {
      refresh().then(() => callback(null, { statuses: table.list() }));
    },
    Watch: (call: WatchCall) => table.watch(call),
  };
}
