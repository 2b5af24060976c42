/**
 * The gRPC transport on @grpc/grpc-js: every service of the API definition,
 * decoded and encoded with protobufjs, calling the same handlers as the
 * HTTP gateway and answering the same code and message.
 */
import * as grpc from "@grpc/grpc-js";
import protobuf from "protobufjs";
import type { Message } from "../../domain/message_form.ts";
import {
  messageFromProto,
  messageToProto,
} from "../../domain/proto_objects.ts";
import {
  Code,
  type ErrorDetail,
  type FieldViolation,
  invalidArgument,
  ServiceError,
} from "../../domain/errors.ts";
import { asServiceError } from "../errors.ts";
import type { Dispatcher } from "../service/dispatcher.ts";
import { type ApiSchema, methodKey } from "../schema.ts";
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_HEADER_BYTES,
} from "../transport_limits.ts";
import { grpcPeer } from "./credentials.ts";
import { clientRequestIdFrom, newRequestId } from "../request_id.ts";
import { completeHttp2Constants } from "./http2_constants.ts";
import type { Logger } from "../../domain/log.ts";
import { KeptForms } from "../../domain/kept.ts";

export interface GrpcOptions {
  schema: ApiSchema;
  dispatcher: Dispatcher;
  /** Larger messages are refused with RESOURCE_EXHAUSTED; 3 MiB by default. */
  maxReceiveBytes?: number;
  /**
   * A connection without calls for this long gets GOAWAY and closes; 60 s,
   * as --idle-timeout for HTTP. Keepalive pings follow the same period.
   */
  idleTimeoutMs?: number;
  /**
   * Larger request metadata is refused with RESOURCE_EXHAUSTED; 16 KiB, as
   * the HTTP listener's header limit.
   */
  maxMetadataBytes?: number;
  /**
   * How calls' messages are read and written: protobufjs over the
   * schema's own types by default (the main port); the second port's
   * carries KubeRay's current messages to the API's (kuberay_codec.ts).
   */
  codec?: GrpcCodec;
}

/**
 * A method's request read from its bytes, and an answer (or each answer
 * of a stream) written as bytes, both in the API's message form. A
 * request that does not decode throws INVALID_ARGUMENT.
 */
export interface GrpcCodec {
  decode(method: protobuf.Method, bytes: Uint8Array): Message;
  encode(method: protobuf.Method, message: Message): Uint8Array;
}

/** The main port's codec: the schema's own types. */
const SCHEMA_CODEC: GrpcCodec = {
  decode: (method, bytes) => decodeMessage(method.resolvedRequestType!, bytes),
  encode: (method, message) => encode(method.resolvedResponseType!, message),
};

/** A gRPC server with the API's services added, not yet bound. */
export function createGrpcServer(options: GrpcOptions): grpc.Server {
  const { schema } = options;
  // A request that is not application/grpc* gets grpc-js's 415.
  completeHttp2Constants();
  const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
  const server = new grpc.Server({
    "grpc.max_receive_message_length": options.maxReceiveBytes ??
      DEFAULT_MAX_BODY_BYTES,
    "grpc.max_connection_idle_ms": idleTimeoutMs,
    "grpc.keepalive_time_ms": idleTimeoutMs,
    "grpc.keepalive_timeout_ms": 20_000,
  });
  const serving: Serving = {
    dispatcher: options.dispatcher,
    maxMetadataBytes: options.maxMetadataBytes ?? DEFAULT_MAX_HEADER_BYTES,
    encodeStatus: statusEncoder(schema.root),
    codec: options.codec ?? SCHEMA_CODEC,
  };
  for (const service of schema.services) {
    const definition: Record<
      string,
      grpc.MethodDefinition<Buffer, Uint8Array>
    > = {};
    const implementation: grpc.UntypedServiceImplementation = {};
    for (const method of service.methodsArray) {
      method.resolve();
      const streaming = method.responseStream === true;
      const key = methodKey(method);
      definition[method.name] = methodDefinition(key, streaming);
      implementation[method.name] = (
        call: ServerCall,
        callback?: grpc.sendUnaryData<Uint8Array>,
      ) => serveCall(serving, method, key, call, callback ?? streamEnd(call));
    }
    server.addService(definition, implementation);
  }
  return server;
}

/** What every call of the server is served with. */
interface Serving {
  dispatcher: Dispatcher;
  maxMetadataBytes: number;
  encodeStatus: (error: ServiceError) => Partial<grpc.StatusObject>;
  codec: GrpcCodec;
}

type ServerCall =
  | grpc.ServerUnaryCall<Buffer, Uint8Array>
  | grpc.ServerWritableStream<Buffer, Uint8Array>;

function methodDefinition(
  key: string,
  streaming: boolean,
): grpc.MethodDefinition<Buffer, Uint8Array> {
  return {
    path: `/${key}`,
    requestStream: false,
    responseStream: streaming,
    // Decoding happens in serveCall, where a malformed message can be
    // answered with INVALID_ARGUMENT instead of grpc-js' INTERNAL.
    requestDeserialize: (bytes: Buffer) => bytes,
    requestSerialize: (bytes: Buffer) => bytes,
    // A view of the bytes, not a copy: grpc-js frames them into a buffer
    // of its own, and a kept answer's bytes are shared between calls.
    responseSerialize: (bytes: Uint8Array) =>
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    responseDeserialize: (bytes: Buffer) => bytes,
  };
}

/**
 * A unary call answers through its callback; a server stream writes its
 * answers and ends with the status: this is its callback.
 */
function streamEnd(call: ServerCall): grpc.sendUnaryData<Uint8Array> {
  return (error, value) => {
    const stream = call as grpc.ServerWritableStream<Buffer, Uint8Array>;
    if (error) stream.emit("error", error);
    else if (value) stream.end(value);
    else stream.end();
  };
}

/**
 * One call of `method`, whose key is `key`: refused, or handed to the
 * dispatcher and answered.
 */
async function serveCall(
  { dispatcher, maxMetadataBytes, encodeStatus, codec }: Serving,
  method: protobuf.Method,
  key: string,
  call: ServerCall,
  callback: grpc.sendUnaryData<Uint8Array>,
): Promise<void> {
  // grpc-js 1.14 has no server-side metadata limit: the call is refused
  // here, as HTTP refuses headers over its limit (431 code 8).
  if (sizeOfMetadata(call.metadata) > maxMetadataBytes) {
    callback({
      code: Code.RESOURCE_EXHAUSTED,
      details:
        `Request metadata too large: the limit is ${maxMetadataBytes} bytes`,
    });
    return;
  }
  const given = call.metadata.get("x-request-id")[0];
  const requestId = newRequestId();
  const clientRequestId = clientRequestIdFrom(
    given === undefined ? given : String(given),
  );
  const reply = new grpc.Metadata();
  reply.set("x-request-id", requestId);
  call.sendMetadata(reply);
  const info = {
    transport: "grpc" as const,
    requestId,
    ...(clientRequestId ? { clientRequestId } : {}),
    key,
    peer: grpcPeer(call),
    authorization: authorizationOf(call.metadata),
  };
  const { result, stream, error } = await dispatcher.invoke(
    info,
    () => codec.decode(method, call.request),
    callSignal(call),
  );
  if (error) {
    callback(encodeStatus(error));
  } else if (stream) {
    const failure = await pump(
      stream,
      call as grpc.ServerWritableStream<Buffer, Uint8Array>,
      (message) => codec.encode(method, message),
      dispatcher.log.with({ requestId, rpc: key }),
    );
    callback(failure ? encodeStatus(failure) : null);
  } else {
    answer(
      dispatcher.log,
      info,
      callback,
      () => codec.encode(method, result!),
    );
  }
}

/**
 * The call's authorization metadata as one value. Several values are joined
 * as fetch joins repeated HTTP headers ("a, b"), which is never `Bearer`
 * and one token: the chain refuses it as malformed (UNAUTHENTICATED), with
 * the message, audit record and count HTTP gives two Authorization headers,
 * rather than trusting one of them. (node:http2 keeps only the first of
 * repeated headers; listener.ts puts the others back for this.)
 */
export function authorizationOf(metadata: grpc.Metadata): string | undefined {
  const values = metadata.get("authorization").map(String);
  return values.length === 0 ? undefined : values.join(", ");
}

/** Answers a unary call; INTERNAL if its answer cannot be encoded. */
function answer(
  log: Logger,
  { requestId, key }: { requestId: string; key: string },
  callback: grpc.sendUnaryData<Uint8Array>,
  encoded: () => Uint8Array,
): void {
  let bytes: Uint8Array;
  try {
    bytes = encoded();
  } catch (thrown) {
    log.error(ENCODE_FAILED, { requestId, rpc: key, cause: String(thrown) });
    callback({ code: Code.INTERNAL, details: "Internal error" });
    return;
  }
  callback(null, bytes);
}

const ENCODE_FAILED = "Failed to encode response";

/**
 * Writes a stream's answers as the call can take them (waiting for "drain"
 * when its buffer is full, so a slow client holds the stream back rather
 * than piling up here); stops it when the client goes away. Answers the
 * error the stream ended with, if any. An answer that cannot be encoded
 * is logged on `log` and ends the stream, answered as INTERNAL.
 */
export async function pump(
  stream: AsyncIterableIterator<Message>,
  call: grpc.ServerWritableStream<Buffer, Uint8Array>,
  encode: (message: Message) => Uint8Array,
  log: Logger,
): Promise<ServiceError | undefined> {
  let gone = false;
  const stop = () => {
    gone = true;
    stream.return?.();
  };
  call.once("cancelled", stop);
  call.once("close", stop);
  try {
    while (!gone) {
      const { done, value } = await stream.next();
      if (done || gone) return undefined;
      let bytes: Uint8Array;
      try {
        bytes = encode(value);
      } catch (thrown) {
        log.error(ENCODE_FAILED, { cause: String(thrown) });
        await stream.return?.();
        return asServiceError(thrown);
      }
      if (!call.write(bytes)) {
        await new Promise<void>((resolve) => {
          const resume = () => {
            call.off("drain", resume);
            call.off("cancelled", resume);
            resolve();
          };
          call.on("drain", resume);
          call.on("cancelled", resume);
        });
      }
    }
    return undefined;
  } catch (thrown) {
    // The dispatcher's stream ended itself with this error.
    return asServiceError(thrown);
  } finally {
    call.off("cancelled", stop);
    call.off("close", stop);
  }
}

/**
 * Aborts when the client cancels the call or its deadline passes; the
 * reason says which, so Kubernetes calls fail with CANCELLED or
 * DEADLINE_EXCEEDED accordingly.
 */
function callSignal(
  call:
    | grpc.ServerUnaryCall<Buffer, Uint8Array>
    | grpc.ServerWritableStream<Buffer, Uint8Array>,
): AbortSignal {
  const controller = new AbortController();
  (call as grpc.ServerUnaryCall<Buffer, Uint8Array>).on("cancelled", () => {
    if (controller.signal.aborted) return;
    const deadline = call.getDeadline();
    const passed = deadline instanceof Date
      ? deadline.getTime() <= Date.now()
      : Number.isFinite(deadline) && deadline <= Date.now();
    controller.abort(
      passed
        ? new ServiceError(Code.DEADLINE_EXCEEDED, "Deadline exceeded")
        : new ServiceError(Code.CANCELLED, "Cancelled by the client"),
    );
  });
  return controller.signal;
}

/** Metadata as HTTP/2 counts a header list: name, value, 32 per entry. */
function sizeOfMetadata(metadata: grpc.Metadata): number {
  let size = 0;
  for (const [name, values] of Object.entries(metadata.toHttp2Headers())) {
    for (const value of [values ?? ""].flat()) {
      size += name.length + String(value).length + 32;
    }
  }
  return size;
}

/**
 * A message of `type` from its bytes, in message form; INVALID_ARGUMENT for
 * bytes that are not one, or that carry fields or enum values `type` does
 * not know.
 */
export function decodeMessage(type: protobuf.Type, bytes: Uint8Array): Message {
  let decoded: protobuf.Message;
  try {
    // Unknown fields kept (protobufjs drops them by default), so that
    // messageFromProto refuses them as HTTP refuses unknown JSON keys.
    const reader = protobuf.Reader.create(bytes);
    (reader as { discardUnknown?: boolean }).discardUnknown = false;
    decoded = type.decode(reader);
  } catch (error) {
    throw new ServiceError(
      Code.INVALID_ARGUMENT,
      `Invalid request: malformed ${type.name} message: ${
        (error as Error).message
      }`,
    );
  }
  const violations: FieldViolation[] = [];
  const message = messageFromProto(
    type,
    decoded as unknown as Record<string, unknown>,
    "",
    violations,
  );
  if (violations.length > 0) {
    throw invalidArgument("Invalid request", violations);
  }
  return message;
}

/**
 * The protobuf bytes of kept answers (domain/kept.ts: a cached cluster, a
 * whole cached list), made once for every call that gets them: a list of
 * 10,000 cached clusters was encoded anew for each call.
 */
const protoForms = new KeptForms("proto");

/** `message` as protobuf bytes of `type`; a kept one's made once. */
export function encode(type: protobuf.Type, message: Message): Uint8Array {
  const form = protoForms.of(message, true, () => ({
    type,
    bytes: encodeAnew(type, message),
  }));
  return form.type === type ? form.bytes : encodeAnew(type, message);
}

function encodeAnew(type: protobuf.Type, message: Message): Uint8Array {
  return type.encode(type.fromObject(messageToProto(type, message))).finish();
}

/**
 * A grpc-js status object for a ServiceError, its details in
 * `grpc-status-details-bin` as a google.rpc.Status (the standard rich error
 * model), so both transports carry the same details.
 */
function statusEncoder(
  root: protobuf.Root,
): (error: ServiceError) => Partial<grpc.StatusObject> {
  const Status = root.lookupType("google.rpc.Status");
  const BadRequest = root.lookupType("google.rpc.BadRequest");
  const RetryInfo = root.lookupType("google.rpc.RetryInfo");
  // protobufjs' built-in google.protobuf.Any keeps the proto field name.
  const any = (detail: ErrorDetail) => {
    const typeUrl = detail["@type"];
    if (typeUrl === "type.googleapis.com/google.rpc.BadRequest") {
      const value = BadRequest.encode(
        BadRequest.fromObject({ fieldViolations: detail.fieldViolations }),
      ).finish();
      return { type_url: typeUrl, value };
    }
    const seconds = parseFloat(detail.retryDelay);
    const value = RetryInfo.encode(RetryInfo.fromObject({
      retryDelay: {
        seconds: Math.floor(seconds),
        nanos: Math.round((seconds % 1) * 1e9),
      },
    })).finish();
    return { type_url: typeUrl, value };
  };
  return (error) => {
    const metadata = new grpc.Metadata();
    if (error.details.length > 0) {
      metadata.set(
        "grpc-status-details-bin",
        Buffer.from(
          Status.encode(Status.fromObject({
            code: error.code,
            message: error.message,
            details: error.details.map(any),
          })).finish(),
        ),
      );
    }
    return { code: error.code, details: error.message, metadata };
  };
}
