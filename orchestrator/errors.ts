/**
 * Kubernetes failures translated, once, into ServiceErrors: the API
 * server's Status (404 NotFound, 409 AlreadyExists, 422 Invalid with its
 * causes' fields, 401/403, 429/5xx) and network failures. client-node's
 * ApiException, whose message dumps response headers, is kept only as the
 * cause, never on the wire.
 */
import { ApiException } from "@kubernetes/client-node";
import { Code, ServiceError } from "../domain/errors.ts";
import type { ErrorDetail, FieldViolation } from "../domain/errors.ts";

/** A Kubernetes call, as error messages describe it. */
export interface KubernetesCall {
  /** The failed action as the caller sees it: `Cannot create cluster "a/b"`. */
  action: string;
  verb: "create" | "get" | "list" | "delete" | "update";
  /** What the object is called: "cluster", "compute template". */
  noun: string;
}

/** A client-side time-out of one call. */
export class KubernetesTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = "KubernetesTimeoutError";
  }
}

interface StatusLike {
  message?: string;
  reason?: string;
  details?: {
    name?: string;
    kind?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
  };
}

function parseStatus(body: unknown): StatusLike {
  let value = body;
  if (typeof body === "string") {
    try {
      value = JSON.parse(body);
    } catch {
      return {};
    }
  }
  return typeof value === "object" && value !== null ? value as StatusLike : {};
}

const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EPIPE: "connection reset",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host not found",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  UND_ERR_SOCKET: "connection closed",
  UND_ERR_CLOSED: "connection closed",
  CERT_HAS_EXPIRED: "TLS certificate expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "TLS certificate not trusted",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "TLS certificate not trusted",
  SELF_SIGNED_CERT_IN_CHAIN: "TLS certificate not trusted",
};

/** The network failure behind a fetch error, in a few words, if it is one. */
function networkFailure(error: unknown): string | undefined {
  for (let e = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && NETWORK_ERRORS[code]) {
      return NETWORK_ERRORS[code];
    }
    e = (e as { cause?: unknown }).cause;
  }
  if (error instanceof TypeError && /fetch failed/i.test(error.message)) {
    return "network error";
  }
  return undefined;
}

/** The longest Kubernetes text a caller is shown. */
const MAX_KUBERNETES_TEXT = 512;

/**
 * Kubernetes' text as a caller may see it: addresses (URLs, IP addresses
 * with or without a port, host names under .svc, .cluster.local or
 * .internal) and credentials (bearer tokens, `password=`, `token=`)
 * replaced, cut to MAX_KUBERNETES_TEXT. An admission webhook's denial
 * often names its registry or its own Service; that helps an attacker
 * more than the caller. The full text stays in the error's cause, which
 * the dispatcher logs.
 */
export function callerText(text: string): string {
  const cleaned = text
    .replace(/\bhttps?:\/\/[^\s"'<>]+/gi, "<address>")
    .replace(/\bbearer\s+[A-Za-z0-9._~+\/=-]+/gi, "Bearer <redacted>")
    .replace(
      /\b(password|passwd|token|secret|apikey|api-key)(["']?\s*[=:]\s*)[^\s,;"')]+/gi,
      "$1$2<redacted>",
    )
    .replace(/\[[0-9a-f:]*:[0-9a-f:]+\](:\d+)?/gi, "<address>")
    .replace(/\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b/g, "<address>")
    .replace(
      /\b[a-z0-9-]+(\.[a-z0-9-]+)*\.(svc|cluster\.local|internal)(\.[a-z0-9-]+)*(:\d+)?\b/gi,
      "<address>",
    );
  return cleaned.length > MAX_KUBERNETES_TEXT
    ? `${cleaned.slice(0, MAX_KUBERNETES_TEXT - 3)}...`
    : cleaned;
}

function retryDelay(headers: Record<string, string> | undefined): string {
  const seconds = Number(headers?.["retry-after"]);
  return Number.isFinite(seconds) && seconds > 0 ? `${seconds}s` : "1s";
}

/**
 * A Kubernetes failure as a ServiceError. Pure: the table in the tests is
 * its specification.
 */
export function translateKubernetesError(
  error: unknown,
  call: KubernetesCall,
): ServiceError {
  if (error instanceof ServiceError) return error;
  const { action, verb, noun } = call;
  const make = (code: Code, detail: string, details?: ErrorDetail[]) =>
    new ServiceError(code, `${action}: ${detail}`, { cause: error, details });

  if (error instanceof KubernetesTimeoutError) {
    return make(
      Code.DEADLINE_EXCEEDED,
      `Kubernetes API did not answer in time`,
    );
  }
  if (!(error instanceof ApiException)) {
    const network = networkFailure(error);
    if (network) {
      return make(Code.UNAVAILABLE, `Kubernetes API unavailable: ${network}`);
    }
    return make(Code.INTERNAL, "internal error");
  }

  const status = parseStatus(error.body);
  const statusMessage = callerText(status.message ?? `HTTP ${error.code}`);
  switch (error.code) {
    case 400:
      return make(Code.INVALID_ARGUMENT, statusMessage);
    case 401:
      return make(
        Code.UNAUTHENTICATED,
        "Kubernetes API rejected the service's credentials",
      );
    case 403:
      // An admission webhook's denial is a 403 whose message says why
      // (`admission webhook "x" denied the request: ...`): the caller can
      // act on it. Other 403s are RBAC's, about Corral's own account.
      if (/admission webhook/i.test(status.message ?? "")) {
        return make(Code.PERMISSION_DENIED, statusMessage);
      }
      return make(Code.PERMISSION_DENIED, "Kubernetes API denied access");
    case 404: {
      if (verb === "create" && status.details?.kind === "namespaces") {
        return make(
          Code.NOT_FOUND,
          `namespace "${status.details.name ?? ""}" not found`,
        );
      }
      if (verb === "get" || verb === "delete" || verb === "update") {
        return make(Code.NOT_FOUND, "not found");
      }
      return make(Code.NOT_FOUND, statusMessage);
    }
    case 409:
      return verb === "create"
        ? make(
          Code.ALREADY_EXISTS,
          `a ${noun} with that name already exists`,
        )
        : make(
          Code.ABORTED,
          `the ${noun} was changed concurrently; try again`,
        );
    case 422: {
      const violations: FieldViolation[] = (status.details?.causes ?? []).map(
        (cause) => ({
          // The API server writes "<nil>" where a cause has no field.
          field: cause.field === "<nil>" ? "" : callerText(cause.field ?? ""),
          description: callerText(cause.message ?? cause.reason ?? "invalid"),
        }),
      );
      if (violations.length === 0) {
        return make(Code.INVALID_ARGUMENT, statusMessage);
      }
      return make(
        Code.INVALID_ARGUMENT,
        violations.map((v) =>
          v.field ? `${v.field}: ${v.description}` : v.description
        ).join("; "),
        [{
          "@type": "type.googleapis.com/google.rpc.BadRequest",
          fieldViolations: violations,
        }],
      );
    }
    case 429:
      return make(
        Code.UNAVAILABLE,
        "Kubernetes API unavailable: too many requests",
        [{
          "@type": "type.googleapis.com/google.rpc.RetryInfo",
          retryDelay: retryDelay(error.headers),
        }],
      );
    case 504:
      return make(Code.DEADLINE_EXCEEDED, "Kubernetes API timed out");
  }
  if (error.code >= 500) {
    if (status.reason === "Timeout") {
      return make(Code.DEADLINE_EXCEEDED, "Kubernetes API timed out");
    }
    return make(
      Code.UNAVAILABLE,
      `Kubernetes API unavailable: HTTP ${error.code}`,
    );
  }
  return make(
    Code.INTERNAL,
    `unexpected answer from the Kubernetes API: HTTP ${error.code}`,
  );
}
