/**
 * Generic gRPC clients for tests, as a tool that has never seen Corral's
 * .proto files would use them: server reflection (grpc.reflection.v1, from
 * the reflection.proto that @grpc/reflection ships) and the standard health
 * service.
 */
import * as grpc from "@grpc/grpc-js";
import protobuf from "protobufjs";
import { healthServiceDefinition } from "../../../api/grpc/health.ts";

export interface DiscoveryClient {
  /** The names of the services reflection lists. */
  listServices(): Promise<string[]>;
  /** FileDescriptorProtos (as objects) of a symbol's file and its imports. */
  fileContainingSymbol(symbol: string): Promise<Record<string, unknown>[]>;
  fileByFilename(name: string): Promise<Record<string, unknown>[]>;
  /** grpc.health.v1.Health/Check: the status name, or the error code. */
  check(service: string): Promise<string | { code: number }>;
  /** grpc.health.v1.Health/Watch: the statuses received until it ends. */
  watch(service: string): {
    statuses: string[];
    next(): Promise<string | undefined>;
    cancel(): void;
  };
  close(): void;
}

let reflectionRoot: Promise<protobuf.Root> | undefined;

function loadReflectionRoot(): Promise<protobuf.Root> {
  // <package>/build/src/index.js -> <package>/build/proto/...
  const proto = new URL(
    "../proto/grpc/reflection/v1/reflection.proto",
    import.meta.resolve("@grpc/reflection"),
  );
  return reflectionRoot ??= new protobuf.Root().load(proto.pathname, {
    keepCase: false,
  });
}

export async function discoveryClient(
  address: string,
  descriptorRoot: protobuf.Root,
): Promise<DiscoveryClient> {
  const root = await loadReflectionRoot();
  const Request = root.lookupType("grpc.reflection.v1.ServerReflectionRequest");
  const Response = root.lookupType(
    "grpc.reflection.v1.ServerReflectionResponse",
  );
  const FileDescriptorProto = descriptorRoot.lookupType(
    "google.protobuf.FileDescriptorProto",
  );
  const health = healthServiceDefinition().root;
  const CheckRequest = health.lookupType("grpc.health.v1.HealthCheckRequest");
  const CheckResponse = health.lookupType(
    "grpc.health.v1.HealthCheckResponse",
  );
  const client = new grpc.Client(address, grpc.credentials.createInsecure());

  const reflect = (request: Record<string, unknown>) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const call = client.makeBidiStreamRequest(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        (message: Record<string, unknown>) =>
          Buffer.from(Request.encode(Request.fromObject(message)).finish()),
        (bytes: Buffer) =>
          Response.toObject(Response.decode(bytes), { oneofs: true }),
      );
      call.on("data", (response: Record<string, unknown>) => {
        resolve(response);
        call.end();
      });
      call.on("error", reject);
      call.write(request);
    });
  const files = async (request: Record<string, unknown>) => {
    const response = await reflect(request);
    if (response.errorResponse) {
      throw new Error(JSON.stringify(response.errorResponse));
    }
    const { fileDescriptorProto } = response.fileDescriptorResponse as {
      fileDescriptorProto: Uint8Array[];
    };
    return fileDescriptorProto.map((bytes) =>
      FileDescriptorProto.toObject(FileDescriptorProto.decode(bytes), {
        enums: String,
      })
    );
  };
  const serialize = (message: Record<string, unknown>) =>
    Buffer.from(CheckRequest.encode(CheckRequest.fromObject(message)).finish());
  const deserialize = (bytes: Buffer) =>
    CheckResponse.toObject(CheckResponse.decode(bytes), {
      enums: String,
      defaults: true,
    }) as { status: string };

  return {
    async listServices() {
      const response = await reflect({ listServices: "*" });
      const list = response.listServicesResponse as {
        service: { name: string }[];
      };
      return list.service.map((s) => s.name);
    },
    fileContainingSymbol: (symbol) => files({ fileContainingSymbol: symbol }),
    fileByFilename: (name) => files({ fileByFilename: name }),
    check(service) {
      return new Promise((resolve) => {
        client.makeUnaryRequest(
          "/grpc.health.v1.Health/Check",
          serialize,
          deserialize,
          { service },
          (error, response) =>
            resolve(error ? { code: error.code } : response!.status),
        );
      });
    },
    watch(service) {
      const call = client.makeServerStreamRequest(
        "/grpc.health.v1.Health/Watch",
        serialize,
        deserialize,
        { service },
      );
      const statuses: string[] = [];
      const waiting: ((status: string | undefined) => void)[] = [];
      const queue: (string | undefined)[] = [];
      const push = (status: string | undefined) => {
        if (status !== undefined) statuses.push(status);
        const resolve = waiting.shift();
        if (resolve) resolve(status);
        else queue.push(status);
      };
      call.on("data", (response: { status: string }) => push(response.status));
      call.on("end", () => push(undefined));
      call.on("error", () => push(undefined));
      return {
        statuses,
        next: () =>
          queue.length > 0
            ? Promise.resolve(queue.shift())
            : new Promise((resolve) => waiting.push(resolve)),
        cancel: () => call.cancel(),
      };
    },
    close: () => client.close(),
  };
}
