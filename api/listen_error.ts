/** What a listener that cannot bind says, for either transport. */

/** "the HTTP address 0.0.0.0:8888 is in use" */
export function listenError(
  what: string,
  host: string,
  port: number,
  error: Error,
): Error {
  const inUse = /EADDRINUSE|address already in use/i.test(
    `${(error as { code?: string }).code} ${error.message}`,
  );
  const address = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  return new Error(
    inUse
      ? `the ${what} address ${address} is in use`
      : `cannot listen for ${what} on ${address}: ${error.message}`,
    { cause: error },
  );
}
