/**
 * A byte stream carried in a WebSocket's binary messages (RFC 6455), the
 * server's end, on a raw upgraded connection: what the Ray client tunnel
 * (client_tunnel.ts) speaks to its caller in front of a TCP connection.
 *
 * Frames are decoded as they come, never gathered into messages: each
 * data frame's payload is written on as it is, so a message split in
 * frames, or frames split across reads, come out as the same bytes.
 * Text frames and reserved bits are protocol errors (no extension is
 * negotiated); pings are answered. The caller's close ends the byte
 * stream's writing side (a half-close) after the close is answered; the
 * other side's end is a close (1000) to the caller.
 */
import type { Duplex } from "node:stream";
import {
  CLOSE,
  closePayload,
  encodeFrame,
  type Frame,
  FrameDecoder,
  FrameError,
  OPCODE,
} from "../../domain/websocket_frames.ts";

/**
 * Joins the caller's upgraded connection (`client`, after the 101, with
 * `head` already read from it) to `upstream`, a byte stream: binary
 * messages one way, bytes as binary frames the other, until either end
 * closes; `ended` once both connections are done with.
 */
export function spliceWebSocket(
  client: Duplex,
  head: Uint8Array,
  upstream: Duplex,
  ended: () => void,
): () => void {
  const decoder = new FrameDecoder();
  let closeSent = false;
  let finished = false;
  const sendClose = (code: number, reason?: string) => {
    if (closeSent) return;
    closeSent = true;
    client.end(encodeFrame(OPCODE.close, closePayload(code, reason)));
  };
  const end = () => {
    if (finished) return;
    finished = true;
    client.destroy();
    // A half-close sent on (the caller's close) reaches the upstream first.
    if (upstream.writableEnded && !upstream.writableFinished) {
      upstream.once("finish", () => upstream.destroy());
      upstream.once("error", () => upstream.destroy());
    } else upstream.destroy();
    ended();
  };
  const onFrame = (frame: Frame) => {
    switch (frame.opcode) {
      case OPCODE.binary:
      case OPCODE.continuation:
        if (!upstream.writableEnded && !upstream.write(frame.payload)) {
          client.pause();
          upstream.once("drain", () => client.resume());
        }
        return;
      case OPCODE.ping:
        if (!closeSent) client.write(encodeFrame(OPCODE.pong, frame.payload));
        return;
      case OPCODE.pong:
        return;
      case OPCODE.close:
        // The caller is done sending: the upstream's writing side ends,
        // the close is answered, and the connection ends with it.
        upstream.end();
        sendClose(CLOSE.normal);
        return;
      case OPCODE.text:
        throw new FrameError(CLOSE.unsupportedData, "text messages");
      default:
        throw new FrameError(CLOSE.protocolError, "an unknown opcode");
    }
  };
  const onClientData = (chunk: Uint8Array) => {
    try {
      for (const frame of decoder.push(chunk)) onFrame(frame);
    } catch (error) {
      if (!(error instanceof FrameError)) throw error;
      upstream.end();
      sendClose(error.code, error.message);
    }
  };
  upstream.on("data", (chunk: Uint8Array) => {
    if (closeSent) return;
    if (!client.write(encodeFrame(OPCODE.binary, chunk))) {
      upstream.pause();
      client.once("drain", () => upstream.resume());
    }
  });
  // The upstream's end (its FIN) closes the WebSocket.
  upstream.once("end", () => sendClose(CLOSE.normal));
  client.on("data", onClientData);
  for (const socket of [client, upstream]) {
    socket.once("close", end);
    socket.on("error", end);
  }
  if (client.destroyed || upstream.destroyed) {
    end();
    return end;
  }
  if (head.length > 0) onClientData(head);
  upstream.resume();
  return end;
}
