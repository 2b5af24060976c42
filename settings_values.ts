/**
 * How each kind of flag value is read (ports, durations, sizes, counts,
 * lists, namespaces), each throwing an Error whose message settings.ts
 * puts after the flag's name; and the suggestion for a mistyped flag.
 */
import { MAX_LIMIT } from "./domain/limits.ts";
import { validateNamespace } from "./domain/key_validation.ts";

export function nonEmpty(text: string): string {
  if (!text) throw new Error("must not be empty");
  return text;
}

/** true/1/yes or false/0/no; empty is false (a flag given without value is true). */
export function boolean(text: string): boolean {
  const lower = text.toLowerCase();
  if (["true", "1", "yes"].includes(lower)) return true;
  if (["false", "0", "no", ""].includes(lower)) return false;
  throw new Error(`must be true or false, got "${text}"`);
}

export function port(text: string): number {
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(n >= 0 && n <= 65535)) {
    throw new Error(`must be a port from 0 to 65535, got "${text}"`);
  }
  return n;
}

export function oneOf<T extends string>(choices: readonly T[]) {
  return (text: string): T => {
    if (!choices.includes(text as T)) {
      throw new Error(`must be one of ${choices.join(", ")}, got "${text}"`);
    }
    return text as T;
  };
}

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * A duration as Go and the Kubernetes flags write it: 500ms, 10s, 1m30s.
 * A bare number other than 0 is refused: `--kube-timeout 10` is more likely
 * meant as seconds than as milliseconds, and guessing would hide that.
 */
export function duration(text: string): number {
  if (text === "0") return 0;
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  while (at < text.length) {
    part.lastIndex = at;
    const match = part.exec(text);
    if (!match) break;
    total += Number(match[1]) * DURATION_UNITS[match[2]];
    at = part.lastIndex;
  }
  if (at === 0 || at < text.length) {
    throw new Error(
      /^\d+(\.\d+)?$/.test(text)
        ? `needs a unit: "${text}s" or "${text}ms", not "${text}"`
        : `must be a duration such as 500ms, 10s or 1m30s, got "${text}"`,
    );
  }
  return total;
}

/** A whole number from `min` to MAX_LIMIT (the CRD's int32 bound). */
export function count(min: number) {
  return (text: string): number => {
    const n = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!(n >= min && n <= MAX_LIMIT)) {
      throw new Error(
        `must be a whole number from ${min} to ${MAX_LIMIT}, got "${text}"`,
      );
    }
    return n;
  };
}

export function positive(parse: (text: string) => number) {
  return (text: string): number => {
    const n = parse(text);
    if (n <= 0) throw new Error(`must be more than 0, got "${text}"`);
    return n;
  };
}

/** A size as Kubernetes quantities write it: 3Mi, 512Ki, 1048576. */
export function bytes(text: string): number {
  const match = /^(\d+)(Ki|Mi|Gi)?$/.exec(text);
  const unit = { "": 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };
  const n = match
    ? Number(match[1]) * unit[(match[2] ?? "") as keyof typeof unit]
    : NaN;
  if (!(n > 0)) {
    throw new Error(
      `must be a size such as 3Mi, 512Ki or 1048576, got "${text}"`,
    );
  }
  return n;
}

export function list(text: string): string[] {
  return text.split(",").map((item) => item.trim()).filter(Boolean);
}

export function namespaces(text: string): string[] {
  const names = list(text);
  for (const name of names) {
    validateNamespace(name, `has an invalid namespace "${name}"`);
  }
  return names;
}

/** One namespace, or "" for none. */
export function namespaceOrNone(text: string): string {
  if (text !== "") {
    validateNamespace(text, `has an invalid namespace "${text}"`);
  }
  return text;
}

/** The known name nearest to a mistyped one, if it is near enough. */
export function closest(
  name: string,
  known: readonly string[],
): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = editDistance(name, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 3))
    ? best
    : undefined;
}

/** Levenshtein distance; flag names are short, so the table is small. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        previous[j] + 1,
        row[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = row;
  }
  return previous[b.length];
}

/**
 * A comma-separated list whose every entry `check` accepts (throwing why
 * not), as written; an empty one for an empty text.
 */
export function listOf(check: (entry: string) => unknown) {
  return (text: string): string[] => {
    const entries = list(text);
    for (const entry of entries) check(entry);
    return entries;
  };
}

/** As listOf(), and not empty: "*" says "any" in so many words. */
export function someOf(check: (entry: string) => unknown) {
  return (text: string): string[] => {
    const entries = listOf(check)(text);
    if (entries.length === 0) {
      throw new Error('needs at least one entry ("*" for any)');
    }
    return entries;
  };
}
