/**
 * TokenRequest, `POST /api/v1/namespaces/{ns}/serviceaccounts/{name}/token`:
 * a token for a service account, for the audiences asked (the API server's
 * own when none are) and for spec.expirationSeconds (an hour by default,
 * ten minutes at least), as kube-apiserver's TokenREST issues it
 * (pkg/registry/core/serviceaccount/storage/token.go). The body is JSON, or
 * protobuf as `kubectl create token` sends it; the answer is JSON.
 *
 * A real API server issues a JWT signed with its service-account key,
 * which anyone holding the issuer's public keys can verify, and which it
 * reviews by its signature and claims. The stand-in issues an opaque random
 * string and remembers what it was issued for: only the stand-in itself
 * can review its tokens (token_review.ts), and a client that decodes a
 * service-account token as a JWT cannot decode these.
 *
 * Not modelled: spec.boundObjectRef (tokens bound to a Pod, Secret or Node;
 * refused with 400), --service-account-max-token-expiration, and the
 * extended expiry of kubelet-requested tokens.
 */

import { formatKubernetesTime } from "../domain/timestamps.ts";
import {
  decodeObject,
  isJsonMediaType,
  jsonType,
  readBytes,
} from "./bodies.ts";
import { isRecord, json } from "./json.ts";
import {
  int64Field,
  messageField,
  PROTOBUF_MEDIA_TYPE,
  ProtobufError,
  readFields,
  stringField,
  stringsField,
  unwrapEnvelope,
} from "./protobuf.ts";
import type { State } from "./state.ts";
import {
  badRequest,
  invalid,
  invalidCause,
  notFound,
  unsupportedMediaType,
} from "./status.ts";
import type {
  ActionSubresource,
  KubeObject,
  ResourceType,
  StatusCause,
} from "./types.ts";

/**
 * The API server's own audiences (--api-audiences, which defaults to the
 * --service-account-issuer that kubeadm and kind set): those of a token
 * requested without audiences, and those a TokenReview without audiences
 * asks for.
 */
export const API_AUDIENCES = ["https://kubernetes.default.svc.cluster.local"];

/** What a token was issued for; what a review checks it against. */
export interface IssuedToken {
  namespace: string;
  /** The service account's name and uid. */
  name: string;
  uid: string;
  audiences: string[];
  /** When it expires, in milliseconds since the epoch. */
  expires: number;
  /** The JWT ID a real token would carry (its `jti` claim). */
  id: string;
}

const DEFAULT_EXPIRATION_SECONDS = 60 * 60;
const MIN_EXPIRATION_SECONDS = 10 * 60;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

/** The kind the subresource takes and answers, for decoding and errors. */
const TOKEN_REQUEST: ResourceType = {
  group: "authentication.k8s.io",
  version: "v1",
  kind: "TokenRequest",
  plural: "tokenrequests",
  singular: "tokenrequest",
  namespaced: true,
};

/** A new token: 32 random bytes, base64url, as opaque as a token can be. */
function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-")
    .replaceAll("/", "_").replace(/=+$/, "");
}

/** A protobuf TokenRequest (k8s.io/api/authentication/v1) as JSON. */
function tokenRequestFromProtobuf(bytes: Uint8Array): unknown {
  try {
    const { apiVersion, kind, raw } = unwrapEnvelope(bytes);
    const message = readFields(raw);
    const metadata = messageField(message, 1) ?? new Map();
    const spec = messageField(message, 2) ?? new Map();
    const expirationSeconds = int64Field(spec, 4);
    return {
      apiVersion,
      kind,
      metadata: {
        name: stringField(metadata, 1),
        namespace: stringField(metadata, 3),
      },
      spec: {
        audiences: stringsField(spec, 1),
        ...(expirationSeconds === undefined ? {} : { expirationSeconds }),
        ...(spec.has(3) ? { boundObjectRef: {} } : {}),
      },
    };
  } catch (error) {
    if (!(error instanceof ProtobufError)) throw error;
    throw badRequest(
      `the object provided is unrecognized (must be of type TokenRequest): ${error.message}`,
    );
  }
}

async function readTokenRequest(
  state: State,
  request: Request,
): Promise<KubeObject> {
  const contentType = request.headers.get("content-type");
  const media = (contentType ?? "").split(";")[0].trim().toLowerCase();
  const bytes = await readBytes(state, request);
  let value: unknown;
  if (media === PROTOBUF_MEDIA_TYPE) {
    value = tokenRequestFromProtobuf(bytes);
  } else if (isJsonMediaType(contentType)) {
    try {
      value = JSON.parse(new TextDecoder().decode(bytes));
    } catch (error) {
      throw badRequest(
        `the object provided is unrecognized (must be of type TokenRequest): couldn't get version/kind; json parse error: ${
          (error as Error).message
        }`,
      );
    }
  } else {
    throw unsupportedMediaType(["application/json", PROTOBUF_MEDIA_TYPE]);
  }
  return decodeObject(value, TOKEN_REQUEST);
}

/** spec as Go's decoder would read it into a TokenRequestSpec. */
function readSpec(
  object: KubeObject,
): { audiences: string[]; expirationSeconds?: number } {
  const spec = object.spec ?? {};
  const refuse = (value: unknown, field: string, type: string) =>
    badRequest(
      `json: cannot unmarshal ${
        jsonType(value)
      } into Go struct field TokenRequestSpec.spec.${field} of type ${type}`,
    );
  if (!isRecord(spec)) {
    throw badRequest(
      `json: cannot unmarshal ${
        jsonType(spec)
      } into Go struct field TokenRequest.spec of type v1.TokenRequestSpec`,
    );
  }
  const audiences = spec.audiences ?? [];
  if (!Array.isArray(audiences)) {
    throw refuse(audiences, "audiences", "[]string");
  }
  for (const audience of audiences) {
    if (typeof audience !== "string") {
      throw refuse(audience, "audiences", "string");
    }
  }
  const seconds = spec.expirationSeconds ?? undefined;
  if (
    seconds !== undefined &&
    (typeof seconds !== "number" || !Number.isInteger(seconds))
  ) {
    throw refuse(seconds, "expirationSeconds", "int64");
  }
  if (spec.boundObjectRef !== undefined && spec.boundObjectRef !== null) {
    throw badRequest(
      "the Kubernetes API stand-in does not support spec.boundObjectRef",
    );
  }
  return { audiences, expirationSeconds: seconds };
}

async function createToken(
  state: State,
  request: Request,
  target: { resource: ResourceType; namespace: string; name: string },
): Promise<Response> {
  const { namespace, name } = target;
  const body = await readTokenRequest(state, request);
  const spec = readSpec(body);
  const meta = body.metadata;
  if (meta.name && meta.name !== name) {
    throw invalid(TOKEN_REQUEST, name, [
      invalidCause(
        "metadata.name",
        meta.name,
        "must match the service account name if specified",
      ),
    ]);
  }
  if (meta.namespace && meta.namespace !== namespace) {
    throw invalid(TOKEN_REQUEST, name, [
      invalidCause(
        "metadata.namespace",
        meta.namespace,
        "must match the service account namespace if specified",
      ),
    ]);
  }
  const account = state.store.get(target.resource, namespace, name);
  if (!account) throw notFound(target.resource, name);

  const audiences = spec.audiences.length > 0
    ? spec.audiences
    : [...API_AUDIENCES];
  const seconds = spec.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
  const causes: StatusCause[] = [];
  if (seconds < MIN_EXPIRATION_SECONDS) {
    causes.push(invalidCause(
      "spec.expirationSeconds",
      seconds,
      "may not specify a duration less than 10 minutes",
    ));
  }
  if (seconds > MAX_EXPIRATION_SECONDS) {
    causes.push(invalidCause(
      "spec.expirationSeconds",
      seconds,
      "may not specify a duration larger than 2^32 seconds",
    ));
  }
  // The real server names no object in this error.
  if (causes.length > 0) throw invalid(TOKEN_REQUEST, "", causes);

  const now = state.now();
  const expires = now + seconds * 1000;
  const token = randomToken();
  for (const [known, issued] of state.tokens) {
    if (issued.expires < now) state.tokens.delete(known);
  }
  state.tokens.set(token, {
    namespace,
    name,
    uid: account.metadata.uid ?? "",
    audiences,
    expires,
    id: crypto.randomUUID(),
  });
  state.logger?.info("Issued service account token", {
    namespace,
    name,
    audiences,
    expirationSeconds: seconds,
  });
  return json({
    kind: "TokenRequest",
    apiVersion: "authentication.k8s.io/v1",
    metadata: {
      ...meta,
      name,
      namespace,
      creationTimestamp: formatKubernetesTime(new Date(now)),
    },
    // boundObjectRef has no omitempty: the real answer shows it null.
    spec: { audiences, expirationSeconds: seconds, boundObjectRef: null },
    status: {
      token,
      expirationTimestamp: formatKubernetesTime(new Date(expires)),
    },
  }, 201);
}

/** The `token` subresource of serviceaccounts. */
export const TOKEN_REQUEST_ACTION: ActionSubresource = {
  group: TOKEN_REQUEST.group,
  version: TOKEN_REQUEST.version,
  kind: TOKEN_REQUEST.kind,
  create: createToken,
};
