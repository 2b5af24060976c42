/** The raw values of every flag, where each came from, and one flag's check. */
import {
  type Flag,
  FLAGS,
  type Mode,
  type Spec,
  SPECS,
} from "./settings_flags.ts";

/** The environment as main.ts hands it in. */
export type Environment = Readonly<Record<string, string | undefined>>;

export interface RawSettings {
  mode: string;
  values: Record<Flag, string>;
  /** Where each value came from, for --help. */
  sources: Record<Flag, "flag" | "env" | "default">;
}

export function resolve(
  flags: Partial<Record<Flag, string>>,
  env: Environment,
): RawSettings {
  const pick = (flag: Flag, mode: string) => {
    if (flags[flag] !== undefined) return [flags[flag], "flag"] as const;
    const fromEnv = env[SPECS[flag].env];
    if (fromEnv !== undefined) return [fromEnv, "env"] as const;
    return [defaultOf(flag, mode), "default"] as const;
  };
  const [mode] = pick("orchestrator", "kubernetes");
  const values = {} as Record<Flag, string>;
  const sources = {} as RawSettings["sources"];
  for (const flag of FLAGS) [values[flag], sources[flag]] = pick(flag, mode);
  return { mode, values, sources };
}

export function defaultOf(flag: Flag, mode: string): string {
  const value: Spec["default"] = SPECS[flag].default;
  if (typeof value === "string") return value;
  return value[mode as Mode] ?? value.kubernetes;
}

/**
 * One flag's value parsed, or `fallback` with the problem recorded, naming
 * the environment variable when the value came from there.
 */
export function checkFlag<T>(
  raw: RawSettings,
  problems: string[],
  flag: Flag,
  parse: (text: string) => T,
  fallback: T,
): T {
  try {
    return parse(raw.values[flag].trim());
  } catch (error) {
    const source = raw.sources[flag] === "env"
      ? ` (from ${SPECS[flag].env})`
      : "";
    problems.push(`--${flag}${source} ${(error as Error).message}`);
    return fallback;
  }
}
