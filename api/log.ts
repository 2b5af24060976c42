/** Structured logging: one JSON object per line. */
import type { LogFields, Logger } from "../domain/log.ts";

export const LEVELS = ["debug", "info", "warn", "error"] as const;
export type Level = typeof LEVELS[number];

export interface LoggerOptions {
  level?: Level;
  /** Where lines go; standard error by default. */
  write?: (line: string) => void;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = LEVELS.indexOf(options.level ?? "info");
  const write = options.write ?? ((line: string) => console.error(line));
  function make(base: LogFields): Logger {
    const emit = (level: Level) => (message: string, fields?: LogFields) => {
      if (LEVELS.indexOf(level) < threshold) return;
      write(JSON.stringify({
        time: new Date().toISOString(),
        level,
        msg: message,
        ...base,
        ...fields,
      }));
    };
    return {
      debug: emit("debug"),
      info: emit("info"),
      warn: emit("warn"),
      error: emit("error"),
      with: (fields) => make({ ...base, ...fields }),
    };
  }
  return make({});
}

/** A logger that drops everything, for tests that do not look at logs. */
export function silentLogger(): Logger {
  return createLogger({ write: () => {} });
}
