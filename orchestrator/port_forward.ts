/**
 * A TCP connection to a pod's port through the Kubernetes API server's
 * port forwarding (`pods/{name}/portforward`), as `kubectl port-forward`
 * makes one: a WebSocket of subprotocol `v4.channel.k8s.io`, whose binary
 * messages each start with their channel's number. For one port, channel
 * 0 carries its data and channel 1 its errors; the first two bytes of each
 * are the port's number (little-endian), which the server sends once.
 *
 * The channel protocol has no half-close: ending the connection's writing
 * side closes the WebSocket, and with it the connection. What the pod's
 * port sends is read as it comes; an error on channel 1 destroys the
 * connection with its text.
 */
import { Buffer } from "node:buffer";
import { randomBytes } from "node:crypto";
import { Duplex } from "node:stream";
import {
  acceptKey,
  CLOSE,
  closePayload,
  encodeFrame,
  type Frame,
  FrameDecoder,
  FrameError,
  OPCODE,
} from "../domain/websocket_frames.ts";
import { dialUrl } from "./cluster_access.ts";
import { readAnswerHead } from "./answer_head.ts";

/** The channel protocol Kubernetes' WebSocket port forwarding speaks. */
export const PORT_FORWARD_PROTOCOL = "v4.channel.k8s.io";

export interface PortForwardOptions {
  /** `<server>/api/v1/namespaces/{ns}/pods/{pod}/portforward?ports={port}`. */
  url: string;
  /** The credentials' headers (a bearer token). */
  headers: Record<string, string>;
  tls: {
    ca?: string;
    cert?: string;
    key?: string;
    rejectUnauthorized: boolean;
  };
  signal: AbortSignal;
}

/**
 * The forwarded connection, once the API server has accepted the
 * WebSocket. Rejects with the API server's status when it refuses (403
 * without RBAC's pods/portforward), or when it cannot be reached.
 */
export async function portForward(
  options: PortForwardOptions,
): Promise<Duplex> {
  const socket = await dialUrl(options.url, options.signal, options.tls);
  try {
    const key = randomBytes(16).toString("base64");
    socket.write(handshake(options.url, key, options.headers));
    const { status, headers, rest } = await readAnswerHead(
      socket,
      options.signal,
      "the API server",
    );
    if (status !== 101) {
      throw new Error(`the API server answered the port forwarding ${status}`);
    }
    if (headers.get("sec-websocket-accept") !== acceptKey(key)) {
      throw new Error("the API server's WebSocket accept key is not the key's");
    }
    return forwarded(socket, rest);
  } catch (error) {
    socket.destroy();
    throw error;
  }
}

function handshake(
  url: string,
  key: string,
  headers: Record<string, string>,
): string {
  const target = new URL(url);
  const lines = [
    `GET ${target.pathname}${target.search} HTTP/1.1`,
    `host: ${target.host}`,
    "connection: Upgrade",
    "upgrade: websocket",
    "sec-websocket-version: 13",
    `sec-websocket-key: ${key}`,
    `sec-websocket-protocol: ${PORT_FORWARD_PROTOCOL}`,
  ];
  for (const [name, value] of Object.entries(headers)) {
    lines.push(`${name}: ${value}`);
  }
  return lines.join("\r\n") + "\r\n\r\n";
}

/** A client's frame: masked with a fresh key. */
function clientFrame(opcode: number, payload: Uint8Array): Buffer {
  return encodeFrame(opcode, payload, randomBytes(4));
}

/** The port's connection over the accepted WebSocket `socket`. */
function forwarded(socket: Duplex, rest: Buffer): Duplex {
  const decoder = new FrameDecoder({ masked: false });
  /** The port number's bytes still to skip, by channel. */
  const prefix = [2, 2];
  let errors = "";
  let closeSent = false;
  const sendClose = () => {
    if (closeSent) return;
    closeSent = true;
    socket.end(clientFrame(OPCODE.close, closePayload(CLOSE.normal)));
  };
  const connection = new Duplex({
    write(chunk: Buffer, _encoding, callback) {
      if (closeSent) return callback();
      socket.write(
        clientFrame(OPCODE.binary, Buffer.concat([Buffer.of(0), chunk])),
        callback,
      );
    },
    final(callback) {
      sendClose();
      callback();
    },
    read() {
      socket.resume();
    },
    destroy(error, callback) {
      socket.destroy();
      callback(error);
    },
  });
  const onFrame = (frame: Frame) => {
    switch (frame.opcode) {
      case OPCODE.binary:
      case OPCODE.continuation: {
        const channel = frame.payload[0];
        let data = frame.payload.subarray(1);
        if (channel > 1) return;
        const skipped = Math.min(prefix[channel], data.length);
        prefix[channel] -= skipped;
        data = data.subarray(skipped);
        if (data.length === 0) return;
        if (channel === 1) {
          errors += data.toString();
          connection.destroy(new Error(`port forwarding failed: ${errors}`));
        } else if (!connection.push(data)) socket.pause();
        return;
      }
      case OPCODE.ping:
        if (!closeSent) socket.write(clientFrame(OPCODE.pong, frame.payload));
        return;
      case OPCODE.close:
        connection.push(null);
        sendClose();
        return;
      default:
        return;
    }
  };
  const onData = (chunk: Uint8Array) => {
    try {
      for (const frame of decoder.push(chunk)) onFrame(frame);
    } catch (error) {
      if (!(error instanceof FrameError)) throw error;
      connection.destroy(new Error(`port forwarding: ${error.message}`));
    }
  };
  socket.on("data", onData);
  socket.once("end", () => connection.push(null));
  socket.once("close", () => {
    if (connection.readableEnded) return void connection.destroy();
    // What was read is given first; then the connection goes.
    connection.once("end", () => connection.destroy());
    connection.push(null);
  });
  socket.on("error", (error) => connection.destroy(error));
  if (rest.length > 0) onData(rest);
  return connection;
}
