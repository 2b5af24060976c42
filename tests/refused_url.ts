/**
 * A loopback URL at which nothing answers, for the tests of what a client
 * says when its server is not there.
 *
 * A port taken with `port: 0` and closed again is not that: on a busy
 * machine, with the suite's files running in parallel, the kernel hands the
 * same ephemeral port to the next test that listens, and the client then
 * reaches that test's server (seen here: exit 1 where 3 was wanted). Port 4
 * is below the ephemeral range, so no listener on port 0 is ever given it,
 * no test binds it, and it is not one of the ports fetch refuses to use.
 */
export const REFUSED_PORT = 4;

/** `http://127.0.0.1:4`, checked to refuse connections now. */
export async function refusedUrl(): Promise<string> {
  try {
    const connection = await Deno.connect({
      hostname: "127.0.0.1",
      port: REFUSED_PORT,
    });
    connection.close();
  } catch (error) {
    if (error instanceof Deno.errors.ConnectionRefused) {
      return `http://127.0.0.1:${REFUSED_PORT}`;
    }
    throw error;
  }
  throw new Error(
    `Something listens on 127.0.0.1:${REFUSED_PORT}: the tests need a port that refuses connections there`,
  );
}
