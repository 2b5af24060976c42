/**
 * Ray's in-tree autoscaler of a cluster, written into the RayCluster's
 * spec and read back, as KubeRay's API server writes it (buildRayClusterSpec
 * and buildAutoscalerOptions): `enableInTreeAutoscaling: true`, and the
 * options only then.
 *
 * - idleTimeoutSeconds, upscalingMode, image and imagePullPolicy when set.
 * - cpu and memory, when either is set, as the autoscaler container's
 *   limits and requests, the other at KubeRay's default (500m, 512Mi).
 * - envs: `values` as the container's `env`; `valuesFrom` as variables
 *   taking their value from a key (valueFrom), as a group's do. (KubeRay's
 *   server turns a Secret's or ConfigMap's entry into an `envFrom` of the
 *   whole object, the variable's name and key unused, and drops the other
 *   sources; one variable from one key is what the message says.)
 * - volumes: mounts of the head's volumes (`volumeMounts`); read back with
 *   the kind and source of the head volume of that name.
 */
import { envValuesFromOf, envVarsFrom } from "./env_conversions.ts";
import type { EnvVar, RayCluster } from "./resources.ts";
import type {
  AutoscalerOptions,
  ClusterSpec,
  EnvironmentVariables,
  Volume,
} from "./types.ts";
import { volumeMount } from "./volume_conversions.ts";
import { isPlainObject } from "./message_form.ts";

/** KubeRay's figures of the autoscaler container when one is given alone. */
export const AUTOSCALER_DEFAULT_CPU = "500m";
export const AUTOSCALER_DEFAULT_MEMORY = "512Mi";

/** The RayCluster spec fields of a cluster spec's autoscaler. */
export function autoscalerToResource(
  spec: Pick<ClusterSpec, "enableInTreeAutoscaling" | "autoscalerOptions">,
): Record<string, unknown> {
  if (!spec.enableInTreeAutoscaling) return {};
  const options = spec.autoscalerOptions;
  return {
    enableInTreeAutoscaling: true,
    ...(options ? { autoscalerOptions: optionsToResource(options) } : {}),
  };
}

function optionsToResource(
  options: AutoscalerOptions,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (options.idleTimeoutSeconds > 0) {
    out.idleTimeoutSeconds = options.idleTimeoutSeconds;
  }
  if (options.upscalingMode) out.upscalingMode = options.upscalingMode;
  if (options.image) out.image = options.image;
  if (options.imagePullPolicy) out.imagePullPolicy = options.imagePullPolicy;
  const values = options.envs?.values ?? {};
  const env: EnvVar[] = [
    ...Object.keys(values).sort().map((name) => ({
      name,
      value: values[name],
    })),
    ...envVarsFrom(options.envs?.valuesFrom ?? {}),
  ];
  if (env.length > 0) out.env = env;
  if (options.volumes.length > 0) {
    out.volumeMounts = options.volumes.map(volumeMount);
  }
  if (options.cpu || options.memory) {
    const figures = {
      cpu: options.cpu || AUTOSCALER_DEFAULT_CPU,
      memory: options.memory || AUTOSCALER_DEFAULT_MEMORY,
    };
    out.resources = { limits: figures, requests: { ...figures } };
  }
  return out;
}

/** A cluster spec's autoscaler fields, read back from a RayCluster spec. */
export function autoscalerOf(
  spec: RayCluster["spec"],
  headVolumes: readonly Volume[],
): Pick<ClusterSpec, "enableInTreeAutoscaling" | "autoscalerOptions"> {
  const enabled = spec.enableInTreeAutoscaling === true;
  const raw = spec.autoscalerOptions;
  if (!enabled || !isPlainObject(raw)) {
    return { enableInTreeAutoscaling: enabled, autoscalerOptions: undefined };
  }
  const resources = isPlainObject(raw.resources) ? raw.resources : {};
  const figures = {
    ...objectOf(resources.requests),
    ...objectOf(resources.limits),
  };
  return {
    enableInTreeAutoscaling: true,
    autoscalerOptions: {
      idleTimeoutSeconds: typeof raw.idleTimeoutSeconds === "number"
        ? raw.idleTimeoutSeconds
        : 0,
      upscalingMode: text(raw.upscalingMode),
      image: text(raw.image),
      imagePullPolicy: text(raw.imagePullPolicy),
      cpu: text(figures.cpu),
      memory: text(figures.memory),
      envs: envsOf(raw.env),
      volumes: mountsOf(raw.volumeMounts, headVolumes),
    },
  };
}

function envsOf(env: unknown): EnvironmentVariables | undefined {
  const list = (Array.isArray(env) ? env : []).filter(
    isPlainObject,
  ) as unknown[] as EnvVar[];
  if (list.length === 0) return undefined;
  const values: Record<string, string> = {};
  for (const variable of list) {
    if (variable.valueFrom === undefined && typeof variable.name === "string") {
      values[variable.name] = text(variable.value);
    }
  }
  return { values, valuesFrom: envValuesFromOf(list, () => false) };
}

function mountsOf(mounts: unknown, headVolumes: readonly Volume[]): Volume[] {
  const list = Array.isArray(mounts) ? mounts.filter(isPlainObject) : [];
  return list.map((mount) => {
    const name = text(mount.name);
    const head = headVolumes.find((volume) => volume.name === name);
    const propagation = mount.mountPropagation;
    return {
      volumeType: "PERSISTENT_VOLUME_CLAIM",
      source: "",
      hostPathType: "DIRECTORY",
      storageClassName: "",
      accessMode: "RWO",
      storage: "",
      items: {},
      ...head,
      name,
      mountPath: text(mount.mountPath),
      readOnly: mount.readOnly === true,
      mountPropagationMode: propagation === "HostToContainer"
        ? "HOSTTOCONTAINER"
        : propagation === "Bidirectional"
        ? "BIDIRECTIONAL"
        : "NONE",
    };
  });
}

function objectOf(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}
