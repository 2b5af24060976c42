/**
 * The violations of one request, collected in the order they are found and
 * thrown once (INVALID_ARGUMENT listing them all), and the checks every
 * kind's validation makes of the upper bounds of limits.ts.
 */
import { type FieldViolation, invalidArgument } from "./errors.ts";
import { LIMIT_FLAGS, type Limits } from "./limits.ts";

/** Violations of one request, in the order they were found. */
export class Violations {
  readonly list: FieldViolation[] = [];

  add(field: string, description: string): void {
    this.list.push({ field, description });
  }

  /** Adds each description, all for one field. */
  addAll(field: string, descriptions: string[]): void {
    for (const description of descriptions) this.add(field, description);
  }

  throwIfAny(action: string): void {
    if (this.list.length > 0) throw invalidArgument(action, this.list);
  }
}

/**
 * `must be at most 1000 (--max-replicas)` when `value` exceeds the limit.
 * Undefined (an unset optional field) is within every limit.
 */
export function checkLimit(
  v: Violations,
  field: string,
  value: number | undefined,
  limits: Limits,
  limit: keyof Limits,
): void {
  if (value !== undefined && value > limits[limit]) {
    v.add(
      field,
      `must be at most ${limits[limit]} (--${LIMIT_FLAGS[limit]})`,
    );
  }
}

/** `must have at most 100 entries (--max-map-entries)` for a map too large. */
export function checkMapSize(
  v: Violations,
  field: string,
  map: Record<string, unknown> | undefined,
  limits: Limits,
): void {
  const entries = Object.keys(map ?? {}).length;
  if (entries > limits.maxMapEntries) {
    v.add(
      field,
      `must have at most ${limits.maxMapEntries} entries, got ${entries} (--${LIMIT_FLAGS.maxMapEntries})`,
    );
  }
}
