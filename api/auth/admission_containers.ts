/**
 * Admission of one container of a pod: its fields (CONTAINER_FIELDS), its
 * image by the image rules, its security context (admission_parts.ts), its
 * extended resources, its host ports and where its variables come from
 * (admission_env_sources.ts). It stands apart from the pod's own fields
 * because the autoscaler (admission.ts) is judged as a container too: its
 * image and resources by the checks here.
 */
import { CONTAINER_FIELDS } from "./admission_fields.ts";
import { isObj, listOf, type Obj, text } from "./workload.ts";
import { isAccelerator, isExtendedResource, UNLISTED } from "./accelerators.ts";
import { matchesAny } from "./workload_grants.ts";
import { securityContextRefusals } from "./admission_parts.ts";
import { admitEnvSource } from "./admission_env_sources.ts";
import type { WalkScope } from "./admission_walk.ts";

/** A container at `path` of the pod walked (or an init or ephemeral one). */
export function admitContainer(
  walk: WalkScope,
  container: unknown,
  path: string,
): void {
  if (!isObj(container)) return;
  for (const key of Object.keys(container)) {
    if (CONTAINER_FIELDS[key] === "decided") continue;
    if (matchesAny(walk.grants.containerFields, key)) continue;
    walk.refuse(
      `${path}.${key}`,
      undefined,
      `set the container field "${key}"`,
    );
  }
  admitImage(walk, text(container.image), `${path}.image`);
  for (
    const refusal of securityContextRefusals(
      container.securityContext,
      walk.grants,
    )
  ) {
    walk.refuse(
      `${path}.securityContext${refusal.at}`,
      walk.field(`securityContext${refusal.at}`),
      refusal.what,
    );
  }
  if (isObj(container.resources)) {
    admitResources(walk, container.resources, `${path}.resources`);
  }
  listOf(container.ports).forEach((port, i) => {
    if (
      !isObj(port) ||
      (port.hostPort === undefined && port.hostIP === undefined)
    ) return;
    if (matchesAny(walk.grants.containerFields, "ports.hostPort")) return;
    walk.refuse(
      `${path}.ports[${i}].hostPort`,
      undefined,
      "open a port on the node",
    );
  });
  listOf(container.env).forEach((env, i) => {
    const from = isObj(env) && isObj(env.valueFrom) ? env.valueFrom : undefined;
    if (from) admitEnvSource(walk, from, `${path}.env[${i}].valueFrom`);
  });
  listOf(container.envFrom).forEach((source, i) => {
    if (isObj(source)) admitEnvSource(walk, source, `${path}.envFrom[${i}]`);
  });
}

/**
 * A container's extended resources: the policy's accelerators, and those
 * the rule allows by name (`extendedResources`); any other is refused,
 * naming the compute template that asks for it.
 */
export function admitResources(
  walk: WalkScope,
  resources: Obj,
  path: string,
): void {
  const seen = new Set<string>();
  for (const kind of ["limits", "requests"]) {
    const figures = resources[kind];
    if (!isObj(figures)) continue;
    for (const name of Object.keys(figures)) {
      if (seen.has(name)) continue;
      seen.add(name);
      if (
        !isExtendedResource(name) || isAccelerator(name, walk.accelerators) ||
        matchesAny(walk.grants.extendedResources, name)
      ) continue;
      const template = walk.template;
      const who = template === ""
        ? "the pod"
        : `compute template "${template}"`;
      walk.refuse(
        `${path}.${kind}["${name}"]`,
        template === "" ? undefined : walk.field("computeTemplate"),
        `${who} asks for "${name}", which is ${UNLISTED}`,
        "extended-resource",
      );
    }
  }
}

/**
 * An image by the rule's image patterns (none: any image); `field` is the
 * request field it comes from, else the group's image field.
 */
export function admitImage(
  walk: WalkScope,
  image: string,
  path: string,
  field?: string,
): void {
  const { images } = walk.grants;
  if (images === undefined || matchesAny(images, image)) return;
  walk.refuse(
    path,
    field ?? walk.imageField(),
    `use the image "${image}"`,
    "image",
  );
}
