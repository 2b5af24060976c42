/**
 * The one error type of the service: a gRPC status code, a message for the
 * caller, structured details, and a cause that is logged but never sent.
 */

/** gRPC status codes (https://grpc.github.io/grpc/core/md_doc_statuscodes.html). */
export const Code = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;
export type Code = typeof Code[keyof typeof Code];

/** One violated rule of a request, named by its JSON field path. */
export interface FieldViolation {
  field: string;
  description: string;
}

/**
 * An error detail, in the JSON form of google.protobuf.Any holding a
 * google.rpc.BadRequest or google.rpc.RetryInfo.
 */
export type ErrorDetail =
  | {
    "@type": "type.googleapis.com/google.rpc.BadRequest";
    fieldViolations: FieldViolation[];
  }
  | {
    "@type": "type.googleapis.com/google.rpc.RetryInfo";
    retryDelay: string;
  };

export class ServiceError extends Error {
  readonly code: Code;
  readonly details: ErrorDetail[];

  constructor(
    code: Code,
    message: string,
    options: { details?: ErrorDetail[]; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "ServiceError";
    this.code = code;
    this.details = options.details ?? [];
  }

  /** The field violations carried in the details, if any. */
  get fieldViolations(): FieldViolation[] {
    return this.details.flatMap((d) =>
      d["@type"] === "type.googleapis.com/google.rpc.BadRequest"
        ? d.fieldViolations
        : []
    );
  }
}

/** An INVALID_ARGUMENT error listing every violation at once. */
export function invalidArgument(
  action: string,
  violations: FieldViolation[],
): ServiceError {
  const summary = violations.map((v) => `${v.field}: ${v.description}`).join(
    "; ",
  );
  return new ServiceError(Code.INVALID_ARGUMENT, `${action}: ${summary}`, {
    details: [{
      "@type": "type.googleapis.com/google.rpc.BadRequest",
      fieldViolations: violations,
    }],
  });
}
