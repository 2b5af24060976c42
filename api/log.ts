/** Structured logging: one JSON object per line. */
import * as grpc from "@grpc/grpc-js";
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

/**
 * Errors nothing caught, and grpc-js's own diagnostics, go to the JSON log
 * (a bug must not take the service down: it is logged and serving goes on).
 */
export function logStrayErrors(log: Logger): void {
  grpc.setLogger({
    error: (...args: unknown[]) => log.debug(args.join(" "), { lib: "grpc" }),
  } as Partial<Console>);
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    log.error("Unhandled promise rejection", { cause: String(event.reason) });
  });
  globalThis.addEventListener("error", (event) => {
    event.preventDefault();
    log.error("Uncaught exception", { cause: String(event.error) });
  });
}
