/**
 * `corral version`: this command line's version (deno.json's) and the
 * server's, from `GET /version` (open without credentials).
 */
import { noPositionals, type ParsedArgs } from "./args.ts";
import { type Command, withClient, write } from "./command.ts";
import { EXIT_OK } from "./errors.ts";
import { formatObject, outputFormat } from "./output.ts";
import { OUTPUT } from "./resources.ts";
import denoJson from "../deno.json" with { type: "json" };

export const CLIENT_VERSION: string = denoJson.version;

async function version({ values, positionals }: ParsedArgs): Promise<number> {
  noPositionals(positionals, "version [-o table|json|yaml]");
  const format = outputFormat(values.output);
  // A version has no wider table.
  const table = format === "table" || format === "wide";
  if (table) console.log(`Client Version: ${CLIENT_VERSION}`);
  return await withClient(values, async (client) => {
    const server = await client.call<{ version?: string; runtime?: string }>(
      "GET",
      "/version",
    );
    if (table) {
      console.log(
        `Server Version: ${server.version ?? "unknown"}${
          server.runtime ? ` (${server.runtime})` : ""
        }`,
      );
    } else {
      write(formatObject({
        clientVersion: { version: CLIENT_VERSION },
        serverVersion: server,
      }, format as "json" | "yaml"));
    }
    return EXIT_OK;
  });
}

export const VERSION: Command = {
  name: "version",
  summary: "print the command line's and the server's versions",
  usage: "version [-o table|json|yaml]",
  flags: OUTPUT,
  run: version,
};
