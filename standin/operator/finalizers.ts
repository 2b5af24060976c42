/**
 * The operator's finalizers on the objects it reconciles (controllerutil's
 * AddFinalizer and RemoveFinalizer followed by an update): a RayJob's or
 * RayService's delete waits for the operator to release it.
 */

import type { ApiClient, KubeResource } from "./api_client.ts";

/**
 * Adds (`held`) or removes `finalizer` on `object` with an update at its
 * resourceVersion; resolves to the object as written, or undefined when
 * it changed or went meanwhile (the caller reconciles again).
 */
export async function setFinalizer<T extends KubeResource>(
  api: ApiClient,
  plural: string,
  object: T,
  finalizer: string,
  held: boolean,
): Promise<T | undefined> {
  const others = (object.metadata.finalizers ?? []).filter((f) =>
    f !== finalizer
  );
  const answer = await api.replaceObject(plural, {
    ...object,
    metadata: {
      ...object.metadata,
      finalizers: held ? [...others, finalizer] : others,
    },
  });
  if (answer.status === 409 || answer.status === 404) return undefined;
  if (answer.status !== 200) {
    const { namespace, name } = object.metadata;
    throw new Error(
      `Updating the finalizers of ${plural} ${namespace}/${name} answered HTTP ${answer.status}`,
    );
  }
  return answer.body as T;
}

/** Whether `object` carries `finalizer`. */
export function holds(object: KubeResource, finalizer: string): boolean {
  return object.metadata.finalizers?.includes(finalizer) ?? false;
}
