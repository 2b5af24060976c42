/** The logger every layer is handed; api/log.ts has the implementation. */
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line. */
  with(fields: LogFields): Logger;
  /**
   * Whether a line at `level` would be written, for a caller to spare
   * making its fields when not (one a request); absent means it would.
   */
  enabled?(level: "debug" | "info" | "warn" | "error"): boolean;
}
