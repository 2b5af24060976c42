/**
 * What can go wrong in the command line, each with the exit code it ends
 * with and the lines it prints: 1 for an API error, a failed cluster or a
 * failed job, 2 for a usage error or a timeout, 3 when the server cannot be
 * reached, 4 for a job that was stopped. Scripts branch on these codes, so
 * they never change meaning.
 */
import { Code, type FieldViolation } from "../domain/errors.ts";

export const EXIT_OK = 0;
export const EXIT_API_ERROR = 1;
export const EXIT_USAGE = 2;
export const EXIT_UNREACHABLE = 3;
/** A job waited for was stopped (`jobs submit --wait`, `jobs wait`). */
export const EXIT_JOB_STOPPED = 4;

/** An error the command line explains itself, then exits with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    /** More lines after `error: <message>`, already indented. */
    readonly details: string[] = [],
  ) {
    super(message);
    this.name = "CliError";
  }

  /** What the user reads on standard error. */
  lines(): string[] {
    return [`error: ${this.message}`, ...this.details];
  }
}

/** A command line that cannot be run as written: exit 2. */
export class UsageError extends CliError {
  constructor(message: string, details: string[] = []) {
    super(message, EXIT_USAGE, details);
    this.name = "UsageError";
  }
}

/** The API's error body: `{code, message, details}`. */
export interface ApiErrorBody {
  code?: number;
  message?: string;
  details?: { fieldViolations?: FieldViolation[] }[];
}

/** Corral answered with an error: exit 1, every field violation listed. */
export class ApiError extends CliError {
  /** The gRPC code (domain/errors.ts), which scripts and retries act on. */
  readonly code: number;

  /**
   * `refusal` replaces the message of a 401 / UNAUTHENTICATED answer, which
   * is otherwise "not signed in" (the client sent no credentials).
   */
  constructor(status: number, body: ApiErrorBody, refusal?: string) {
    const violations = (body.details ?? []).flatMap((detail) =>
      detail.fieldViolations ?? []
    );
    const code = body.code ??
      (status === 401 ? Code.UNAUTHENTICATED : Code.UNKNOWN);
    super(
      code === Code.UNAUTHENTICATED
        ? refusal ??
          "not signed in: set a token (--token, CORRAL_TOKEN or corral config set-context)"
        : withoutViolations(body.message || `HTTP ${status}`, violations),
      EXIT_API_ERROR,
      [
        ...violations.map((v) => `  ${v.field}: ${v.description}`),
        ...ownerHint(violations),
      ],
    );
    this.name = "ApiError";
    this.code = code;
  }
}

/**
 * How to name an owner Corral found missing (`cluster.user: is
 * required`, a job's or a service's): it fills one in only for a caller
 * it knows, and without a token the command line sends $USER, which was
 * unset.
 */
function ownerHint(violations: FieldViolation[]): string[] {
  const missing = violations.some((v) =>
    /^(cluster|job|service)\.user$/.test(v.field) &&
    v.description === "is required"
  );
  return missing
    ? [
      "  name the owner with --user NAME: Corral fills it in only for a caller with a token, and without one the command line sends $USER, which is not set",
    ]
    : [];
}

/**
 * Corral's message repeats every violation after a colon
 * (`Cannot create cluster "a/b": cluster.user: is required; ...`); they are
 * printed one a line below it, so the message keeps only its head.
 */
function withoutViolations(
  message: string,
  violations: FieldViolation[],
): string {
  if (violations.length === 0) return message;
  const tail = violations.map((v) => `${v.field}: ${v.description}`).join(
    "; ",
  );
  return message.endsWith(`: ${tail}`)
    ? message.slice(0, -(tail.length + 2))
    : message;
}

/** The server did not answer at all: exit 3, naming the URL tried. */
export class UnreachableError extends CliError {
  constructor(url: string, reason: string, details: string[] = []) {
    super(
      `cannot reach Corral at ${url}: ${reason}`,
      EXIT_UNREACHABLE,
      details,
    );
    this.name = "UnreachableError";
  }
}
