/** Small helpers shared by the cache tests. */
import { LABEL, MANAGED_BY } from "../../domain/resources.ts";
import type { Standin } from "../../standin/mod.ts";
import { create, rayCluster, RC } from "../standin/requests.ts";

/**
 * Creates a managed RayCluster in namespace team-a straight in the
 * stand-in, as another replica would; answers its resourceVersion.
 */
export async function createElsewhere(
  standin: Standin,
  name: string,
): Promise<string> {
  const { body } = await create(
    standin,
    RC,
    rayCluster(name, {
      metadata: { name, labels: { [LABEL.managedBy]: MANAGED_BY } },
    }),
  );
  return body.metadata.resourceVersion;
}

/** "ok" when `promise` resolves, else the code of the error it rejects with. */
export async function codeOf(
  promise: Promise<unknown>,
): Promise<number | "ok"> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    return (error as { code: number }).code;
  }
}
