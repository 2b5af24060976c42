/**
 * What `clusters create NAME` fills in that was not given, so that a name
 * is all a first cluster needs: the newest Ray version Corral knows
 * (domain/ray_versions.ts) when neither --version nor --image is given;
 * the namespace's only compute template, else its smallest, when
 * --template is not given; and the owner: --user, else who Corral takes
 * the caller to be (whoami), else the login name.
 */
import { quantityValue } from "../domain/quantities.ts";
import { NEWEST_RAY_VERSION } from "../domain/ray_versions.ts";
import type { CorralClient } from "./client.ts";
import type { Connection } from "./config.ts";
import { defaultUser } from "./jobs.ts";
import type { NewClusterSpec } from "./cluster_flags.ts";
import type { Cluster, ComputeTemplate } from "./types.ts";

/** What Corral calls a caller without credentials, who owns nothing. */
const ANONYMOUS = "system:anonymous";

/**
 * The template a cluster made without --template is on: the only one,
 * else the smallest by CPUs, then memory (in bytes, whatever its unit),
 * then GPUs (the cheapest to try Ray on), then name; undefined in a
 * namespace without templates.
 */
export function templateToUse(
  templates: readonly ComputeTemplate[],
): ComputeTemplate | undefined {
  return [...templates].sort((a, b) =>
    (a.cpu ?? 0) - (b.cpu ?? 0) || bytesOf(a) - bytesOf(b) ||
    (a.gpu ?? 0) - (b.gpu ?? 0) || a.name.localeCompare(b.name)
  )[0];
}

/** A template's memory in bytes: `memory` of `memoryUnit`, Gi when none. */
function bytesOf(template: ComputeTemplate): number {
  const unit = quantityValue(`1${template.memoryUnit || "Gi"}`) ?? 2 ** 30;
  return (template.memory ?? 0) * unit;
}

/**
 * A cluster made from flags (cluster_flags.ts), filled in: the newest Ray
 * version Corral knows when it names neither a version nor an image, and
 * the namespace's only (else smallest) template where none was named (in
 * a namespace without templates it stays without one, as before).
 */
export async function withDefaults(
  client: CorralClient,
  namespace: string,
  cluster: Cluster & { clusterSpec: NewClusterSpec },
): Promise<Cluster> {
  const spec = cluster.clusterSpec;
  const imaged = spec.headGroupSpec.image !== undefined;
  const version = cluster.version || imaged
    ? cluster.version
    : NEWEST_RAY_VERSION;
  if (spec.headGroupSpec.computeTemplate) return { ...cluster, version };
  const answer = await client.call<{ computeTemplates?: ComputeTemplate[] }>(
    "GET",
    `/apis/v1/namespaces/${encodeURIComponent(namespace)}/compute_templates`,
  );
  const computeTemplate = templateToUse(answer.computeTemplates ?? [])?.name ??
    "";
  return {
    ...cluster,
    version,
    clusterSpec: {
      headGroupSpec: { ...spec.headGroupSpec, computeTemplate },
      workerGroupSpec: spec.workerGroupSpec.map((group) => ({
        ...group,
        computeTemplate,
      })),
    },
  };
}

/**
 * The owner a cluster is created with: the one given (--user, or the
 * file's); with a token, none (Corral makes the token's user the owner);
 * else who whoami says the caller is (a client certificate's user), and
 * for an anonymous caller, or a Corral that does not say, the login name
 * (an anonymous caller without one: whoami's anonymous user).
 */
export async function ownerOf(
  client: CorralClient,
  connection: Connection,
  given: string,
): Promise<string> {
  if (given || connection.token) return given;
  const user = await client.call<{ user?: string }>(
    "GET",
    "/apis/v1alpha2/whoami",
  ).then((answer) => answer.user ?? "", () => "");
  if (user && user !== ANONYMOUS) return user;
  // An anonymous caller (dev mode) without a login name: the caller as
  // Corral knows it, as the console does.
  return defaultUser(connection.token) || user;
}
