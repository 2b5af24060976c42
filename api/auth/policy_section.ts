/**
 * A list section of the policy file, read. `rules:`, `rateLimits:`,
 * `quotas:`, `expiry:`, `queues:` and `accelerators:` are each a list of
 * mappings, and each is read the same way, so that each problem is told
 * the same way, with its path (`queues[1].default`): a section that is not
 * a list, an entry that is not a mapping, an entry's unknown keys (before
 * anything else of the entry), a list of names that is not one. The
 * section's own module reads the rest of an entry (policy_rules.ts,
 * rate_limit.ts, quota.ts, expiry_policy.ts, queue_policy.ts,
 * accelerators.ts); policy_document.ts reads the file whole and adds the
 * lines.
 */

/** Where a problem of the file is told: its path and what is wrong. */
export type Problem = (field: string, description: string) => void;

/** How one list section reads. */
export interface ListSection<T> {
  /** Its key in the file: "queues". */
  name: string;
  /** The keys an entry may have; any other is an unknown key. */
  keys: ReadonlySet<string>;
  /**
   * Whether a key beyond `keys` is one of a family the entry may have (a
   * quota's accelerator resource names), which `read` checks.
   */
  otherKey?(key: string): boolean;
  /** What the section must be: "a list of {namespaces, default, max}". */
  list: string;
  /** What an entry must be: "a mapping with namespaces and default or max". */
  entry: string;
  /**
   * One entry, its keys known, read; every problem told to `problem` with
   * a path under `at` (`queues[1]`). Undefined: the entry is left out.
   */
  read(
    entry: Record<string, unknown>,
    at: string,
    problem: Problem,
  ): T | undefined;
}

/** A list section's entries; each problem is told to `problem` with its path. */
export function listSectionOf<T>(
  section: ListSection<T>,
  value: unknown,
  problem: Problem,
): T[] {
  if (!Array.isArray(value)) {
    problem(section.name, `must be ${section.list}`);
    return [];
  }
  const entries: T[] = [];
  value.forEach((item: unknown, i: number) => {
    const at = `${section.name}[${i}]`;
    if (!isMapping(item)) {
      problem(at, `must be ${section.entry}`);
      return;
    }
    for (const key of Object.keys(item)) {
      if (section.keys.has(key) || section.otherKey?.(key)) continue;
      problem(`${at}.${key}`, "unknown key");
    }
    const read = section.read(item, at, problem);
    if (read !== undefined) entries.push(read);
  });
  return entries;
}

/** Whether `value` is a YAML mapping: an object, not a list. */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether `value` is a list of names: strings, none empty. */
function isNameList(value: unknown): value is string[] {
  return Array.isArray(value) &&
    value.every((name) => typeof name === "string" && name !== "");
}

/**
 * An entry's optional list of names at `key`: undefined when absent, and
 * when it is not a list of non-empty strings (told to `problem`).
 */
export function namesAt(
  entry: Record<string, unknown>,
  key: string,
  at: string,
  problem: Problem,
): string[] | undefined {
  const value = entry[key];
  if (value === undefined) return undefined;
  if (isNameList(value)) return value;
  problem(`${at}.${key}`, "must be a list of non-empty strings");
  return undefined;
}

/**
 * An entry's required list of names at `key`: undefined when it is absent,
 * empty or not a list of non-empty strings, told to `problem` as `wanted`
 * ("must be a non-empty list of group names").
 */
export function requiredNamesAt(
  entry: Record<string, unknown>,
  key: string,
  at: string,
  problem: Problem,
  wanted: string,
): string[] | undefined {
  const value = entry[key];
  if (isNameList(value) && value.length > 0) return value;
  problem(`${at}.${key}`, wanted);
  return undefined;
}

/** The namespaces an `expiry:` or `queues:` entry names ("*": each one). */
export function namespacesAt(
  entry: Record<string, unknown>,
  at: string,
  problem: Problem,
): string[] | undefined {
  return requiredNamesAt(
    entry,
    "namespaces",
    at,
    problem,
    'must be a non-empty list of namespaces or "*"',
  );
}
