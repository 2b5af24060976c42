/**
 * Every field of the pod-level parts of a RayCluster and a RayJob, each
 * "decided" (checked against a rule's grants, admission.ts) or "refused"
 * (refused unless a rule opens it by name, `podFields` or
 * `containerFields`); a field not listed, such as one a newer operator
 * adds, is refused as well. tests/api/auth/admission_fields_test.ts fails
 * when the RayCluster CRD has a pod-level field these lists do not name.
 */
import { ANNOTATION } from "../../domain/resources.ts";

export type FieldDecision = "decided" | "refused";

/**
 * Every field of the CRD's head and worker groups (not their templates).
 * numOfHosts and priority are decided as allowed only at the values the
 * CRD defaults them to (the API server writes those into every group);
 * scaleStrategy only names workers the autoscaler removes.
 */
export const GROUP_FIELDS: Record<string, FieldDecision> = {
  groupName: "decided",
  replicas: "decided",
  minReplicas: "decided",
  maxReplicas: "decided",
  rayStartParams: "decided",
  serviceType: "decided",
  template: "decided",
  numOfHosts: "decided",
  priority: "decided",
  scaleStrategy: "decided",
  enableIngress: "refused",
  headService: "refused",
  idleTimeoutSeconds: "refused",
  ingressOptions: "refused",
  labels: "refused",
  resources: "refused",
  suspend: "refused",
};

/** The group fields allowed at their CRD default only. */
export const GROUP_DEFAULTS: Record<string, unknown> = {
  numOfHosts: 1,
  priority: 0,
};

export const POD_METADATA_FIELDS: Record<string, FieldDecision> = {
  annotations: "decided",
  labels: "decided",
  finalizers: "refused",
  name: "refused",
  namespace: "refused",
};

/** Every field of the CRD's pod spec. */
export const POD_SPEC_FIELDS: Record<string, FieldDecision> = {
  containers: "decided",
  volumes: "decided",
  serviceAccountName: "decided",
  serviceAccount: "decided",
  imagePullSecrets: "decided",
  tolerations: "decided",
  nodeSelector: "decided",
  // Containers of their own: opened by podFields, then checked as containers.
  initContainers: "refused",
  ephemeralContainers: "refused",
  activeDeadlineSeconds: "refused",
  affinity: "refused",
  automountServiceAccountToken: "refused",
  dnsConfig: "refused",
  dnsPolicy: "refused",
  enableServiceLinks: "refused",
  hostAliases: "refused",
  hostIPC: "refused",
  hostNetwork: "refused",
  hostPID: "refused",
  hostUsers: "refused",
  hostname: "refused",
  hostnameOverride: "refused",
  nodeName: "refused",
  os: "refused",
  overhead: "refused",
  preemptionPolicy: "refused",
  priority: "refused",
  priorityClassName: "refused",
  readinessGates: "refused",
  resourceClaims: "refused",
  resources: "refused",
  restartPolicy: "refused",
  runtimeClassName: "refused",
  schedulerName: "refused",
  schedulingGates: "refused",
  schedulingGroup: "refused",
  securityContext: "refused",
  setHostnameAsFQDN: "refused",
  shareProcessNamespace: "refused",
  subdomain: "refused",
  terminationGracePeriodSeconds: "refused",
  topologySpreadConstraints: "refused",
};

/** Every field of the CRD's container. */
export const CONTAINER_FIELDS: Record<string, FieldDecision> = {
  name: "decided",
  image: "decided",
  env: "decided",
  envFrom: "decided",
  ports: "decided",
  resources: "decided",
  volumeMounts: "decided",
  // Any pull policy; a security context's privileged and added
  // capabilities by the rule's securityContext (admission_parts.ts), its
  // other fields by containerFields: securityContext.
  imagePullPolicy: "decided",
  securityContext: "decided",
  args: "refused",
  command: "refused",
  lifecycle: "refused",
  livenessProbe: "refused",
  readinessProbe: "refused",
  resizePolicy: "refused",
  restartPolicy: "refused",
  restartPolicyRules: "refused",
  startupProbe: "refused",
  stdin: "refused",
  stdinOnce: "refused",
  terminationMessagePath: "refused",
  terminationMessagePolicy: "refused",
  tty: "refused",
  volumeDevices: "refused",
  workingDir: "refused",
  // Of ephemeral containers only.
  targetContainerName: "refused",
};

/**
 * The RayCluster spec fields Corral writes (suspend: a queued one's); the
 * autoscaler's options and the head service's annotations are walked
 * (admission.ts).
 */
export const SPEC_FIELDS = new Set([
  "rayVersion",
  "headGroupSpec",
  "workerGroupSpecs",
  "suspend",
  "enableInTreeAutoscaling",
  "autoscalerOptions",
  "headServiceAnnotations",
]);

/**
 * The RayJob spec fields Corral writes (jobToResource); any other is
 * refused, as a cluster's: a newer operator's field may start pods.
 */
export const JOB_SPEC_FIELDS = new Set([
  "entrypoint",
  "metadata",
  "runtimeEnvYAML",
  "jobId",
  "shutdownAfterJobFinishes",
  "ttlSecondsAfterFinished",
  "activeDeadlineSeconds",
  "entrypointNumCpus",
  "entrypointNumGpus",
  "entrypointResources",
  "submitterPodTemplate",
  "rayClusterSpec",
  "clusterSelector",
  "suspend",
]);

/**
 * The submitter pod fields "refused" above that Corral itself writes, each
 * allowed at Corral's value only: a submitter runs once (KubeRay's API
 * server writes restartPolicy Never too).
 */
export const SUBMITTER_DEFAULTS: Record<string, unknown> = {
  restartPolicy: "Never",
};

/**
 * Start parameters that decide who can reach the cluster's listeners
 * (Ray's dashboard serves the job API: code execution for whoever reaches
 * it). Without a grant of their own they are allowed on a service that
 * stays inside Kubernetes' network, and refused on a LoadBalancer.
 */
export const EXPOSURE_PARAMS = [
  "dashboard-host",
  "dashboard-port",
  "ray-client-server-port",
  "node-ip-address",
];

/** Corral's own pod annotation keys, always allowed. */
export const OWN_ANNOTATIONS = new Set<string>([
  ANNOTATION.computeTemplate,
  ANNOTATION.computeImage,
]);
