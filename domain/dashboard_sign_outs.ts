/**
 * Dashboard sign-outs, the pure part: the RayCluster annotation that
 * records them, and whether a dashboard cookie is still signed in.
 *
 * The annotation corral.dev/dashboard-sign-outs holds, per user, how many
 * times that user has signed out of the cluster's dashboard: a JSON object
 * of counts, `{"alice":2}`. A cookie carries its user's count when it was
 * opened, and the cluster's uid; it is signed out once the cluster's count
 * for its user has moved past it, and for any other cluster of that name
 * (deleted and made again).
 *
 * Why on the cluster, and counts: every replica reads the cluster anyway
 * (from its cache, which the watch keeps in step), so a sign-out holds on
 * every replica and across restarts with no memory shared between them;
 * a count needs no clock (replicas' clocks differ); a user moves only
 * their own count, so no one can undo another's sign-out, and the record
 * is as large as the number of users who ever signed out of that one
 * cluster, whatever anyone else sends; it goes with the cluster.
 */

/** The RayCluster annotation of sign-out counts, by user. */
export const DASHBOARD_SIGN_OUTS_ANNOTATION = "corral.dev/dashboard-sign-outs";

/**
 * Each user's sign-out count in `annotations`: none recorded is an empty
 * record; undefined when the annotation is there but not such an object
 * (not Corral's writing: no count can be trusted then).
 */
export function signOutsOf(
  annotations: Record<string, string> | undefined,
): Record<string, number> | undefined {
  const text = annotations?.[DASHBOARD_SIGN_OUTS_ANNOTATION];
  if (text === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return undefined;
  }
  const counts = parsed as Record<string, unknown>;
  for (const count of Object.values(counts)) {
    if (!Number.isSafeInteger(count) || (count as number) < 0) {
      return undefined;
    }
  }
  return counts as Record<string, number>;
}

/** `user`'s sign-out count, 0 when none; undefined when unreadable. */
export function signOutCount(
  annotations: Record<string, string> | undefined,
  user: string,
): number | undefined {
  const counts = signOutsOf(annotations);
  return counts && (Object.hasOwn(counts, user) ? counts[user] : 0);
}

/**
 * The annotations with `user`'s count one more; undefined when the record
 * there is unreadable (signOutsOf).
 */
export function withSignOut(
  annotations: Record<string, string> | undefined,
  user: string,
): Record<string, string> | undefined {
  const counts = signOutsOf(annotations);
  if (!counts) return undefined;
  const next = {
    ...counts,
    [user]: (Object.hasOwn(counts, user) ? counts[user] : 0) + 1,
  };
  return {
    ...annotations,
    [DASHBOARD_SIGN_OUTS_ANNOTATION]: JSON.stringify(next),
  };
}

/** What a dashboard cookie says of its cluster and of its user's count. */
export interface SignedIn {
  user: string;
  /** The uid of the cluster it was opened for. */
  clusterUid: string;
  /** Its user's sign-out count for that cluster when it was opened. */
  signOuts: number;
}

/**
 * Whether a cookie that says `signedIn` is still signed in to the cluster
 * of `metadata`: the same cluster, and its user has not signed out of it
 * since. A record that cannot be read signs every cookie out.
 */
export function stillSignedIn(
  metadata: { uid?: string; annotations?: Record<string, string> },
  signedIn: SignedIn,
): boolean {
  const count = signOutCount(metadata.annotations, signedIn.user);
  return (metadata.uid ?? "") === signedIn.clusterUid && count !== undefined &&
    count <= signedIn.signOuts;
}
