/**
 * `GET /api/v1/namespaces/{ns}/pods/{name}/log`: what a pod's container
 * printed, as the API server answers it from the kubelet: text/plain, the
 * options of PodLogOptions (`container`, `follow`, `tailLines`,
 * `limitBytes`, `sinceSeconds`, `timestamps`), and with `follow=true` a
 * stream that sends each line as it is printed and ends when the
 * container ends (or the pod goes, or limitBytes is reached).
 *
 * What was printed is the pod's annotation SIMULATED_LOG_ANNOTATION (dev
 * mode only; the simulated operator's RayJob submitter writes it): by
 * container, the lines with their times. Its refusals are the API
 * server's: a container that must be named, one the pod does not have, one
 * still waiting to start (400), options out of range (422).
 */

import { isRecord } from "./json.ts";
import type { State } from "./state.ts";
import { badRequest, StatusError } from "./status.ts";
import type { StoreEvent } from "./store.ts";
import type { KubeObject, ReadSubresource, ResourceType } from "./types.ts";
import { getOrNotFound } from "./verbs.ts";

/**
 * Dev mode only: on a Pod, what its containers printed, as JSON: by
 * container name, the lines in order, each `[time, text]` (an RFC 3339
 * time and the line with its newline).
 */
export const SIMULATED_LOG_ANNOTATION = "corral.dev/simulated-log";

/** One line a container printed, and when. */
export interface LogLine {
  time: string;
  text: string;
}

/** The lines `container` of `pod` printed, per SIMULATED_LOG_ANNOTATION. */
export function podLogLines(pod: KubeObject, container: string): LogLine[] {
  const text = pod.metadata.annotations?.[SIMULATED_LOG_ANNOTATION];
  if (!text) return [];
  let logs: unknown;
  try {
    logs = JSON.parse(text);
  } catch {
    return [];
  }
  const lines = isRecord(logs) ? logs[container] : undefined;
  if (!Array.isArray(lines)) return [];
  return lines.flatMap((line) =>
    Array.isArray(line) && typeof line[0] === "string" &&
      typeof line[1] === "string"
      ? [{ time: line[0], text: line[1] }]
      : []
  );
}

/** The value of SIMULATED_LOG_ANNOTATION that holds `logs`. */
export function podLogAnnotation(logs: Record<string, LogLine[]>): string {
  const entries = Object.entries(logs).map((
    [name, lines],
  ) => [name, lines.map((line) => [line.time, line.text])]);
  return JSON.stringify(Object.fromEntries(entries));
}

/** The names of the pod's containers, in order. */
function containerNames(pod: KubeObject): string[] {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const containers = Array.isArray(spec.containers) ? spec.containers : [];
  return containers.flatMap((c) =>
    isRecord(c) && typeof c.name === "string" ? [c.name] : []
  );
}

/** A container's state (status.containerStatuses), and why it waits. */
function containerState(
  pod: KubeObject,
  container: string,
): { state: "waiting" | "running" | "terminated"; reason: string } {
  const status = isRecord(pod.status) ? pod.status : {};
  const statuses = Array.isArray(status.containerStatuses)
    ? status.containerStatuses
    : [];
  const found = statuses.find((s) => isRecord(s) && s.name === container);
  const state = isRecord(found) && isRecord(found.state) ? found.state : {};
  if (state.terminated) return { state: "terminated", reason: "" };
  if (state.running) return { state: "running", reason: "" };
  const waiting = isRecord(state.waiting) ? state.waiting : {};
  return {
    state: "waiting",
    reason: typeof waiting.reason === "string"
      ? waiting.reason
      : "ContainerCreating",
  };
}

/** PodLogOptions, as far as the stand-in honours them. */
interface LogOptions {
  container?: string;
  follow: boolean;
  timestamps: boolean;
  tailLines?: number;
  limitBytes?: number;
  sinceSeconds?: number;
}

function integerParameter(
  params: URLSearchParams,
  name: string,
): number | undefined {
  const value = params.get(name);
  if (value === null) return undefined;
  if (!/^-?\d+$/.test(value)) {
    throw badRequest(
      `couldn't parse parameter "${name}": strconv.ParseInt: parsing "${value}": invalid syntax`,
    );
  }
  return Number(value);
}

function booleanParameter(params: URLSearchParams, name: string): boolean {
  const value = params.get(name);
  return value === "true" || value === "1";
}

/** The options of the query, checked as ValidatePodLogOptions does. */
function logOptions(params: URLSearchParams, name: string): LogOptions {
  const options: LogOptions = {
    container: params.get("container") || undefined,
    follow: booleanParameter(params, "follow"),
    timestamps: booleanParameter(params, "timestamps"),
    tailLines: integerParameter(params, "tailLines"),
    limitBytes: integerParameter(params, "limitBytes"),
    sinceSeconds: integerParameter(params, "sinceSeconds"),
  };
  const problems: { field: string; value: number; message: string }[] = [];
  const check = (field: keyof LogOptions, least: number, message: string) => {
    const value = options[field];
    if (typeof value === "number" && value < least) {
      problems.push({ field, value, message });
    }
  };
  check("tailLines", 0, "must be greater than or equal to 0");
  check("limitBytes", 1, "must be greater than 0");
  check("sinceSeconds", 1, "must be greater than 0");
  if (problems.length > 0) {
    const causes = problems.map((p) => ({
      reason: "FieldValueInvalid",
      message: `Invalid value: ${p.value}: ${p.message}`,
      field: p.field,
    }));
    throw new StatusError(
      422,
      "Invalid",
      `PodLogOptions "${name}" is invalid: ${
        causes.map((c) => `${c.field}: ${c.message}`).join(", ")
      }`,
      { kind: "PodLogOptions", name, causes },
    );
  }
  return options;
}

/** The container the options name, or the pod's only one. */
function chosenContainer(pod: KubeObject, options: LogOptions): string {
  const names = containerNames(pod);
  const podName = pod.metadata.name ?? "";
  if (options.container === undefined) {
    if (names.length === 1) return names[0];
    throw badRequest(
      `a container name must be specified for pod ${podName}, choose one of: [${
        names.join(" ")
      }]`,
    );
  }
  if (!names.includes(options.container)) {
    throw badRequest(
      `container ${options.container} is not valid for pod ${podName}`,
    );
  }
  return options.container;
}

/** The lines to send first: since sinceSeconds, the last tailLines. */
function firstLines(
  lines: LogLine[],
  options: LogOptions,
  now: number,
): LogLine[] {
  let chosen = lines;
  if (options.sinceSeconds !== undefined) {
    const since = now - options.sinceSeconds * 1000;
    chosen = chosen.filter((line) => Date.parse(line.time) >= since);
  }
  if (options.tailLines !== undefined) {
    chosen = options.tailLines === 0 ? [] : chosen.slice(-options.tailLines);
  }
  return chosen;
}

const encoder = new TextEncoder();

/** Lines as the answer carries them, timestamped when asked. */
function textOf(lines: LogLine[], options: LogOptions): string {
  return lines.map((line) =>
    options.timestamps ? `${line.time} ${line.text}` : line.text
  ).join("");
}

/** At most `limit` bytes of `bytes` (cut where the limit falls, as a kubelet). */
function limited(
  bytes: Uint8Array<ArrayBuffer>,
  limit: number | undefined,
): Uint8Array<ArrayBuffer> {
  return limit === undefined || bytes.length <= limit
    ? bytes
    : bytes.subarray(0, limit);
}

const TEXT_HEADERS = { "content-type": "text/plain" };

export const POD_LOG: ReadSubresource = {
  get(state, url, target) {
    const { resource, namespace, name } = target;
    const pod = getOrNotFound(state, resource, namespace, name);
    const options = logOptions(url.searchParams, name);
    const container = chosenContainer(pod, options);
    const { state: running, reason } = containerState(pod, container);
    if (running === "waiting") {
      throw badRequest(
        `container "${container}" in pod "${name}" is waiting to start: ${reason}`,
      );
    }
    const lines = podLogLines(pod, container);
    const first = firstLines(lines, options, state.now());
    const body = limited(
      encoder.encode(textOf(first, options)),
      options.limitBytes,
    );
    if (!options.follow || running === "terminated") {
      return new Response(body, { headers: TEXT_HEADERS });
    }
    const follow = new LogFollow(state, resource, pod, container, options);
    follow.begin(body, lines.length);
    return new Response(follow.body, { headers: TEXT_HEADERS });
  },
};

/**
 * One followed log: sends each line the pod's container prints after the
 * first answer, until the container ends, the pod goes, limitBytes is
 * reached, the client goes away or the stand-in closes (it is one of
 * `state.watches`, which close() ends).
 */
class LogFollow {
  readonly resource: ResourceType;
  readonly body: ReadableStream<Uint8Array>;
  #state: State;
  #uid: string | undefined;
  #namespace: string | undefined;
  #name: string | undefined;
  #container: string;
  #options: LogOptions;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #sentLines = 0;
  #sentBytes = 0;
  #ended = false;
  #unsubscribe: () => void = () => {};

  constructor(
    state: State,
    resource: ResourceType,
    pod: KubeObject,
    container: string,
    options: LogOptions,
  ) {
    this.#state = state;
    this.resource = resource;
    this.#uid = pod.metadata.uid;
    this.#namespace = pod.metadata.namespace;
    this.#name = pod.metadata.name;
    this.#container = container;
    this.#options = options;
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => this.end(),
    });
  }

  /** Sends `first` (what the first lines were), then follows the pod. */
  begin(first: Uint8Array<ArrayBuffer>, linesSoFar: number): void {
    this.#sentLines = linesSoFar;
    this.#state.watches.add(this);
    this.#unsubscribe = this.#state.store.subscribe((event) =>
      this.#changed(event)
    );
    this.#send(first);
  }

  /** Closes the stream and lets go of the subscription; once. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#unsubscribe();
    this.#state.watches.delete(this);
    try {
      this.#controller.close();
    } catch {
      // already closed or cancelled by the client
    }
  }

  #changed(event: StoreEvent): void {
    const { metadata } = event.object;
    if (
      event.resource.plural !== this.resource.plural ||
      event.resource.group !== this.resource.group ||
      metadata.uid !== this.#uid || metadata.namespace !== this.#namespace ||
      metadata.name !== this.#name
    ) {
      return;
    }
    if (event.type === "DELETED") return this.end();
    const lines = podLogLines(event.object, this.#container);
    const fresh = lines.slice(this.#sentLines);
    this.#sentLines = Math.max(this.#sentLines, lines.length);
    if (fresh.length > 0) {
      this.#send(encoder.encode(textOf(fresh, this.#options)));
    }
    const { state } = containerState(event.object, this.#container);
    if (state === "terminated") this.end();
  }

  #send(bytes: Uint8Array): void {
    if (this.#ended) return;
    const { limitBytes } = this.#options;
    const left = limitBytes === undefined
      ? bytes.length
      : limitBytes - this.#sentBytes;
    const sent = bytes.subarray(0, Math.max(0, left));
    if (sent.length > 0) this.#controller.enqueue(sent);
    this.#sentBytes += sent.length;
    if (limitBytes !== undefined && this.#sentBytes >= limitBytes) this.end();
  }
}
