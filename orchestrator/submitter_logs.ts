/**
 * A RayJob's log from its submitter pod (JobLogPort, domain/ports.ts).
 *
 * KubeRay v1.7.0 in K8sJobMode (rayjob_controller.go createNewK8sJob)
 * makes a batch/v1 Job named after the RayJob, owned by it, whose pod
 * template carries the labels ray.io/originated-from-crd=RayJob and
 * ray.io/originated-from-cr-name=<job>, with one container
 * `ray-job-submitter` (common/job.go) running `ray job submit`, which
 * tails the job's output. The Job controller labels the pods it makes
 * `job-name=<job>` (and, since Kubernetes 1.27, also
 * batch.kubernetes.io/job-name). The pods are found by `job-name` and
 * ray.io/originated-from-crd, the newest whose submitter container has
 * started (a retried submitter has several), and its log read through
 * pods/log: a whole read through client-node, a followed one over Deno's
 * fetch (kube_fetch.ts), which hands the body on as it comes.
 *
 * RBAC: `list` on pods and `get` on pods/log in the job's namespace.
 */
import { ApiException } from "@kubernetes/client-node";
import type { V1Pod } from "@kubernetes/client-node";
import { Code, ServiceError } from "../domain/errors.ts";
import { SUBMITTER_CONTAINER } from "../domain/job_conversions.ts";
import type { JobLogOptions, JobLogPort } from "../domain/ports.ts";
import type { CoreV1Port } from "./client_ports.ts";
import { type KubernetesCall, translateKubernetesError } from "./errors.ts";
import type { KubeFetch } from "./kube_fetch.ts";
import { type KubernetesCaller, qualified } from "./kubernetes_call.ts";

/** The Job controller's label naming a pod's Job, on every version. */
const JOB_NAME_LABEL = "job-name";

export class SubmitterLogs implements JobLogPort {
  readonly #caller: KubernetesCaller;
  readonly #core: CoreV1Port;
  readonly #fetch: KubeFetch;

  constructor(caller: KubernetesCaller, core: CoreV1Port, fetch: KubeFetch) {
    this.#caller = caller;
    this.#core = core;
    this.#fetch = fetch;
  }

  async read(
    namespace: string,
    name: string,
    options: JobLogOptions = {},
  ): Promise<string> {
    const call = logCall(namespace, name);
    const pod = await this.#submitterPod(namespace, name, call, options);
    const { tailLines } = options;
    try {
      return await this.#caller.call(
        call,
        "pods/log",
        (config) =>
          this.#core.readNamespacedPodLog({
            name: pod,
            namespace,
            container: SUBMITTER_CONTAINER,
            ...(tailLines === undefined ? {} : { tailLines }),
          }, config),
        options,
      );
    } catch (error) {
      throw notStarted(error, call);
    }
  }

  async follow(
    namespace: string,
    name: string,
    options: JobLogOptions = {},
  ): Promise<AsyncIterable<string>> {
    const call = logCall(namespace, name);
    const pod = await this.#submitterPod(namespace, name, call, options);
    const { tailLines, signal } = options;
    let response: Response;
    try {
      response = await this.#fetch(
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${
          encodeURIComponent(pod)
        }/log`,
        {
          container: SUBMITTER_CONTAINER,
          follow: "true",
          ...(tailLines === undefined ? {} : { tailLines: String(tailLines) }),
        },
        signal,
      );
    } catch (error) {
      throw translateKubernetesError(error, call);
    }
    if (response.status !== 200) {
      const body = await response.text().catch(() => "");
      throw notStarted(
        translateKubernetesError(
          new ApiException(response.status, "", body, {}),
          call,
        ),
        call,
      );
    }
    return textOf(response.body!, signal);
  }

  /**
   * The name of the job's submitter pod: the newest whose container has
   * started; FAILED_PRECONDITION when there is none yet.
   */
  async #submitterPod(
    namespace: string,
    name: string,
    call: KubernetesCall,
    options: JobLogOptions,
  ): Promise<string> {
    const labelSelector =
      `${JOB_NAME_LABEL}=${name},ray.io/originated-from-crd=RayJob`;
    const list = await this.#caller.call(
      { ...call, verb: "list", noun: "pod" },
      "pods",
      (config) =>
        this.#core.listNamespacedPod({ namespace, labelSelector }, config),
      options,
    );
    const started = list.items
      .filter((pod) => submitterStarted(pod))
      .sort((a, b) => createdAt(b) - createdAt(a));
    const pod = started[0]?.metadata?.name;
    if (pod) return pod;
    throw new ServiceError(
      Code.FAILED_PRECONDITION,
      `${call.action}: its submitter has not started yet${
        list.items.length === 0 ? "" : " (its pod is waiting)"
      }`,
    );
  }
}

function logCall(namespace: string, name: string): KubernetesCall {
  return {
    action: `Cannot read the log of job "${qualified(namespace, name)}"`,
    verb: "get",
    noun: "job log",
  };
}

function createdAt(pod: V1Pod): number {
  const time = pod.metadata?.creationTimestamp;
  return time ? new Date(time).getTime() : 0;
}

/** Whether the pod's submitter container is running or has run. */
function submitterStarted(pod: V1Pod): boolean {
  const status = pod.status?.containerStatuses?.find((s) =>
    s.name === SUBMITTER_CONTAINER
  );
  return Boolean(status?.state?.running || status?.state?.terminated);
}

/**
 * What befell the pod found between the list and the log's read, as
 * FAILED_PRECONDITION: the API server's 400 for a container waiting to
 * start (it restarted), its 404 for a pod gone (the job being suspended or
 * deleted).
 */
function notStarted(error: unknown, call: KubernetesCall): unknown {
  if (!(error instanceof ServiceError)) return error;
  if (
    error.code === Code.INVALID_ARGUMENT &&
    /waiting to start/.test(error.message)
  ) {
    return new ServiceError(
      Code.FAILED_PRECONDITION,
      `${call.action}: its submitter has not started yet (its pod is waiting)`,
      { cause: error },
    );
  }
  if (error.code === Code.NOT_FOUND) {
    return new ServiceError(
      Code.FAILED_PRECONDITION,
      `${call.action}: its submitter pod is gone`,
      { cause: error },
    );
  }
  return error;
}

/**
 * The body as text, each part as it comes; ends quietly when `signal`
 * aborts (the reader went away).
 */
async function* textOf(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal | undefined,
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  try {
    for await (const chunk of body) {
      const text = decoder.decode(chunk, { stream: true });
      if (text !== "") yield text;
    }
    const rest = decoder.decode();
    if (rest !== "") yield rest;
  } catch (error) {
    if (!signal?.aborted) throw error;
  }
}
