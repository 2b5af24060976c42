/**
 * Answers written on a bare socket (a refused CONNECT or upgrade, a request
 * node:http's parser gave up on) as whole HTTP/1.1 messages.
 */
import http from "node:http";
import type { Duplex } from "node:stream";
import { rawErrorAnswer } from "./error_answers.ts";
import type { Refusal } from "./listener_refusals.ts";

/**
 * `response` written on a bare socket as an HTTP/1.1 answer whose body ends
 * where the connection does; the socket ends after it.
 */
export async function writeRawResponse(
  socket: Duplex,
  response: Response,
  method: string | undefined,
): Promise<void> {
  const lines = [
    `HTTP/1.1 ${response.status} ${http.STATUS_CODES[response.status] ?? ""}`,
  ];
  for (const [name, value] of response.headers) {
    if (name === "connection" || name === "transfer-encoding") continue;
    lines.push(`${name}: ${value}`);
  }
  lines.push("connection: close", "", "");
  socket.write(lines.join("\r\n"));
  if (method !== "HEAD" && response.body) {
    for await (const chunk of response.body) {
      if (socket.destroyed) break;
      if (!socket.write(chunk)) {
        await new Promise((resolve) => {
          socket.once("drain", resolve);
          socket.once("close", resolve);
        });
      }
    }
  } else await response.body?.cancel();
  socket.end();
}

/** A refusal as a whole HTTP/1.1 message, for a bare socket. */
export function rawAnswer(refusal: Refusal): string {
  return rawErrorAnswer(refusal.error, refusal);
}
