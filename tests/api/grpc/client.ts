/**
 * A generic unary gRPC client over @grpc/grpc-js for tests: calls any method
 * of the API definition with a message in message form, and decodes rich
 * error details from grpc-status-details-bin.
 */
import * as grpc from "@grpc/grpc-js";
import type protobuf from "protobufjs";
import type { Message } from "../../../domain/message_form.ts";
import {
  messageFromProto,
  messageToProto,
} from "../../../domain/proto_objects.ts";
import type { FieldViolation } from "../../../domain/errors.ts";
import { type ApiSchema, methodKey } from "../../../api/schema.ts";

export interface GrpcOutcome {
  code: number;
  message: string;
  details: unknown[];
  result?: Message;
  metadata?: grpc.Metadata;
}

export interface GrpcCaller {
  call(
    key: string,
    request: Message,
    metadata?: grpc.Metadata,
  ): Promise<GrpcOutcome>;
  /** Sends raw bytes as the request of `key`. */
  callRaw(
    key: string,
    bytes: Uint8Array,
    metadata?: grpc.Metadata,
  ): Promise<GrpcOutcome>;
  /** Calls a server-streaming method. */
  stream(key: string, request: Message, metadata?: grpc.Metadata): GrpcStream;
  close(): void;
}

/** A server stream as a test reads it. */
export interface GrpcStream {
  /** The answers, in message form, as they come. */
  messages: AsyncIterableIterator<Message>;
  /** How the stream ended: its code, message and details. */
  status: Promise<Omit<GrpcOutcome, "result">>;
  /** Stops reading (flow control then holds the server back). */
  pause(): void;
  cancel(): void;
}

export function grpcCaller(schema: ApiSchema, address: string): GrpcCaller {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const methods = new Map<string, protobuf.Method>();
  for (const service of schema.services) {
    for (const method of service.methodsArray) {
      method.resolve();
      methods.set(methodKey(method), method);
    }
  }
  const Status = schema.root.lookupType("google.rpc.Status");
  const BadRequest = schema.root.lookupType("google.rpc.BadRequest");

  function details(error: grpc.ServiceError): unknown[] {
    const bin = error.metadata?.get("grpc-status-details-bin")[0];
    if (!bin) return [];
    // The decoded message, not toObject(): protobufjs' Any wrapper would
    // unpack the details into JSON form.
    const status = Status.decode(bin as Buffer) as unknown as {
      details?: { type_url: string; value: Uint8Array }[];
    };
    return (status.details ?? []).map((any) => {
      if (any.type_url.endsWith("google.rpc.BadRequest")) {
        const decoded = BadRequest.toObject(BadRequest.decode(any.value)) as {
          fieldViolations?: FieldViolation[];
        };
        return {
          "@type": any.type_url,
          fieldViolations: (decoded.fieldViolations ?? []).map((v) => ({
            field: v.field,
            description: v.description,
          })),
        };
      }
      return { "@type": any.type_url };
    });
  }

  function send(
    key: string,
    bytes: Uint8Array,
    metadata = new grpc.Metadata(),
  ): Promise<GrpcOutcome> {
    const method = methods.get(key);
    if (!method) throw new Error(`No method ${key}`);
    const responseType = method.resolvedResponseType!;
    return new Promise((resolve) => {
      let headers: grpc.Metadata | undefined;
      const call = client.makeUnaryRequest(
        `/${key}`,
        (b: Uint8Array) => Buffer.from(b),
        (b: Buffer) => b,
        bytes,
        metadata,
        { deadline: Date.now() + 10_000 },
        (error: grpc.ServiceError | null, value?: Buffer) => {
          if (error) {
            resolve({
              code: error.code,
              message: error.details,
              details: details(error),
              metadata: headers,
            });
            return;
          }
          const violations: FieldViolation[] = [];
          const result = messageFromProto(
            responseType,
            responseType.decode(value!) as unknown as Record<string, unknown>,
            "",
            violations,
          );
          resolve({
            code: 0,
            message: "",
            details: [],
            result,
            metadata: headers,
          });
        },
      );
      call.on("metadata", (m: grpc.Metadata) => headers = m);
    });
  }

  function stream(
    key: string,
    request: Message,
    metadata = new grpc.Metadata(),
  ): GrpcStream {
    const method = methods.get(key)!;
    const requestType = method.resolvedRequestType!;
    const responseType = method.resolvedResponseType!;
    const bytes = requestType.encode(
      requestType.fromObject(messageToProto(requestType, request)),
    ).finish();
    const call = client.makeServerStreamRequest(
      `/${key}`,
      (b: Uint8Array) => Buffer.from(b),
      (b: Buffer) => b,
      bytes,
      metadata,
    );
    const status = new Promise<Omit<GrpcOutcome, "result">>((resolve) => {
      call.on(
        "status",
        (s: grpc.StatusObject) =>
          resolve({ code: s.code, message: s.details, details: [] }),
      );
      call.on("error", (error: grpc.ServiceError) =>
        resolve({
          code: error.code,
          message: error.details,
          details: details(error),
        }));
    });
    async function* messages(): AsyncGenerator<Message> {
      for await (const value of call as AsyncIterable<Buffer>) {
        yield messageFromProto(
          responseType,
          responseType.decode(value) as unknown as Record<string, unknown>,
          "",
          [],
        );
      }
    }
    const iterator = messages();
    // The stream's error is read from `status`: iterating ends quietly.
    const quiet: AsyncIterableIterator<Message> = {
      next: () =>
        iterator.next().catch(() => ({
          done: true as const,
          value: undefined,
        })),
      return: () => iterator.return(undefined),
      [Symbol.asyncIterator]() {
        return this;
      },
    };
    return {
      messages: quiet,
      status,
      pause: () => call.pause(),
      cancel: () => call.cancel(),
    };
  }

  return {
    stream,
    call(key, request, metadata) {
      const requestType = methods.get(key)!.resolvedRequestType!;
      const bytes = requestType.encode(
        requestType.fromObject(messageToProto(requestType, request)),
      ).finish();
      return send(key, bytes, metadata);
    },
    callRaw: (key, bytes, metadata) => send(key, bytes, metadata),
    close: () => client.close(),
  };
}
