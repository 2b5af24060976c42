/**
 * Structured logging: one JSON object per line, or for a person at a
 * terminal one readable line per record (`--log-format`).
 */
import * as grpc from "@grpc/grpc-js";
import type { LogFields, Logger } from "../domain/log.ts";

export const LEVELS = ["debug", "info", "warn", "error"] as const;
export type Level = typeof LEVELS[number];

/** `--log-format`'s values; auto is text on a terminal, else json. */
export const LOG_FORMATS = ["auto", "json", "text"] as const;
export type LogFormatSetting = typeof LOG_FORMATS[number];
export type LogFormat = Exclude<LogFormatSetting, "auto">;

/** The format `setting` means where standard error is (or is not) a terminal. */
export function logFormat(
  setting: LogFormatSetting,
  stderrIsTerminal: boolean,
): LogFormat {
  if (setting !== "auto") return setting;
  return stderrIsTerminal ? "text" : "json";
}

export interface LoggerOptions {
  level?: Level;
  /** json (the default): one object a line; text: `TIME LEVEL msg k=v`. */
  format?: LogFormat;
  /** Where lines go; standard error by default. */
  write?: (line: string) => void;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = LEVELS.indexOf(options.level ?? "info");
  const write = options.write ?? ((line: string) => console.error(line));
  function make(base: LogFields): Logger {
    const emit = (level: Level) => (message: string, fields?: LogFields) => {
      if (LEVELS.indexOf(level) < threshold) return;
      const record = {
        time: new Date().toISOString(),
        level,
        msg: message,
        ...base,
        ...fields,
      };
      write(
        options.format === "text" ? textLine(record) : JSON.stringify(record),
      );
    };
    return {
      debug: emit("debug"),
      info: emit("info"),
      warn: emit("warn"),
      error: emit("error"),
      with: (fields) => make({ ...base, ...fields }),
      enabled: (level) => LEVELS.indexOf(level) >= threshold,
    };
  }
  return make({});
}

/** "20:31:02 WARN  msg key=value key2="two words"": a record for people. */
export function textLine(
  record: { time: string; level: Level; msg: string } & LogFields,
): string {
  const { time, level, msg, ...fields } = record;
  const pairs = Object.entries(fields).map(([key, value]) => {
    const text = typeof value === "string" ? value : JSON.stringify(value);
    return `${key}=${/^[^\s"=]*$/.test(text) ? text : JSON.stringify(text)}`;
  });
  return [time.slice(11, 19), level.toUpperCase().padEnd(5), msg, ...pairs]
    .join(" ");
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
