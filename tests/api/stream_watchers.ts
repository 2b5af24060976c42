/**
 * Open WatchClusters (or WatchRayJobs) streams as the revocation and
 * watch tests read them, on each
 * transport (gRPC, HTTP NDJSON, HTTP SSE): every answer is read as it
 * comes, in the background, so that a test can wait for one and for the
 * stream's end without keeping up with it.
 */
import * as grpc from "@grpc/grpc-js";
import type { Message } from "../../domain/message_form.ts";
import type { Corral } from "../harness.ts";

export const WATCH = "proto.ClusterService/WatchClusters";

/** How a stream ended: 0 and "" for a clean end. */
export interface Ending {
  code: number;
  message: string;
}

/** A watch, read in the background. */
export interface OpenWatch {
  /** Every answer so far, in order. */
  answers: Message[];
  /** Resolves when the stream has ended (or was refused at once). */
  ended: Promise<Ending>;
  /** Stops reading. */
  close(): void;
}

export interface WatchRequest {
  namespace?: string;
  resourceVersion?: string;
  /** What is watched: "clusters" (WatchClusters) unless "jobs". */
  resource?: "clusters" | "jobs";
}

/** The RPC that watches `resource`. */
function methodOf(request: WatchRequest): string {
  return request.resource === "jobs"
    ? "proto.RayJobService/WatchRayJobs"
    : WATCH;
}

type Opener = (
  corral: Corral,
  request: WatchRequest,
  authorization: string,
) => Promise<OpenWatch>;

/** The three ways to watch: gRPC, NDJSON and Server-Sent Events. */
export const WATCH_TRANSPORTS: readonly [string, Opener][] = [
  ["gRPC", (c, r, a) => Promise.resolve(grpcWatch(c, r, a))],
  ["HTTP", (c, r, a) => httpWatch(c, r, a, false)],
  ["SSE", (c, r, a) => httpWatch(c, r, a, true)],
];

function grpcWatch(
  corral: Corral,
  request: WatchRequest,
  authorization: string,
): OpenWatch {
  const metadata = new grpc.Metadata();
  metadata.set("authorization", authorization);
  const stream = corral.grpc.stream(methodOf(request), {
    namespace: request.namespace ?? "",
    name: "",
    resourceVersion: request.resourceVersion ?? "",
  }, metadata);
  const answers: Message[] = [];
  const reading = (async () => {
    for await (const answer of stream.messages) answers.push(answer);
  })();
  return {
    answers,
    // grpc-js says "OK" of a clean end; the other transports say nothing.
    ended: reading.then(() => stream.status).then(({ code, message }) => ({
      code,
      message: code === 0 ? "" : message,
    })),
    close: () => stream.cancel(),
  };
}

async function httpWatch(
  corral: Corral,
  request: WatchRequest,
  authorization: string,
  sse: boolean,
): Promise<OpenWatch> {
  const query = request.resourceVersion
    ? `?resourceVersion=${request.resourceVersion}`
    : "";
  const resource = request.resource ?? "clusters";
  const path = request.namespace
    ? `/apis/v1alpha2/watch/namespaces/${request.namespace}/${resource}`
    : `/apis/v1alpha2/watch/${resource}`;
  const response = await corral.gateway(
    new Request(`http://corral.test${path}${query}`, {
      headers: {
        authorization,
        ...(sse ? { accept: "text/event-stream" } : {}),
      },
    }),
  );
  const answers: Message[] = [];
  if (response.status !== 200) {
    const { code, message } = await response.json();
    return { answers, ended: Promise.resolve({ code, message }), close() {} };
  }
  const reader = response.body!.pipeThrough(new TextDecoderStream())
    .getReader();
  const ended = (async (): Promise<Ending> => {
    const separator = sse ? "\n\n" : "\n";
    let buffered = "";
    for (;;) {
      const at = buffered.indexOf(separator);
      if (at < 0) {
        const { done, value } = await reader.read().catch(() => ({
          done: true,
          value: undefined,
        }));
        if (done) return { code: 0, message: "" };
        buffered += value;
        continue;
      }
      const frame = JSON.parse(dataOf(buffered.slice(0, at), sse));
      buffered = buffered.slice(at + separator.length);
      if (frame.error) {
        return { code: frame.error.code, message: frame.error.message };
      }
      answers.push(frame.result);
    }
  })();
  return {
    answers,
    ended,
    close: () => void reader.cancel().catch(() => {}),
  };
}

/** The JSON text of an NDJSON line or of an SSE event's `data` field. */
function dataOf(frame: string, sse: boolean): string {
  if (!sse) return frame;
  const data = frame.split("\n").find((line) => line.startsWith("data:"));
  return data!.slice("data:".length).trim();
}

/** Resolves with `promise`, or fails naming `what` after `ms`. */
export async function within<T>(
  ms: number,
  what: string,
  promise: Promise<T>,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Timed out after ${ms} ms waiting for ${what}`)),
      ms,
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
