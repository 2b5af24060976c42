/** Small helpers shared by the auth tests. */
import { createLogger } from "../../../api/log.ts";
import type { LogFields, Logger } from "../../../domain/log.ts";

export interface LogLine {
  level: string;
  message: string;
  fields: LogFields;
}

/** A logger that keeps every line, for tests that look at logs. */
export function recordingLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const log = createLogger({
    level: "debug",
    write: (line) => {
      const { level, msg, time: _time, ...fields } = JSON.parse(line);
      lines.push({ level, message: msg, fields });
    },
  });
  return Object.assign(log, { lines });
}

/**
 * Writes `content` as a mounted Kubernetes Secret does: into a new
 * timestamped directory, then an atomic rename of the `..data` symlink to
 * it; `dir/name` is a symlink to `..data/name` made once.
 */
export async function writeLikeSecretVolume(
  dir: string,
  name: string,
  content: string,
): Promise<void> {
  const version = `..${Date.now()}_${crypto.randomUUID().slice(0, 8)}`;
  await Deno.mkdir(`${dir}/${version}`);
  await Deno.writeTextFile(`${dir}/${version}/${name}`, content);
  await Deno.symlink(version, `${dir}/..data_tmp`);
  await Deno.rename(`${dir}/..data_tmp`, `${dir}/..data`);
  try {
    await Deno.lstat(`${dir}/${name}`);
  } catch {
    await Deno.symlink(`..data/${name}`, `${dir}/${name}`);
  }
}
