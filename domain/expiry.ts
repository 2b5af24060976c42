/**
 * Expiry, the pure part: durations as people write them ("4h", "1h30m",
 * "90s"), the annotation that carries a workload's expiry on its object
 * (a RayCluster, RayJob or RayService), and the rules that turn ttl /
 * expires_at / the policy's default and maximum into one time. No I/O; the
 * clock is a parameter.
 */
import { type FieldViolation, invalidArgument } from "./errors.ts";

/**
 * The annotation holding the expiry, RFC 3339 in UTC: on a RayCluster, a
 * RayJob or a RayService (KubeRay copies a RayJob's and a RayService's
 * annotations to the clusters it makes for them).
 */
export const EXPIRES_AT_ANNOTATION = "corral.dev/expires-at";

/**
 * The lifetime a create of a whole object asks for (a RayCluster sent to
 * the Kubernetes-shaped routes), as a ttl ("8h"): read on create, never
 * written; the expiry it decides is (EXPIRES_AT_ANNOTATION).
 */
export const TTL_ANNOTATION = "corral.dev/ttl";

/** The lifetime limits of one namespace (the policy's `expiry:`). */
export interface ExpiryLimit {
  /** Applied when a create gives neither ttl nor expires_at. */
  defaultMs?: number;
  /**
   * The longest lifetime from now a create or an extend may ask for; also
   * a create's lifetime when it gives none and there is no default, so
   * that nothing outlives the maximum.
   */
  maxMs?: number;
  /**
   * The workload kinds (by their kind's name: "services") the limits do
   * not apply to, which then expire only when their create asks.
   */
  exempt?: readonly string[];
}

/** How a workload's create names what the expiry is of. */
export interface ExpiryTarget {
  /** The request field of the workload: "cluster", "job", "service". */
  field: string;
  /** How messages name it: "cluster", "job", "service". */
  noun: string;
  /**
   * Where the ttl and the time are given, where not `<field>.ttl` and
   * `<field>.expires_at`: a whole Kubernetes object carries them in
   * annotations.
   */
  fields?: { ttl: string; expiresAt: string };
}

const CLUSTER: ExpiryTarget = { field: "cluster", noun: "cluster" };

/** The limits a workload of `kind` is created under: none if exempt. */
export function limitOfKind(limit: ExpiryLimit, kind: string): ExpiryLimit {
  return limit.exempt?.includes(kind) ? {} : limit;
}

const UNIT_MS: Record<string, number> = {
  h: 3_600_000,
  m: 60_000,
  s: 1_000,
};

/**
 * Milliseconds of a duration of hours, minutes and seconds in that order,
 * each at most once ("4h", "1h30m", "90s", "2.5h"); undefined when the
 * text is not one.
 */
export function parseDuration(text: string): number | undefined {
  const match =
    /^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s)?$/
      .exec(text.trim());
  if (!match || text.trim() === "") return undefined;
  const [, h, m, s] = match;
  const ms = Number(h ?? 0) * UNIT_MS.h + Number(m ?? 0) * UNIT_MS.m +
    Number(s ?? 0) * UNIT_MS.s;
  return Number.isFinite(ms) ? Math.round(ms) : undefined;
}

/** A duration as parseDuration reads it: "4h", "1h30m", "45s". */
export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const text = `${h ? `${h}h` : ""}${m ? `${m}m` : ""}${s ? `${s}s` : ""}`;
  return text || "0s";
}

/** The expiry a RayCluster's annotations carry; undefined when none or bad. */
export function expiryOf(
  annotations: Record<string, string> | undefined,
): Date | undefined {
  const text = annotations?.[EXPIRES_AT_ANNOTATION];
  if (!text) return undefined;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** expiresAt when the annotations carry one; no key at all otherwise. */
export function expiresAtOf(
  annotations: Record<string, string> | undefined,
): { expiresAt?: Date } {
  const expiresAt = expiryOf(annotations);
  return expiresAt ? { expiresAt } : {};
}

/** The annotations that carry `expiresAt`: none when it is undefined. */
export function expiryAnnotations(
  expiresAt: Date | undefined,
): Record<string, string> {
  return expiresAt
    ? { [EXPIRES_AT_ANNOTATION]: expiryAnnotation(expiresAt) }
    : {};
}

/** The annotation value of an expiry: RFC 3339 in UTC, whole seconds. */
export function expiryAnnotation(expiresAt: Date): string {
  return new Date(Math.floor(expiresAt.getTime() / 1000) * 1000)
    .toISOString().replace(".000Z", "Z");
}

/**
 * The expiry of a workload being created (a cluster unless `target` says
 * otherwise): from `ttl`, else `expiresAt`, else the limit's default, else
 * its max; undefined when none applies. Throws INVALID_ARGUMENT naming the
 * field when both are given, the ttl is not a duration, the time is not in
 * the future, or it is past now + max.
 */
export function expiryOnCreate(
  request: { ttl?: string; expiresAt?: Date },
  limit: ExpiryLimit,
  now: Date,
  action: string,
  target: ExpiryTarget = CLUSTER,
): Date | undefined {
  const violations: FieldViolation[] = [];
  const ttl = request.ttl ?? "";
  const fields = target.fields ??
    { ttl: `${target.field}.ttl`, expiresAt: `${target.field}.expires_at` };
  let expiresAt: Date | undefined;
  let field = fields.expiresAt;
  if (ttl !== "" && request.expiresAt) {
    violations.push({
      field: fields.ttl,
      description: "give ttl or expires_at, not both",
    });
  } else if (ttl !== "") {
    field = fields.ttl;
    const ms = parseDuration(ttl);
    if (ms === undefined || ms <= 0) {
      violations.push({
        field,
        description:
          `"${ttl}" is not a duration of hours, minutes and seconds more than zero, such as "8h" or "1h30m"`,
      });
    } else expiresAt = new Date(now.getTime() + ms);
  } else if (request.expiresAt) {
    expiresAt = request.expiresAt;
    if (expiresAt.getTime() <= now.getTime()) {
      violations.push({ field, description: "must be in the future" });
    }
  } else {
    // A maximum holds for a create that names no lifetime too.
    const lifetime = limit.defaultMs ?? limit.maxMs;
    return lifetime === undefined
      ? undefined
      : new Date(now.getTime() + lifetime);
  }
  if (violations.length === 0 && expiresAt) {
    const max = overMax(expiresAt, limit, now, field, target.noun);
    if (max) violations.push(max);
  }
  if (violations.length > 0) throw invalidArgument(action, violations);
  return expiresAt;
}

/**
 * The expiry of a cluster extended `by` (a duration) from `current` (or
 * from now when it has none or is past). INVALID_ARGUMENT naming `by` when
 * it is not a duration or the result would be past now + max.
 */
export function extendedExpiry(
  current: Date | undefined,
  by: string,
  limit: ExpiryLimit,
  now: Date,
  action: string,
): Date {
  const ms = parseDuration(by);
  if (ms === undefined || ms <= 0) {
    throw invalidArgument(action, [{
      field: "by",
      description:
        `"${by}" is not a duration of hours, minutes and seconds more than zero, such as "4h" or "1h30m"`,
    }]);
  }
  const from = current && current.getTime() > now.getTime() ? current : now;
  const expiresAt = new Date(from.getTime() + ms);
  const max = overMax(expiresAt, limit, now, "by", "cluster");
  if (max) throw invalidArgument(action, [max]);
  return expiresAt;
}

/** The violation of `expiresAt` past now + the limit's max, if it is. */
function overMax(
  expiresAt: Date,
  limit: ExpiryLimit,
  now: Date,
  field: string,
  noun: string,
): FieldViolation | undefined {
  if (limit.maxMs === undefined) return undefined;
  const latest = now.getTime() + limit.maxMs;
  // A second of slack: the annotation keeps whole seconds.
  if (expiresAt.getTime() <= latest + 1000) return undefined;
  return {
    field,
    description: `the ${noun} would expire at ${
      expiryAnnotation(expiresAt)
    }, past the maximum lifetime of ${formatDuration(limit.maxMs)} (${
      expiryAnnotation(new Date(latest))
    })`,
  };
}
