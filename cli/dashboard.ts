/**
 * `corral clusters dashboard NAME`: a cluster's Ray dashboard on a local
 * port. A listener on 127.0.0.1 passes every request on to the cluster's
 * dashboard through Corral (`.../clusters/NAME/dashboard/`), with the
 * command's token, CA and client certificate, so a browser on this machine
 * opens it without any credentials of its own; until Ctrl-C.
 *
 * The token stands behind every request the port takes, and the Ray
 * dashboard runs code in the cluster, so the listener answers only what a
 * page of its own could send: a `Host` naming the listener (a DNS-rebinding
 * page names its own host) and no `Origin` but the listener's (a page of
 * another site posting a job sends its own). The caller's own cookies and
 * `Authorization` never leave the machine.
 */
import { onePositional, type ParsedArgs, wholeNumber } from "./args.ts";
import type { CorralClient } from "./client.ts";
import { type Command, withClient } from "./command.ts";
import { EXIT_OK, UsageError } from "./errors.ts";

const API = "/apis/v1alpha2";

/** Headers that describe one connection, not the message: never passed on. */
const HOP_BY_HOP = [
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
];

/** The caller's own headers that must not reach Corral from the port. */
const LOCAL_ONLY = ["host", "authorization", "cookie", "origin", "referer"];

/**
 * Answer headers that fetch has made untrue: it has decoded the body, so
 * its encoding and length are no longer those of what is passed on.
 */
const DECODED = ["content-encoding", "content-length"];

/** The cluster's dashboard path on Corral, without its trailing slash. */
export function dashboardPrefix(namespace: string, name: string): string {
  return `${API}/namespaces/${encodeURIComponent(namespace)}/clusters/${
    encodeURIComponent(name)
  }/dashboard`;
}

/** Where the listener is, and where it forwards to. */
export interface Forwarding {
  client: CorralClient;
  /** The cluster's dashboard path on Corral, without its trailing slash. */
  prefix: string;
  /** The listener's origin, e.g. `http://127.0.0.1:8265`. */
  origin: string;
}

/**
 * Whether a request may use the token: its Host names the listener and
 * any Origin is the listener's own.
 */
export function isLocalRequest(request: Request, origin: string): boolean {
  const { host, port } = new URL(origin);
  const allowed = [host, `localhost:${port}`];
  const hostHeader = request.headers.get("host") ?? "";
  if (!allowed.includes(hostHeader.toLowerCase())) return false;
  const from = request.headers.get("origin");
  return from === null || allowed.some((h) => from === `http://${h}`);
}

/**
 * A Location from the dashboard (through Corral, which rewrote it to its
 * proxy path) as the browser should follow it: onto the listener.
 */
export function localLocation(
  location: string,
  forwarding: Forwarding,
  server: string,
): string {
  const { prefix, origin } = forwarding;
  for (const base of [prefix, `${server}${prefix}`]) {
    if (location === base) return `${origin}/`;
    if (location.startsWith(`${base}/`) || location.startsWith(`${base}?`)) {
      return `${origin}${location.slice(base.length)}`;
    }
  }
  return location;
}

function without(headers: Headers, names: string[]): Headers {
  const kept = new Headers(headers);
  // Connection names further hop-by-hop headers of this message.
  const listed = (headers.get("connection") ?? "").split(",")
    .map((name) => name.trim().toLowerCase()).filter(Boolean);
  for (const name of [...names, ...listed]) kept.delete(name);
  return kept;
}

/** Passes one local request on to the dashboard; answers what came back. */
export async function forwardRequest(
  request: Request,
  forwarding: Forwarding,
  server: string,
): Promise<Response> {
  if (!isLocalRequest(request, forwarding.origin)) {
    await request.body?.cancel();
    return new Response(
      "Refused: only pages of this listener may use it (Host or Origin is another site's)\n",
      { status: 403, headers: { "content-type": "text/plain" } },
    );
  }
  const url = new URL(request.url);
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  let answer: Response;
  try {
    answer = await forwarding.client.forward(
      `${forwarding.prefix}${url.pathname}${url.search}`,
      {
        method: request.method,
        headers: without(request.headers, [...HOP_BY_HOP, ...LOCAL_ONLY]),
        body: hasBody ? request.body : undefined,
        signal: request.signal,
      },
    );
  } catch (error) {
    return new Response(`Cannot reach Corral: ${(error as Error).message}\n`, {
      status: 502,
      headers: { "content-type": "text/plain" },
    });
  }
  const headers = without(answer.headers, [...HOP_BY_HOP, ...DECODED]);
  const location = headers.get("location");
  if (location) {
    headers.set("location", localLocation(location, forwarding, server));
  }
  return new Response(answer.body, {
    status: answer.status,
    statusText: answer.statusText,
    headers,
  });
}

/**
 * Asks for the dashboard's root once before listening, so that a cluster
 * that is not ready (code 9, with its state), missing, or not the caller's
 * to proxy is refused at once, in the API's words.
 */
async function checkReachable(
  client: CorralClient,
  prefix: string,
): Promise<void> {
  const answer = await client.forward(`${prefix}/`, {
    method: "GET",
    headers: new Headers({ accept: "application/json" }),
  });
  const text = await answer.text();
  if (!answer.ok) throw client.errorOf(answer.status, text);
}

/** Listens on 127.0.0.1:`port`; a taken port names --port. */
function listen(
  port: number,
  handler: (request: Request, origin: string) => Promise<Response>,
): Deno.HttpServer<Deno.NetAddr> {
  let origin = "";
  try {
    const server = Deno.serve(
      { hostname: "127.0.0.1", port, onListen() {} },
      (request) => handler(request, origin),
    );
    origin = `http://127.0.0.1:${server.addr.port}`;
    return server;
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) {
      throw new UsageError(
        `port ${port} on 127.0.0.1 is taken: pass another --port (0 picks a free one)`,
      );
    }
    throw error;
  }
}

/** Serves the dashboard on a local port until SIGINT. */
async function dashboard(
  { values, positionals }: ParsedArgs,
): Promise<number> {
  const name = onePositional(positionals, "a cluster name", USAGE);
  const port = wholeNumber(values, "port") ?? 0;
  if (port > 65535) throw new UsageError(`--port ${port} is not a port`);
  return await withClient(values, async (client, connection) => {
    const prefix = dashboardPrefix(connection.namespace, name);
    await checkReachable(client, prefix);
    const server = connection.server.replace(/\/+$/, "");
    const listener = listen(
      port,
      (request, origin) =>
        forwardRequest(request, { client, prefix, origin }, server),
    );
    const url = `http://127.0.0.1:${listener.addr.port}/`;
    console.log(
      `Dashboard of cluster ${connection.namespace}/${name}: ${url}`,
    );
    console.log(`Forwarding to ${server}${prefix}/ (Ctrl-C to stop)`);
    const stopped = Promise.withResolvers<void>();
    const stop = () => stopped.resolve();
    Deno.addSignalListener("SIGINT", stop);
    await stopped.promise;
    Deno.removeSignalListener("SIGINT", stop);
    await listener.shutdown();
    return EXIT_OK;
  });
}
const USAGE = "clusters dashboard NAME [-n NS] [--port N]";

/** The command, as `clusters` lists it. */
export const DASHBOARD_COMMAND: Command = {
  name: "dashboard",
  completeNames: "clusters",
  summary: "open a ready cluster's Ray dashboard on a local port, until Ctrl-C",
  usage: USAGE,
  flags: {
    port: {
      type: "string",
      value: "N",
      help: "local port on 127.0.0.1 (default 0: a free one)",
    },
  },
  examples: ["corral clusters dashboard blue -n team-a --port 8265"],
  run: dashboard,
};
