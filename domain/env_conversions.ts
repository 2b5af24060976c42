/**
 * A group container's environment variables, written and read back: the
 * pod's IP, the cluster's `envs`, the group's `environment` and its
 * `environmentValuesFrom`, in that order, each sorted by name so the object
 * is deterministic (conversions.ts says how `envs` and `environment` read
 * back apart). `environmentValuesFrom` is written and read back as the
 * KubeRay API server's later releases do (convertEnvironmentVariables and
 * convertEnvVariables): a Secret's or ConfigMap's key as `secretKeyRef` or
 * `configMapKeyRef` {name, key}, a resource as `resourceFieldRef`
 * {containerName: name, resource: key}, a pod field as `fieldRef`
 * {fieldPath: key}.
 */
import type { Container, EnvVar, EnvVarSource } from "./resources.ts";
import type { EnvValueFrom, HeadGroupSpec } from "./types.ts";

/**
 * Container names of the head and worker pods (the operator looks for
 * them; a variable's resourceFieldRef may name them).
 */
export const HEAD_CONTAINER = "ray-head";
export const WORKER_CONTAINER = "ray-worker";
/** The environment variable every container gets; not one of `envs`. */
export const POD_IP_ENV = "MY_POD_IP";

/**
 * Whether a group sets variables of its own (`environment` or
 * `environmentValuesFrom`); a RayCluster with such a group carries the
 * `ray.io/envs` annotation, so that each variable reads back where it was
 * given and none is taken for the KubeRay API server's own.
 */
export function hasOwnEnvironment(
  group: Pick<HeadGroupSpec, "environment" | "environmentValuesFrom">,
): boolean {
  return Object.keys(group.environment ?? {}).length > 0 ||
    Object.keys(group.environmentValuesFrom ?? {}).length > 0;
}

/**
 * The `ray.io/envs` annotation of a cluster: the names of its `envs` and
 * `envsValuesFrom`, written when a group has variables of its own or the
 * cluster reads some from elsewhere (hasOwnEnvironment), else none.
 */
export function envsAnnotation(
  envs: Readonly<Record<string, string>>,
  envsValuesFrom: Readonly<Record<string, EnvValueFrom>> | undefined,
  groups: readonly (
    | Pick<HeadGroupSpec, "environment" | "environmentValuesFrom">
    | undefined
  )[],
): string | undefined {
  const from = Object.keys(envsValuesFrom ?? {});
  const needed = from.length > 0 ||
    groups.some((group) => group !== undefined && hasOwnEnvironment(group));
  return needed ? JSON.stringify([...Object.keys(envs), ...from]) : undefined;
}

/**
 * The variables of a group's container, given the cluster's `envs` and
 * `envsValuesFrom` (which come after `envs`).
 */
export function containerEnv(
  envs: Readonly<Record<string, string>>,
  group: Pick<HeadGroupSpec, "environment" | "environmentValuesFrom">,
  envsValuesFrom: Readonly<Record<string, EnvValueFrom>> = {},
): EnvVar[] {
  const environment = group.environment ?? {};
  return [
    {
      name: POD_IP_ENV,
      valueFrom: { fieldRef: { fieldPath: "status.podIP" } },
    },
    ...Object.keys(envs).sort().map((name) => ({ name, value: envs[name] })),
    ...envVarsFrom(envsValuesFrom),
    ...Object.keys(environment).sort().map((name) => ({
      name,
      value: environment[name],
    })),
    ...envVarsFrom(group.environmentValuesFrom ?? {}),
  ];
}

/**
 * The cluster's `envs`: the head container's variables that the annotation
 * names; without a (well-formed) annotation, those the head and every
 * worker container share, name and value.
 */
export function clusterEnvs(
  names: string | undefined,
  headEnv: Record<string, string>,
  workerEnvs: Record<string, string>[],
): Record<string, string> {
  let listed: unknown;
  try {
    listed = names === undefined ? undefined : JSON.parse(names);
  } catch {
    listed = undefined;
  }
  const envs: Record<string, string> = {};
  for (const [name, value] of Object.entries(headEnv)) {
    const wanted = Array.isArray(listed)
      ? listed.includes(name)
      : workerEnvs.every((env) => env[name] === value);
    if (wanted) envs[name] = value;
  }
  return envs;
}

/**
 * A group container's plain-value variables that are not cluster envs, nor,
 * in an object the KubeRay API server may have written (no `ray.io/envs`),
 * its own variables (it sets those in every pod it writes).
 */
export function groupEnvironment(
  container: Container | undefined,
  envs: Record<string, string>,
  maybeKubeRays: boolean,
): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(plainEnv(container?.env))) {
    if (Object.hasOwn(envs, name)) continue;
    if (!(maybeKubeRays && KUBERAY_ENVS.has(name))) {
      environment[name] = value;
    }
  }
  return environment;
}

/**
 * A group container's variables whose value comes from elsewhere, less
 * MY_POD_IP and, in an object the KubeRay API server may have written, its
 * own variables.
 */
export function groupValuesFrom(
  container: Container | undefined,
  maybeKubeRays: boolean,
  clusterNames: ReadonlySet<string> = new Set(),
): Record<string, EnvValueFrom> {
  return envValuesFromOf(
    container?.env,
    (name) =>
      name === POD_IP_ENV || clusterNames.has(name) ||
      (maybeKubeRays && KUBERAY_ENVS.has(name)),
  );
}

/**
 * The cluster's `envsValuesFrom`: the head container's variables taking
 * their value from elsewhere that the `ray.io/envs` annotation names
 * (none without it).
 */
export function clusterValuesFrom(
  names: string | undefined,
  headContainer: Container | undefined,
): Record<string, EnvValueFrom> {
  const listed = listedNames(names);
  return envValuesFromOf(
    headContainer?.env,
    (name) => name === POD_IP_ENV || !listed.has(name),
  );
}

/** The names the `ray.io/envs` annotation lists; none when malformed. */
export function listedNames(names: string | undefined): Set<string> {
  try {
    const listed = names === undefined ? [] : JSON.parse(names);
    return new Set(
      Array.isArray(listed)
        ? listed.filter((n): n is string => typeof n === "string")
        : [],
    );
  } catch {
    return new Set();
  }
}

/**
 * Variables the KubeRay API server v0.6.0 writes into head and worker
 * containers itself (its converter leaves them out of what it reads back).
 */
const KUBERAY_ENVS: ReadonlySet<string> = new Set([
  "RAY_CLUSTER_NAME",
  "RAY_PORT",
  "RAY_ADDRESS",
  "RAY_USAGE_STATS_KUBERAY_IN_USE",
  "REDIS_PASSWORD",
  "RAY_DISABLE_DOCKER_CPU_WARNING",
  "TYPE",
  "CPU_REQUEST",
  "CPU_LIMITS",
  "MEMORY_REQUESTS",
  "MEMORY_LIMITS",
  "MY_POD_NAME",
  "FQ_RAY_IP",
  "RAY_IP",
]);

/** A container's plain-value variables but MY_POD_IP, by name. */
export function plainEnv(
  env: readonly EnvVar[] | undefined,
): Record<string, string> {
  const envs: Record<string, string> = {};
  for (const variable of env ?? []) {
    if (variable.name === POD_IP_ENV || variable.valueFrom !== undefined) {
      continue;
    }
    envs[variable.name] = variable.value ?? "";
  }
  return envs;
}

/** The container variables of a group's `environmentValuesFrom`. */
export function envVarsFrom(
  values: Readonly<Record<string, EnvValueFrom>>,
): EnvVar[] {
  return Object.keys(values).sort().map((name) => ({
    name,
    valueFrom: envVarSource(values[name]),
  }));
}

function envVarSource(from: EnvValueFrom): EnvVarSource {
  switch (from.source) {
    case "SECRET":
      return { secretKeyRef: { name: from.name, key: from.key } };
    case "RESOURCEFIELD":
      return {
        resourceFieldRef: {
          ...(from.name !== "" ? { containerName: from.name } : {}),
          resource: from.key,
        },
      };
    case "FIELD":
      return { fieldRef: { fieldPath: from.key } };
    case "CONFIGMAP":
      return { configMapKeyRef: { name: from.name, key: from.key } };
  }
}

/**
 * A container's variables whose value comes from elsewhere, by name, less
 * those `skip` says are not the caller's (MY_POD_IP, the KubeRay API
 * server's own). A source Corral does not write (a whole object's
 * `envFrom` is not a variable; an unknown kind of `valueFrom`) is left out.
 */
export function envValuesFromOf(
  env: readonly EnvVar[] | undefined,
  skip: (name: string) => boolean,
): Record<string, EnvValueFrom> {
  const out: Record<string, EnvValueFrom> = {};
  for (const variable of env ?? []) {
    if (variable.valueFrom === undefined || skip(variable.name)) continue;
    const from = envValueFrom(variable.valueFrom);
    if (from !== undefined) setOwn(out, variable.name, from);
  }
  return out;
}

function envValueFrom(source: EnvVarSource): EnvValueFrom | undefined {
  const { configMapKeyRef, secretKeyRef, resourceFieldRef, fieldRef } = source;
  if (secretKeyRef !== undefined) {
    return {
      source: "SECRET",
      name: stringOf(secretKeyRef.name),
      key: stringOf(secretKeyRef.key),
    };
  }
  if (configMapKeyRef !== undefined) {
    return {
      source: "CONFIGMAP",
      name: stringOf(configMapKeyRef.name),
      key: stringOf(configMapKeyRef.key),
    };
  }
  if (resourceFieldRef !== undefined) {
    return {
      source: "RESOURCEFIELD",
      name: stringOf(resourceFieldRef.containerName),
      key: stringOf(resourceFieldRef.resource),
    };
  }
  if (fieldRef !== undefined) {
    return { source: "FIELD", name: "", key: stringOf(fieldRef.fieldPath) };
  }
  return undefined;
}

/** Sets a map entry, even one named "__proto__", as an own property. */
function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function stringOf(value: unknown): string {
  return typeof value === "string" ? value : "";
}
