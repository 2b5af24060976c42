/**
 * What KubeRay's current head and worker groups set on their Ray
 * container beyond its image, size and environment: the image pull policy
 * and the security context, written as KubeRay's API server writes them
 * (buildHeadPodTemplate, buildSecurityContext) and read back.
 *
 * - `imagePullPolicy`: "Always" or "IfNotPresent" on the container as
 *   given; empty leaves Kubernetes' default. (KubeRay's server writes
 *   IfNotPresent for any value but a case-blind "always"; validation here
 *   takes only Kubernetes' own spellings, so what is written reads back.)
 * - `securityContext`: the container's `securityContext`, `privileged` when
 *   set and `capabilities: {add, drop}` when given, each list as given.
 */
import type { Container } from "./resources.ts";
import type {
  Capabilities,
  HeadGroupSpec,
  SecurityContext,
  WorkerGroupSpec,
} from "./types.ts";
import { isPlainObject } from "./message_form.ts";

/** The image pull policies a group may give. */
export const IMAGE_PULL_POLICIES = ["Always", "IfNotPresent"] as const;

/** Adds a group's image pull policy and security context to its container. */
export function applyContainerSettings(
  container: Container,
  group: Pick<
    HeadGroupSpec | WorkerGroupSpec,
    "imagePullPolicy" | "securityContext"
  >,
): void {
  if (group.imagePullPolicy) container.imagePullPolicy = group.imagePullPolicy;
  if (group.securityContext) {
    container.securityContext = securityContextToResource(
      group.securityContext,
    );
  }
}

/** A core/v1 SecurityContext of the fields KubeRay's message has. */
function securityContextToResource(
  context: SecurityContext,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (context.privileged !== undefined) out.privileged = context.privileged;
  const capabilities = context.capabilities;
  if (capabilities) {
    out.capabilities = {
      ...(capabilities.add.length > 0 ? { add: [...capabilities.add] } : {}),
      ...(capabilities.drop.length > 0 ? { drop: [...capabilities.drop] } : {}),
    };
  }
  return out;
}

/** A group's image pull policy and security context, read back. */
export function containerSettingsOf(
  container: Container | undefined,
): Pick<HeadGroupSpec, "imagePullPolicy" | "securityContext"> {
  const policy = container?.imagePullPolicy;
  return {
    imagePullPolicy:
      (IMAGE_PULL_POLICIES as readonly unknown[]).includes(policy)
        ? policy as string
        : "",
    securityContext: securityContextOf(container?.securityContext),
  };
}

/** KubeRay's SecurityContext of a core/v1 one; undefined when it has none. */
function securityContextOf(
  value: unknown,
): SecurityContext | undefined {
  if (!isPlainObject(value)) return undefined;
  const privileged = typeof value.privileged === "boolean"
    ? value.privileged
    : undefined;
  const capabilities: Capabilities | undefined =
    isPlainObject(value.capabilities)
      ? {
        add: strings(value.capabilities.add),
        drop: strings(value.capabilities.drop),
      }
      : undefined;
  return { capabilities, privileged };
}

function strings(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === "string")
    : [];
}
