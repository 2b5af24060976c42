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

/**
 * A request to the Kubernetes API at `base`, as another client makes it:
 * a JSON body, and a PATCH as a JSON merge patch.
 */
export function kubeFetch(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Response> {
  return fetch(`${base}${path}`, {
    method,
    headers: {
      "content-type": method === "PATCH"
        ? "application/merge-patch+json"
        : "application/json",
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}
