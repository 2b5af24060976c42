/**
 * `jobs watch`'s output: the jobs there are first, as one aligned table,
 * then a row for each change, its event type first, the columns widening
 * as longer cells come (as `clusters watch` prints clusters).
 */
import { write } from "./command.ts";
import type { JobChange } from "./job_follow.ts";
import { columnWidths, tableLine } from "./output.ts";
import { headerOf, type Kind, rowOf } from "./resources.ts";
import type { Job } from "./types.ts";

/** Prints `changes` until they end. */
export async function printJobChanges(
  changes: AsyncIterable<JobChange>,
  kind: Kind<Job>,
  withNamespace: boolean,
): Promise<void> {
  const titles = ["EVENT", ...headerOf(kind, withNamespace)];
  let widths: number[] | undefined;
  const initial: string[][] = [];
  for await (const change of changes) {
    if (change.type === "BOOKMARK") {
      if (!widths) {
        widths = columnWidths(titles, [["MODIFIED"], ...initial]);
        write(
          [titles, ...initial].map((row) => `${tableLine(row, widths!)}\n`)
            .join(""),
        );
      }
      continue;
    }
    if (!change.job) continue;
    const row = [change.type, ...rowOf(kind, change.job, withNamespace)];
    if (!widths) {
      initial.push(row);
    } else {
      widths = widths.map((w, i) => Math.max(w, row[i].length));
      write(`${tableLine(row, widths)}\n`);
    }
  }
}
