/**
 * The error answers of the OpenAPI document: which HTTP statuses each
 * operation can answer (from its http rule), one shared response per status
 * with the gateway's own examples, and the google.rpc.Status schema of the
 * error body every one of them carries.
 */
import { Code } from "../domain/errors.ts";
import { httpStatus } from "./errors.ts";
import type { Route } from "./http/rules.ts";
import { dropUndefined, type Schema } from "./openapi_schemas.ts";

/** The error body every operation may answer, as on the wire. */
export const ERROR_SCHEMA = "google.rpc.Status";
export const ERROR_RESPONSE = "Error";
export const ERROR_DESCRIPTION =
  "Any other error: the gRPC status code, a message and, for an invalid " +
  "request, every field violation. The HTTP status follows from the code " +
  "(see the google.rpc.Status schema)";

/** The HTTP status of each gRPC code, from the gateway's own mapping. */
export const STATUS_TABLE = [
  "| code | name | HTTP status |",
  "| --- | --- | --- |",
  ...Object.entries(Code).filter(([, code]) => code !== Code.OK).map((
    [name, code],
  ) => {
    const note = code === Code.RESOURCE_EXHAUSTED
      ? " (413 for a request body over the size limit)"
      : code === Code.UNIMPLEMENTED
      ? " (405 for a known path with another method)"
      : "";
    return `| ${code} | ${name} | ${httpStatus(code)}${note} |`;
  }),
].join("\n");

/**
 * Examples of the error body, as the gateway answers them (the tests send
 * the requests behind the ones they can provoke and compare).
 */
export const ERROR_EXAMPLES = {
  invalidArgument: {
    summary: "Invalid request: code 3",
    value: {
      code: Code.INVALID_ARGUMENT,
      message:
        'Cannot create cluster "team-a/blue": cluster.user: is required; ' +
        "cluster.clusterSpec.workerGroupSpec[0].groupName: is required",
      details: [{
        "@type": "type.googleapis.com/google.rpc.BadRequest",
        fieldViolations: [
          { field: "cluster.user", description: "is required" },
          {
            field: "cluster.clusterSpec.workerGroupSpec[0].groupName",
            description: "is required",
          },
        ],
      }],
    },
  },
  missingTemplate: {
    summary: "A compute template the cluster names does not exist: code 9",
    value: {
      code: Code.FAILED_PRECONDITION,
      message:
        'Cannot create cluster "team-a/blue": compute template "small" not found in namespace "team-a"',
    },
  },
  noCredentials: {
    summary: "No credentials: code 16",
    value: {
      code: Code.UNAUTHENTICATED,
      message: "Unauthorized: the request has no bearer token",
    },
  },
  invalidToken: {
    summary: "A token no authenticator accepts: code 16",
    value: {
      code: Code.UNAUTHENTICATED,
      message: "Unauthorized: the token is not valid",
    },
  },
  policyDenied: {
    summary: "The authorization policy grants no such thing: code 7",
    value: {
      code: Code.PERMISSION_DENIED,
      message:
        'Cannot get cluster "team-b/blue": user "alice@example.com" may not get clusters in namespace "team-b"',
    },
  },
  workloadDenied: {
    summary:
      "Something the cluster's pods would carry (a host path, an image, a service account...) that the granting rule does not allow: code 7",
    value: {
      code: Code.PERMISSION_DENIED,
      message:
        'Cannot create cluster "team-a/blue": cluster.clusterSpec.headGroupSpec.volumes[0].volumeType: user "alice@example.com" may not mount HOST_PATH volumes (RayCluster spec.headGroupSpec.template.spec.volumes[0].hostPath)',
    },
  },
  unauthenticated: {
    summary: "Kubernetes refused Corral's credentials: code 16",
    value: {
      code: Code.UNAUTHENTICATED,
      message:
        'Cannot get cluster "team-a/blue": Kubernetes API rejected the service\'s credentials',
    },
  },
  namespaceNotServed: {
    summary: "A namespace this Corral does not serve: code 7",
    value: {
      code: Code.PERMISSION_DENIED,
      message:
        'Cannot get cluster "team-b/blue": namespace "team-b" is not served by this Corral (it serves "team-a")',
    },
  },
  kubernetesDenied: {
    summary: "Kubernetes refused Corral's service account: code 7",
    value: {
      code: Code.PERMISSION_DENIED,
      message: 'Cannot get cluster "team-a/blue": Kubernetes API denied access',
    },
  },
  notFound: {
    summary: "Not found: code 5",
    value: {
      code: Code.NOT_FOUND,
      message: 'Cannot get cluster "team-a/blue": not found',
    },
  },
  alreadyExists: {
    summary: "Already exists: code 6",
    value: {
      code: Code.ALREADY_EXISTS,
      message:
        'Cannot create compute template "team-a/small": a compute template with that name already exists',
    },
  },
  aborted: {
    summary: "Changed since the etag: code 10",
    value: {
      code: Code.ABORTED,
      message:
        'Cannot update cluster "team-a/blue": etag "4711" is not the cluster\'s current etag: get the cluster and try again',
    },
  },
  unsupportedMediaType: {
    summary: "Request body not sent as application/json: code 3",
    value: {
      code: Code.INVALID_ARGUMENT,
      message:
        'Cannot read request body: its Content-Type "text/plain" is not application/json; send it as application/json',
    },
  },
  bodyTooLarge: {
    summary: "Request body over the limit: code 8",
    value: {
      code: Code.RESOURCE_EXHAUSTED,
      message: "Request body too large: the limit is 3145728 bytes",
    },
  },
  rateLimited: {
    summary: "The caller is over its rate: code 8, with Retry-After",
    value: {
      code: Code.RESOURCE_EXHAUSTED,
      message:
        "Cannot call ListCluster: over the rate limit of 50 requests per second (bursts of 100); try again in 1s",
      details: [{
        "@type": "type.googleapis.com/google.rpc.RetryInfo",
        retryDelay: "1s",
      }],
    },
  },
  internal: {
    summary: "A fault of Corral: code 13",
    value: { code: Code.INTERNAL, message: "Internal error" },
  },
  unavailable: {
    summary: "Kubernetes unreachable: code 14",
    value: {
      code: Code.UNAVAILABLE,
      message:
        'Cannot get cluster "team-a/blue": Kubernetes API unavailable: connection refused',
    },
  },
  deadlineExceeded: {
    summary: "Kubernetes did not answer in time: code 4",
    value: {
      code: Code.DEADLINE_EXCEEDED,
      message:
        'Cannot get cluster "team-a/blue": Kubernetes API did not answer in time',
    },
  },
};
export type ErrorExampleName = keyof typeof ERROR_EXAMPLES;

/** One error answer an operation can give, a response in components. */
export interface ErrorAnswer {
  status: number;
  /** Its name in components.responses. */
  name: string;
  description: string;
  examples: ErrorExampleName[];
  headers?: Record<string, Schema>;
}

/**
 * The error answers, by HTTP status. Which of them an operation documents
 * follows from its http rule (errorStatusesOf); the statuses are the
 * gateway's (httpStatus, and the gateway's own 413 for a body too large).
 */
export const ERROR_ANSWERS: ErrorAnswer[] = [
  {
    status: httpStatus(Code.INVALID_ARGUMENT),
    name: "InvalidArgument",
    description:
      "The request is invalid (code 3 INVALID_ARGUMENT: every field " +
      "violation is listed in `details`, with its JSON field path), or " +
      "something it refers to does not exist (code 9 FAILED_PRECONDITION, " +
      "e.g. a compute template a cluster names)",
    examples: ["invalidArgument", "missingTemplate"],
  },
  {
    status: httpStatus(Code.UNAUTHENTICATED),
    name: "Unauthenticated",
    description: "Code 16 UNAUTHENTICATED: the request has no credentials, " +
      "or none an authenticator accepts (the `WWW-Authenticate` header names " +
      "the Bearer scheme); or Kubernetes refused Corral's own credentials, a " +
      "fault of the installation",
    examples: ["noCredentials", "invalidToken", "unauthenticated"],
    headers: {
      "WWW-Authenticate": {
        description: 'The scheme to authenticate with: `Bearer realm="corral"`',
        schema: { type: "string" },
      },
    },
  },
  {
    status: httpStatus(Code.PERMISSION_DENIED),
    name: "PermissionDenied",
    description:
      "Code 7 PERMISSION_DENIED: the authorization policy grants the caller " +
      "no such operation in that namespace, or the cluster's user, or " +
      "something its pods would carry (a host path, an image, a service " +
      "account, a toleration...) is not allowed (the message names the " +
      "field); only the owner may change the cluster; the namespace is " +
      "not one this Corral serves " +
      "(`--namespaces`); or Kubernetes refused Corral's service account " +
      "(its RBAC grants too little)",
    examples: [
      "policyDenied",
      "workloadDenied",
      "namespaceNotServed",
      "kubernetesDenied",
    ],
  },
  {
    status: httpStatus(Code.NOT_FOUND),
    name: "NotFound",
    description:
      "Code 5 NOT_FOUND: there is no such resource, or (on create) no such " +
      "namespace",
    examples: ["notFound"],
  },
  {
    status: httpStatus(Code.ALREADY_EXISTS),
    name: "AlreadyExists",
    description:
      "Code 6 ALREADY_EXISTS: a resource of that name exists in the namespace " +
      "(on create); code 10 ABORTED: the resource changed since the etag the " +
      "update carries, or kept changing while it was retried (nothing was " +
      "changed: get it and try again); or the resource_version a watch " +
      "resumes from is too old (watch again without one)",
    examples: ["alreadyExists", "aborted"],
  },
  {
    status: 413,
    name: "BodyTooLarge",
    description:
      "Code 8 RESOURCE_EXHAUSTED: the request body is larger than the " +
      "limit (`--max-body-bytes`, 3 MiB by default)",
    examples: ["bodyTooLarge"],
  },
  {
    status: 415,
    name: "UnsupportedMediaType",
    description: "Code 3 INVALID_ARGUMENT: the request body is not sent as " +
      "`application/json` (a charset, if given, `utf-8`); refused before " +
      "the caller is authenticated",
    examples: ["unsupportedMediaType"],
  },
  {
    status: httpStatus(Code.RESOURCE_EXHAUSTED),
    name: "TooManyRequests",
    description:
      "Code 8 RESOURCE_EXHAUSTED: the caller is over its request rate " +
      "(`--rate-limit`, or its group's in the policy file) or has " +
      "`--max-watches-per-user` watches open; or its address failed to " +
      "authenticate too often",
    examples: ["rateLimited"],
    headers: {
      "Retry-After": {
        description:
          "Seconds to wait before trying again; absent for the watch cap, " +
          "which lifts when one of the caller's watches ends",
        schema: { type: "integer", minimum: 1 },
      },
    },
  },
  {
    status: httpStatus(Code.INTERNAL),
    name: "Internal",
    description:
      "Code 13 INTERNAL: a fault of Corral, or an answer from Kubernetes it " +
      "does not understand",
    examples: ["internal"],
  },
  {
    status: httpStatus(Code.UNAVAILABLE),
    name: "Unavailable",
    description: "Code 14 UNAVAILABLE: Kubernetes is unreachable, failing or " +
      "overloaded. Reads were tried three times; try again later",
    examples: ["unavailable"],
    headers: {
      "Retry-After": {
        description:
          "Seconds to wait before trying again, when Kubernetes said so",
        schema: { type: "integer", minimum: 1 },
      },
    },
  },
  {
    status: httpStatus(Code.DEADLINE_EXCEEDED),
    name: "DeadlineExceeded",
    description: "Code 4 DEADLINE_EXCEEDED: Kubernetes did not answer within " +
      "`--kube-timeout`. A create or delete may still have happened",
    examples: ["deadlineExceeded"],
  },
];

/**
 * The statuses of the error answers an operation can give, from what its
 * http rule says it is. Every operation decodes and validates its request
 * (400; unknown query parameters are refused everywhere) and calls
 * Kubernetes with Corral's own credentials (401, 403, 500, 503, 504). With a
 * namespace in the path it may name one that is not served (403). With a
 * body it may be sent too much (413), or a body of another type than JSON
 * (415). A POST creates: the name may be taken
 * (409) or the namespace missing (404). An operation on one named resource
 * (the path ends in a variable) may not find it (404); a PUT or PATCH would
 * also meet a concurrent change (409). A list has neither 404 nor 409. A
 * stream (a watch) may be asked to resume from a point too old (409). A
 * job submission's cluster, named in the path, may not be found (404), nor
 * may the resource a path names before its last part (a service's
 * configs, a job's log).
 */
export function errorStatusesOf(route: Route): number[] {
  // 429: every call counts against its caller's rate (rate_limit.ts).
  const statuses = new Set([400, 401, 403, 429, 500, 503, 504]);
  const last = route.segments[route.segments.length - 1];
  if (route.body) {
    statuses.add(413);
    statuses.add(415);
  }
  if (route.verb === "POST") {
    statuses.add(409);
    statuses.add(404);
  }
  if (last && "variable" in last) statuses.add(404);
  // Job submission acts on a cluster named in the path, even to list; a
  // path on a named resource's part (a service's configs, a job's log) on
  // that resource: it may not exist.
  if (
    route.segments.some((s) =>
      "variable" in s && (s.variable === "clustername" || s.variable === "name")
    )
  ) {
    statuses.add(404);
  }
  if (route.verb === "PUT" || route.verb === "PATCH") statuses.add(409);
  if (route.streaming) statuses.add(409);
  return [...statuses].sort((a, b) => a - b);
}

export function errorAnswer(status: number): ErrorAnswer {
  const answer = ERROR_ANSWERS.find((a) => a.status === status);
  if (!answer) throw new Error(`No error answer for HTTP status ${status}`);
  return answer;
}

/** components.responses: one per error answer, and the default. */
export function errorResponses(): Record<string, Schema> {
  const content = (examples: ErrorExampleName[]) => ({
    "application/json": {
      schema: { $ref: `#/components/schemas/${ERROR_SCHEMA}` },
      examples: Object.fromEntries(
        examples.map((name) => [name, {
          $ref: `#/components/examples/${name}`,
        }]),
      ),
    },
  });
  return {
    ...Object.fromEntries(ERROR_ANSWERS.map((answer) => [
      answer.name,
      dropUndefined({
        description: answer.description,
        headers: answer.headers,
        content: content(answer.examples),
      }),
    ])),
    [ERROR_RESPONSE]: {
      description: ERROR_DESCRIPTION,
      content: {
        "application/json": {
          schema: { $ref: `#/components/schemas/${ERROR_SCHEMA}` },
        },
      },
    },
  };
}

export function errorSchemas(): Record<string, Schema> {
  return {
    [ERROR_SCHEMA]: {
      type: "object",
      description:
        "The error body of every operation (the JSON form of google.rpc.Status). " +
        "A gRPC client gets the same code and message. The HTTP status " +
        "follows from the code:\n\n" + STATUS_TABLE,
      required: ["code", "message"],
      properties: {
        code: {
          type: "integer",
          format: "int32",
          description:
            "The gRPC status code, e.g. 3 INVALID_ARGUMENT, 5 NOT_FOUND, 6 ALREADY_EXISTS",
        },
        message: {
          type: "string",
          description: "What went wrong, for a person to read",
        },
        details: {
          type: "array",
          description:
            "Structured details; present only when there are any. An invalid " +
            "request carries a google.rpc.BadRequest listing every violation.",
          items: {
            oneOf: [
              { $ref: "#/components/schemas/google.rpc.BadRequest" },
              { $ref: "#/components/schemas/google.rpc.RetryInfo" },
            ],
          },
        },
      },
    },
    "google.rpc.BadRequest": {
      type: "object",
      description: "The field violations of an invalid request",
      required: ["@type", "fieldViolations"],
      properties: {
        "@type": {
          type: "string",
          const: "type.googleapis.com/google.rpc.BadRequest",
        },
        fieldViolations: {
          type: "array",
          items: {
            type: "object",
            required: ["field", "description"],
            properties: {
              field: {
                type: "string",
                description:
                  "The JSON path of the field, e.g. cluster.clusterSpec.workerGroupSpec[0].groupName",
              },
              description: {
                type: "string",
                description: "The rule the field breaks",
              },
            },
          },
        },
      },
    },
    "google.rpc.RetryInfo": {
      type: "object",
      description: "When to retry a call that was refused for now",
      required: ["@type", "retryDelay"],
      properties: {
        "@type": {
          type: "string",
          const: "type.googleapis.com/google.rpc.RetryInfo",
        },
        retryDelay: {
          type: "string",
          description: 'How long to wait, in seconds, e.g. "1.5s"',
          pattern: "^[0-9]+(\\.[0-9]+)?s$",
        },
      },
    },
  };
}

// --------------------------------------------------------------- helpers
