/**
 * How the command line prints: tables as kubectl prints them (upper-case
 * headers, left-aligned columns at least three spaces apart, no borders),
 * ages as kubectl writes them (45s, 12m, 3h, 5d), and whole objects as
 * JSON or YAML for scripts.
 */
import { stringify } from "yaml";
import { UsageError } from "./errors.ts";

/** wide is the table with more columns, where a kind has them. */
export const OUTPUT_FORMATS = ["table", "wide", "json", "yaml"] as const;
export type OutputFormat = typeof OUTPUT_FORMATS[number];

/** The -o flag's value, table when not given. */
export function outputFormat(
  value: string | boolean | undefined,
): OutputFormat {
  if (value === undefined) return "table";
  if (!OUTPUT_FORMATS.includes(value as OutputFormat)) {
    throw new UsageError(
      `-o ${JSON.stringify(value)} is not an output format: use ${
        OUTPUT_FORMATS.join(", ")
      }`,
    );
  }
  return value as OutputFormat;
}

/** An object as JSON (two-space indents) or YAML, ending with a newline. */
export function formatObject(value: unknown, format: "json" | "yaml"): string {
  return format === "json"
    ? `${JSON.stringify(value, null, 2)}\n`
    : stringify(value);
}

const GAP = 3;

/** Column widths that fit the header and every row. */
export function columnWidths(header: string[], rows: string[][]): number[] {
  return header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length))
  );
}

/** One line of a table whose columns have `widths`; no trailing spaces. */
export function tableLine(cells: string[], widths: number[]): string {
  return cells.map((cell, column) =>
    column === cells.length - 1
      ? cell
      : cell.padEnd((widths[column] ?? cell.length) + GAP)
  ).join("").trimEnd();
}

/** The header and rows as aligned lines, ending with a newline. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = columnWidths(header, rows);
  return [header, ...rows].map((cells) => tableLine(cells, widths)).join(
    "\n",
  ) + "\n";
}

/**
 * Time since `since`, as kubectl's HumanDuration writes it: seconds up to
 * two minutes, then minutes (with seconds under ten minutes), hours (with
 * minutes under eight hours), days (with hours under eight days), years.
 */
export function age(
  since: string | null | undefined,
  now = Date.now(),
): string {
  const at = since ? Date.parse(since) : NaN;
  if (Number.isNaN(at)) return "<unknown>";
  const seconds = Math.max(0, Math.floor((now - at) / 1000));
  const minutes = Math.floor(seconds / 60);
  const hours = Math.floor(seconds / 3600);
  const days = Math.floor(hours / 24);
  const years = Math.floor(days / 365);
  if (seconds < 120) return `${seconds}s`;
  if (minutes < 10) {
    return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  if (hours < 8) {
    return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  }
  if (days < 365 * 2) return `${days}d`;
  if (days < 365 * 8) {
    return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  }
  return `${years}y`;
}

/** Milliseconds as a duration flag writes them back: 1m30s, 500ms. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const seconds = Math.round(ms / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return `${h ? `${h}h` : ""}${m ? `${m}m` : ""}${
    s || (!h && !m) ? `${s}s` : ""
  }`;
}
