// Generated from proto/compute_template.proto by `deno task types:gen` (tools/types_gen.ts).
// Do not edit: change the .proto files and run the task again.

/** A named pod size. */
export interface ComputeTemplate {
  /**
   * Name of the template, unique in its namespace: a DNS-1123 label of at
   * most 63 characters.
   */
  name: string;
  /** Namespace of the template. */
  namespace: string;
  /** CPU cores. Must be greater than 0. */
  cpu: number;
  /** Memory in GiB. Must be greater than 0. */
  memory: number;
  /** Number of GPUs. */
  gpu: number;
  /** Kubernetes resource name of the GPU; defaults to nvidia.com/gpu. */
  gpuAccelerator: string;
  /**
   * Tolerations of every pod of a group that uses the template, so that it
   * can run on tainted nodes (GPU node pools usually are).
   */
  tolerations: PodToleration[];
  /**
   * Fields 8 and 9: KubeRay's after v0.6.0, at its numbers.
   *
   * More resources each pod of a group using the template requests (and is
   * limited to), by Kubernetes resource name, such as
   * "vpc.amazonaws.com/efa": 1.
   */
  extendedResources: Record<string, number>;
  /**
   * The unit of memory: a Kubernetes quantity suffix such as "Gi" (the
   * default when empty), "Mi" or "G".
   */
  memoryUnit: string;
}

/** A toleration of a node taint, as in a Kubernetes pod. */
export interface PodToleration {
  /**
   * The taint key the toleration applies to; empty with operator Exists
   * tolerates every taint.
   */
  key: string;
  /** Exists or Equal; empty means Equal. */
  operator: string;
  /** The taint value to match with Equal; empty with Exists. */
  value: string;
  /**
   * The taint effect to match: NoSchedule, PreferNoSchedule or NoExecute;
   * empty matches every effect.
   */
  effect: string;
}

/** The request of CreateComputeTemplate. */
export interface CreateComputeTemplateRequest {
  /** The compute template to create. */
  computeTemplate?: ComputeTemplate;
  /** The namespace to create the template in. */
  namespace: string;
}

/** The request of GetComputeTemplate. */
export interface GetComputeTemplateRequest {
  /** The name of the template. */
  name: string;
  /** The namespace of the template. */
  namespace: string;
}

/** The request of ListComputeTemplates. */
export interface ListComputeTemplatesRequest {
  /** The namespace whose templates to list. */
  namespace: string;
  /**
   * Most templates to answer, at most 1000 (larger values are taken as
   * 1000); 0 answers every template, as KubeRay's clients expect. Numbered
   * past the fields KubeRay's later releases gave this message.
   */
  pageSize: number;
  /** The next_page_token of the previous page; empty for the first page. */
  pageToken: string;
}

/** The answer of ListComputeTemplates. */
export interface ListComputeTemplatesResponse {
  /** The templates of the namespace. */
  computeTemplates: ComputeTemplate[];
  /** The token of the next page; empty on the last page. */
  nextPageToken: string;
}

/** The request of ListAllComputeTemplates. */
export interface ListAllComputeTemplatesRequest {
  /**
   * Most templates to answer, at most 1000 (larger values are taken as
   * 1000); 0 answers every template, as KubeRay's clients expect. Numbered
   * past the fields KubeRay's later releases gave this message.
   */
  pageSize: number;
  /** The next_page_token of the previous page; empty for the first page. */
  pageToken: string;
}

/** The answer of ListAllComputeTemplates. */
export interface ListAllComputeTemplatesResponse {
  /** The templates of every namespace. */
  computeTemplates: ComputeTemplate[];
  /** The token of the next page; empty on the last page. */
  nextPageToken: string;
}

/** The request of DeleteComputeTemplate. */
export interface DeleteComputeTemplateRequest {
  /** The name of the template. */
  name: string;
  /** The namespace of the template. */
  namespace: string;
}
