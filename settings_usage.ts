import { FLAGS, type Spec, SPECS } from "./settings_flags.ts";
import { defaultOf, type RawSettings } from "./settings_raw.ts";

/**
 * --help: each flag with its environment variable, its default, and the
 * value this command line would run with where that differs (so --help
 * under `deno task dev` shows dev mode's settings).
 */
export function usage(raw: RawSettings): string {
  const pad = 30;
  const lines = [
    "Usage: deno task start [-- OPTIONS]   (deno task dev for embedded mode)",
    "",
    "Options (each also read from the environment variable shown):",
  ];
  for (const flag of FLAGS) {
    const spec: Spec = SPECS[flag];
    const facts = [`env ${spec.env}`];
    if (typeof spec.default === "string") {
      if (spec.default) facts.push(`default ${spec.default}`);
    } else {
      facts.push(
        `default ${spec.default.kubernetes}, ${spec.default.embedded} in embedded mode`,
      );
    }
    const source = raw.sources[flag];
    const now = raw.values[flag];
    if (source !== "default" || now !== defaultOf(flag, "kubernetes")) {
      facts.push(
        `now ${now || '""'} (${
          source === "env"
            ? spec.env
            : source === "flag"
            ? `--${flag}`
            : `${raw.mode} mode`
        })`,
      );
    }
    lines.push(
      `  --${flag} ${spec.value}`.padEnd(pad) + spec.help,
      "".padEnd(pad) + facts.join(", "),
    );
  }
  lines.push(
    "  --version".padEnd(pad) + "print the version and exit",
    "  --help".padEnd(pad) + "show this help",
  );
  return lines.join("\n");
}
