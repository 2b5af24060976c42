/**
 * A simulated Ray dashboard: an HTTP server on 127.0.0.1 serving Ray's job
 * REST API (https://docs.ray.io, "Ray Jobs REST API") over a JobTable, the
 * package upload Ray's job SDK does for a working directory, the version,
 * and an index page. Dev mode only: the simulated operator starts one per
 * ready cluster (pool.ts) and the head Service leads to it.
 *
 * Errors are answered as Ray's aiohttp handlers answer them: a plain-text
 * body with 400 (bad request) or 404 (no such job or package). Where it
 * differs from Ray is listed in docs/development.md ("The simulated Ray
 * dashboard").
 */

import {
  isTerminal,
  JobError,
  type JobRequest,
  JobTable,
  type JobTableOptions,
} from "./jobs.ts";
import { zipFileNames } from "./zip.ts";

/** The Ray Jobs API version and the Ray version the simulation answers with. */
export const VERSION = {
  version: "4",
  ray_version: "2.46.0",
  ray_commit: "simulated",
};

/** The largest package accepted; Ray's own limit is 500 MiB. */
export const MAX_PACKAGE_BYTES = 100 * 1024 * 1024;

export interface DashboardOptions {
  /** What the index page names, e.g. `team-a/blue`. */
  cluster: string;
  stepMs?: JobTableOptions["stepMs"];
}

/** One running simulated dashboard. */
export class SimulatedDashboard {
  readonly port: number;
  readonly jobs: JobTable;
  /** Uploaded packages: URI (`gcs://_ray_pkg_….zip`) to their file names. */
  #packages = new Map<string, string[]>();
  #sockets = new Set<WebSocket>();
  #server: Deno.HttpServer<Deno.NetAddr>;
  #cluster: string;

  constructor(options: DashboardOptions) {
    this.#cluster = options.cluster;
    this.jobs = new JobTable({
      stepMs: options.stepMs,
      packageFiles: (uri) => this.#packages.get(uri),
    });
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      (request) => this.handle(request),
    );
    this.port = this.#server.addr.port;
  }

  /** Ends the runs, closes the log followers and stops listening. */
  async close(): Promise<void> {
    this.jobs.close();
    for (const socket of this.#sockets) socket.close(1001, "Dashboard closed");
    await this.#server.shutdown();
  }

  /** Answers one request; a JobError becomes its status and text. */
  async handle(request: Request): Promise<Response> {
    try {
      return await this.#route(request);
    } catch (error) {
      if (error instanceof JobError) return text(error.message, error.status);
      throw error;
    }
  }

  async #route(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    const parts = pathname.split("/").filter((p) => p !== "").map(
      decodeURIComponent,
    );
    const method = request.method;
    if (parts.length === 0) return only(method, "GET", () => this.#index());
    if (parts[0] !== "api") return text("Not Found", 404);
    if (parts[1] === "version" && parts.length === 2) {
      return only(method, "GET", () => Response.json(VERSION));
    }
    if (parts[1] === "packages" && parts.length === 4) {
      return await this.#package(request, `${parts[2]}://${parts[3]}`);
    }
    if (parts[1] !== "jobs") return text("Not Found", 404);
    const [, , id, action, tail, ...extra] = parts;
    if (id === undefined) {
      if (method === "GET") return Response.json(this.jobs.list());
      if (method === "POST") return this.#submit(await readJson(request));
      return text("Method Not Allowed", 405);
    }
    if (action === undefined) {
      if (method === "GET") return Response.json(this.jobs.get(id));
      if (method === "DELETE") {
        return Response.json({ deleted: this.jobs.delete(id) });
      }
      return text("Method Not Allowed", 405);
    }
    if (extra.length > 0) return text("Not Found", 404);
    if (action === "stop" && tail === undefined) {
      return only(
        method,
        "POST",
        () => Response.json({ stopped: this.jobs.stop(id) }),
      );
    }
    if (action === "logs" && tail === undefined) {
      return only(
        method,
        "GET",
        () => Response.json({ logs: this.jobs.logs(id) }),
      );
    }
    if (action === "logs" && tail === "tail") {
      return only(method, "GET", () => this.#tail(request, id));
    }
    return text("Not Found", 404);
  }

  #submit(body: unknown): Response {
    const job = this.jobs.submit(jobRequest(body));
    return Response.json({
      job_id: job.submission_id,
      submission_id: job.submission_id,
    });
  }

  /** GET: 200 when uploaded, else 404; PUT: stores the zip's file names. */
  async #package(request: Request, uri: string): Promise<Response> {
    if (request.method === "GET") {
      return this.#packages.has(uri)
        ? text(`Package ${uri} exists`, 200)
        : text(`Package ${uri} does not exist`, 404);
    }
    if (request.method !== "PUT") return text("Method Not Allowed", 405);
    const bytes = await readBounded(request, MAX_PACKAGE_BYTES);
    if (!bytes) return text(`Package ${uri} is too large`, 413);
    const names = zipFileNames(bytes);
    if (!names) return text(`Package ${uri} is not a zip archive`, 400);
    this.#packages.set(uri, names);
    return text(`Uploaded package ${uri}`, 200);
  }

  /**
   * GET .../logs/tail: a websocket sending the logs so far, then each new
   * line, closed once the job has ended (as Ray's tail_job_logs follows).
   */
  #tail(request: Request, id: string): Response {
    this.jobs.get(id); // 404 before the upgrade
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return text("Expected a websocket upgrade", 400);
    }
    const { socket, response } = Deno.upgradeWebSocket(request);
    let sent = 0;
    let unsubscribe = () => {};
    const push = () => {
      if (socket.readyState !== WebSocket.OPEN) return;
      let logs = "";
      let ended = true;
      try {
        logs = this.jobs.logs(id);
        ended = isTerminal(this.jobs.get(id).status);
      } catch { /* deleted: end the follow */ }
      if (logs.length > sent) socket.send(logs.slice(sent));
      sent = logs.length;
      if (ended) socket.close(1000, "Job ended");
    };
    socket.onopen = () => {
      this.#sockets.add(socket);
      unsubscribe = this.jobs.subscribe(push);
      push();
    };
    socket.onclose = () => {
      this.#sockets.delete(socket);
      unsubscribe();
    };
    return response;
  }

  #index(): Response {
    const rows = this.jobs.list().map((job) =>
      `<tr><td>${escape(job.submission_id)}</td><td>${job.status}</td><td>${
        escape(job.entrypoint)
      }</td></tr>`
    ).join("");
    return new Response(
      `<!doctype html><html><head><title>Ray Dashboard (simulated)</title><link rel="icon" href="data:,"></head><body><h1>Ray Dashboard (simulated)</h1><p>Cluster ${
        escape(this.#cluster)
      }. The job REST API is under <a href="api/jobs/">api/jobs/</a>.</p><table><tr><th>Submission</th><th>Status</th><th>Entrypoint</th></tr>${rows}</table></body></html>`,
      { headers: { "content-type": "text/html; charset=utf-8" } },
    );
  }
}

function text(body: string, status: number): Response {
  return new Response(body, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}

function only(
  method: string,
  allowed: string,
  answer: () => Response,
): Response {
  return method === allowed || (allowed === "GET" && method === "HEAD")
    ? answer()
    : text("Method Not Allowed", 405);
}

function escape(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

async function readJson(request: Request): Promise<unknown> {
  try {
    return await request.json();
  } catch (error) {
    throw new JobError(
      400,
      `Failed to parse request body: ${(error as Error).message}`,
    );
  }
}

/** The body, or undefined past `limit` bytes. */
async function readBounded(
  request: Request,
  limit: number,
): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body ?? []) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

type Checker = (value: unknown) => boolean;
const isObject: Checker = (v) =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isNumber: Checker = (v) => typeof v === "number" && v >= 0;

/** The optional JobSubmitRequest fields, by key, and what each must be. */
const OPTIONAL_FIELDS: [string, keyof JobRequest, Checker, string][] = [
  ["submission_id", "submissionId", (v) => typeof v === "string", "a string"],
  ["runtime_env", "runtimeEnv", isObject, "an object"],
  ["metadata", "metadata", isObject, "an object"],
  ["entrypoint_num_cpus", "entrypointNumCpus", isNumber, "a number >= 0"],
  ["entrypoint_num_gpus", "entrypointNumGpus", isNumber, "a number >= 0"],
  ["entrypoint_memory", "entrypointMemory", isNumber, "a number >= 0"],
  ["entrypoint_resources", "entrypointResources", isObject, "an object"],
];

/** Ray's JobSubmitRequest from a body; JobError 400 naming a bad field. */
export function jobRequest(body: unknown): JobRequest {
  if (!isObject(body)) {
    throw new JobError(400, "Failed to parse request body: not an object");
  }
  const fields = body as Record<string, unknown>;
  const { entrypoint } = fields;
  if (typeof entrypoint !== "string" || entrypoint.trim() === "") {
    throw new JobError(
      400,
      "Failed to parse request body: entrypoint: a non-empty string is required",
    );
  }
  const request: Record<string, unknown> = { entrypoint };
  // The deprecated job_id stands for submission_id, as Ray accepts it.
  const id = fields.submission_id ?? fields.job_id;
  const given: Record<string, unknown> = { ...fields, submission_id: id };
  for (const [key, name, valid, what] of OPTIONAL_FIELDS) {
    const value = given[key];
    if (value === undefined || value === null) continue;
    if (!valid(value)) {
      throw new JobError(
        400,
        `Failed to parse request body: ${key}: must be ${what}`,
      );
    }
    request[name] = value;
  }
  return request as unknown as JobRequest;
}
