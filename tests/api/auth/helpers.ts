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

/**
 * Time limits the test ends by hand: `timer` hands out a signal per limit
 * set (recording its ms in `set`), and `fire()` aborts every one of them
 * as AbortSignal.timeout would have, so no test waits for real time.
 */
export function manualTimer(): {
  timer: (ms: number) => AbortSignal;
  set: number[];
  fire(): void;
} {
  const set: number[] = [];
  const controllers: AbortController[] = [];
  return {
    timer(ms) {
      const controller = new AbortController();
      set.push(ms);
      controllers.push(controller);
      return controller.signal;
    },
    set,
    fire() {
      for (const controller of controllers) {
        controller.abort(new DOMException("Signal timed out.", "TimeoutError"));
      }
    },
  };
}
