/** The flags of logging. */
import { LEVELS } from "./api/log.ts";
import type { Spec } from "./settings_flags_spec.ts";

export const LOG_SPECS = {
  "log-level": {
    env: "CORRAL_LOG_LEVEL",
    default: "info",
    value: "LEVEL",
    help: LEVELS.join(", "),
  },
  "log-format": {
    env: "CORRAL_LOG_FORMAT",
    default: "auto",
    value: "FORMAT",
    help:
      "json (a JSON object a line), text (a start-up banner, then a line per record), or auto: text when standard error is a terminal, else json",
  },
} as const satisfies Record<string, Spec>;
