import {
  type Standin,
  type StandinOptions,
  startStandin,
} from "../../standin/mod.ts";

/** Runs `fn` against a fresh stand-in, closed after it whatever happens. */
export async function withStandin(
  fn: (standin: Standin) => Promise<void>,
  options: StandinOptions = {},
): Promise<void> {
  const standin = startStandin(options);
  try {
    await fn(standin);
  } finally {
    await standin.close();
  }
}
