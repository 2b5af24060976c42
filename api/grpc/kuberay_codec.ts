/**
 * How the second gRPC port (--kuberay-grpc-port) reads and writes its
 * calls: KubeRay's current messages (proto/kuberay/) carried to and from
 * the API's own (domain/kuberay_grpc_json.ts), so that each call reaches
 * the handler of the API's method of the same name through the same
 * dispatcher as the main port's, as the API's request message HTTP would
 * have made of the same JSON.
 */
import type protobuf from "protobufjs";
import { messageFromJson } from "../../domain/codec.ts";
import {
  Code,
  type FieldViolation,
  invalidArgument,
  ServiceError,
} from "../../domain/errors.ts";
import { messageToGatewayJson } from "../../domain/kuberay_json.ts";
import {
  apiToKuberayJson,
  kuberayToApiJson,
} from "../../domain/kuberay_grpc_json.ts";
import { type Message, UNKNOWN_FIELD } from "../../domain/message_form.ts";
import { type ApiSchema, methodKey } from "../schema.ts";
import { decodeMessage, encode, type GrpcCodec } from "./server.ts";

/**
 * The codec of KubeRay's `kuberay` methods over the API of `api`: each
 * method of `kuberay` must have a method of the same key in `api`.
 */
export function kuberayCodec(kuberay: ApiSchema, api: ApiSchema): GrpcCodec {
  const apiMethods = new Map<string, protobuf.Method>();
  for (const service of api.services) {
    for (const method of service.methodsArray) {
      apiMethods.set(methodKey(method), method);
    }
  }
  const apiMethodOf = (method: protobuf.Method) => {
    const key = methodKey(method);
    const found = apiMethods.get(key);
    if (!found) throw new Error(`${key}: no such method in the API`);
    found.resolve();
    return found;
  };
  for (const service of kuberay.services) {
    for (const method of service.methodsArray) apiMethodOf(method);
  }
  return {
    decode: (method, bytes) => {
      const message = decodeMessage(method.resolvedRequestType!, bytes);
      return toApiMessage(
        method.resolvedRequestType!,
        apiMethodOf(method).resolvedRequestType!,
        message,
      );
    },
    encode: (method, message) =>
      encode(
        method.resolvedResponseType!,
        toKuberayMessage(
          apiMethodOf(method).resolvedResponseType!,
          method.resolvedResponseType!,
          message,
        ),
      ),
  };
}

/**
 * KubeRay's request `message` of `kuberay` as the API's request of `api`;
 * INVALID_ARGUMENT naming every field the API has no home for.
 */
function toApiMessage(
  kuberay: protobuf.Type,
  api: protobuf.Type,
  message: Message,
): Message {
  const violations: FieldViolation[] = [];
  const json = kuberayToApiJson(
    kuberay,
    api,
    messageToGatewayJson(kuberay, message),
    "",
    violations,
  );
  const request = messageFromJson(api, json, "", violations);
  if (violations.length > 0) {
    throw invalidArgument("Invalid request", violations.map(notKept));
  }
  return request;
}

/**
 * A field KubeRay's message has and the API has not, said so: KubeRay's
 * field is known, Corral keeps nothing of it, and refuses it rather than
 * drop it.
 */
function notKept(violation: FieldViolation): FieldViolation {
  return violation.description === UNKNOWN_FIELD
    ? { field: violation.field, description: NOT_KEPT }
    : violation;
}

/** Still "unknown field" first: isUnknownField() knows it so. */
export const NOT_KEPT = `${UNKNOWN_FIELD}: KubeRay's, not kept by Corral`;

/** The API's answer `message` of `api` as KubeRay's message of `kuberay`. */
function toKuberayMessage(
  api: protobuf.Type,
  kuberay: protobuf.Type,
  message: Message,
): Message {
  const violations: FieldViolation[] = [];
  const json = apiToKuberayJson(
    api,
    kuberay,
    messageToGatewayJson(api, message),
  );
  const answer = messageFromJson(kuberay, json, "", violations);
  if (violations.length > 0) {
    // The two definitions disagree on a field both have: a defect here.
    throw new ServiceError(
      Code.INTERNAL,
      `Answer not expressible in KubeRay's ${kuberay.name}: ${
        violations.map((v) => `${v.field}: ${v.description}`).join("; ")
      }`,
    );
  }
  return answer;
}
