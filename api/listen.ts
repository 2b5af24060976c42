/** What the listeners say of their addresses, for either transport. */

/**
 * "the HTTP address 0.0.0.0:8888 is in use", and with `change` (the flag
 * that sets the port, and its environment variable) how to pick another.
 */
export function listenError(
  what: string,
  host: string,
  port: number,
  error: Error,
  change?: { flag: string; env: string },
): Error {
  const inUse = /EADDRINUSE|address already in use/i.test(
    `${(error as { code?: string }).code} ${error.message}`,
  );
  const address = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  return new Error(
    inUse
      ? `the ${what} address ${address} is in use${
        change
          ? `: choose another port with --${change.flag} (or ${change.env}; 0 picks a free one)`
          : ""
      }`
      : `cannot listen for ${what} on ${address}: ${error.message}`,
    { cause: error },
  );
}

/**
 * The URLs a person wants at start-up: the API base, the console, the docs
 * page and the gRPC addresses, reachable from this host (a wildcard address
 * as localhost); the second gRPC port's only when there is one.
 */
export function serviceUrls(
  options: {
    host: string;
    httpPort: number;
    grpcPort: number;
    kuberayGrpcPort?: number;
    tls: boolean;
  },
): {
  api: string;
  console: string;
  docs: string;
  grpc: string;
  kuberayGrpc?: string;
} {
  const host = ["0.0.0.0", "::", ""].includes(options.host)
    ? "localhost"
    : options.host.includes(":")
    ? `[${options.host}]`
    : options.host;
  const base = `${
    options.tls ? "https" : "http"
  }://${host}:${options.httpPort}`;
  return {
    api: `${base}/apis/v1alpha2`,
    console: `${base}/console`,
    docs: `${base}/docs`,
    grpc: `${host}:${options.grpcPort}`,
    ...(options.kuberayGrpcPort === undefined
      ? {}
      : { kuberayGrpc: `${host}:${options.kuberayGrpcPort}` }),
  };
}
