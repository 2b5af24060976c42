/**
 * A client of a Ray dashboard's job API (Ray's "Jobs REST API": /api/jobs/
 * and /api/packages/) reached through ClusterAccess (--cluster-access).
 *
 * Contract: every call is bounded in time (`timeoutMs`, the answer's body
 * included) and in the size of the answer read (`maxResponseBytes`), and
 * fails with a ServiceError whose message starts with the caller's action:
 *
 *   dashboard 404                     NOT_FOUND, with the dashboard's text
 *   dashboard 400, 413 and other 4xx  INVALID_ARGUMENT, with its text
 *   dashboard 5xx, no answer, an answer too large or not JSON
 *                                     UNAVAILABLE
 *   no answer within timeoutMs        DEADLINE_EXCEEDED
 *
 * It sends no credentials of a caller: only what ClusterAccess adds to
 * reach the service (none direct, Corral's own through the API server).
 */
import { Code, ServiceError } from "../domain/errors.ts";
import type {
  RayJobDetails,
  RayJobSubmitRequest,
} from "../domain/job_submissions.ts";
import type {
  ClusterAccess,
  DashboardCall,
  DashboardJobApi,
} from "../domain/dashboard_ports.ts";

export interface DashboardJobsOptions {
  access: ClusterAccess;
  /** One exchange with the dashboard, its answer's body included. */
  timeoutMs: number;
  /** The largest answer read; a larger one fails UNAVAILABLE. */
  maxResponseBytes: number;
}

export class DashboardJobs implements DashboardJobApi {
  readonly #o: DashboardJobsOptions;

  constructor(options: DashboardJobsOptions) {
    this.#o = options;
  }

  /** POST /api/jobs/: the submission id of the job made. */
  async submit(call: DashboardCall, job: RayJobSubmitRequest): Promise<string> {
    const answer = await this.#json(call, "POST", "/api/jobs/", job) as {
      submission_id?: unknown;
    };
    return typeof answer?.submission_id === "string"
      ? answer.submission_id
      : "";
  }

  /** GET /api/jobs/: every job the dashboard knows. */
  async list(call: DashboardCall): Promise<RayJobDetails[]> {
    const answer = await this.#json(call, "GET", "/api/jobs/");
    return Array.isArray(answer) ? answer as RayJobDetails[] : [];
  }

  /** GET /api/jobs/{id}. */
  async get(call: DashboardCall, id: string): Promise<RayJobDetails> {
    return await this.#json(call, "GET", jobPath(id)) as RayJobDetails;
  }

  /** GET /api/jobs/{id}/logs: the job's logs from the beginning. */
  async logs(call: DashboardCall, id: string): Promise<string> {
    const answer = await this.#json(call, "GET", `${jobPath(id)}/logs`) as {
      logs?: unknown;
    };
    return typeof answer?.logs === "string" ? answer.logs : "";
  }

  /** POST /api/jobs/{id}/stop: whether it was running and is stopped now. */
  async stop(call: DashboardCall, id: string): Promise<boolean> {
    const answer = await this.#json(call, "POST", `${jobPath(id)}/stop`) as {
      stopped?: unknown;
    };
    return answer?.stopped === true;
  }

  /** DELETE /api/jobs/{id}: a job that has ended. */
  async delete(call: DashboardCall, id: string): Promise<boolean> {
    const answer = await this.#json(call, "DELETE", jobPath(id)) as {
      deleted?: unknown;
    };
    return answer?.deleted === true;
  }

  /** PUT /api/packages/gcs/{name}: a zip, as Ray's job client uploads it. */
  async uploadPackage(
    call: DashboardCall,
    name: string,
    zip: Uint8Array,
  ): Promise<void> {
    await this.#exchange(
      call,
      "PUT",
      `/api/packages/gcs/${encodeURIComponent(name)}`,
      { body: zip as BodyInit, type: "application/octet-stream" },
    );
  }

  /** A JSON exchange: the answer parsed, or UNAVAILABLE when it is not JSON. */
  async #json(
    call: DashboardCall,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<unknown> {
    const text = await this.#exchange(
      call,
      method,
      path,
      body === undefined
        ? undefined
        : { body: JSON.stringify(body), type: "application/json" },
    );
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new ServiceError(
        Code.UNAVAILABLE,
        `${call.action}: the dashboard's answer is not JSON`,
        { cause: error },
      );
    }
  }

  /** One request, its answer's text read within the bounds. */
  async #exchange(
    call: DashboardCall,
    method: string,
    path: string,
    body?: { body: BodyInit; type: string },
  ): Promise<string> {
    const { access, timeoutMs } = this.#o;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = call.signal
      ? AbortSignal.any([call.signal, timeout])
      : timeout;
    const url = `${access.baseUrl(call.dashboard)}${path}`;
    try {
      const response = await access.fetch(url, {
        method,
        signal,
        headers: body ? { "content-type": body.type } : {},
        ...(body ? { body: body.body } : {}),
      });
      const text = await this.#read(response, call.action);
      if (response.ok) return text;
      throw dashboardError(call.action, response.status, text);
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      if (call.signal?.aborted && call.signal.reason instanceof ServiceError) {
        throw call.signal.reason;
      }
      // As the dashboard proxy answers: a time-out is DEADLINE_EXCEEDED.
      throw timeout.aborted
        ? new ServiceError(
          Code.DEADLINE_EXCEEDED,
          `${call.action}: the cluster's dashboard did not answer within ${timeoutMs} ms`,
          { cause: error },
        )
        : new ServiceError(
          Code.UNAVAILABLE,
          `${call.action}: the cluster's dashboard could not be reached`,
          { cause: error },
        );
    }
  }

  /** The answer's body as text, refused past maxResponseBytes. */
  async #read(response: Response, action: string): Promise<string> {
    const limit = this.#o.maxResponseBytes;
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of response.body ?? []) {
      size += chunk.byteLength;
      if (size > limit) {
        await response.body?.cancel().catch(() => {});
        throw new ServiceError(
          Code.UNAVAILABLE,
          `${action}: the dashboard's answer is larger than ${limit} bytes`,
        );
      }
      chunks.push(chunk);
    }
    const bytes = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.byteLength;
    }
    return new TextDecoder().decode(bytes);
  }
}

/** The longest part of a dashboard's error text put in a message. */
const MAX_ERROR_TEXT = 1000;

/** A dashboard's error answer as the API's error: see the module's table. */
export function dashboardError(
  action: string,
  status: number,
  text: string,
): ServiceError {
  const said = text.trim().slice(0, MAX_ERROR_TEXT);
  const detail = said === "" ? `status ${status}` : said;
  if (status === 404) {
    return new ServiceError(Code.NOT_FOUND, `${action}: ${detail}`);
  }
  if (status >= 400 && status < 500) {
    return new ServiceError(Code.INVALID_ARGUMENT, `${action}: ${detail}`);
  }
  return new ServiceError(
    Code.UNAVAILABLE,
    `${action}: the cluster's dashboard answered ${status}: ${detail}`,
  );
}

function jobPath(id: string): string {
  return `/api/jobs/${encodeURIComponent(id)}`;
}
