/**
 * TLS on both listeners, at the listener level: HTTPS and gRPC over TLS with
 * certificates this test makes, plaintext refused, rotation by a Secret
 * volume's symlink swap reaching new connections, and the client
 * certificate's subject on the Call each transport hands the dispatcher.
 */
import assert from "node:assert/strict";
import https from "node:https";
import tls from "node:tls";
import * as grpc from "@grpc/grpc-js";
import { createGateway } from "../api/http/gateway.ts";
import { type HttpServer, serveHttp } from "../api/http/server.ts";
import { createGrpcServer } from "../api/grpc/server.ts";
import { grpcServerCredentials } from "../api/grpc/credentials.ts";
import { createLogger, silentLogger } from "../api/log.ts";
import { methodKey } from "../api/schema.ts";
import type { Call, Dispatcher } from "../api/service/dispatcher.ts";
import {
  type CertificateSource,
  readTlsFiles,
  TlsFileError,
  type TlsFiles,
  watchTlsFiles,
} from "../api/tls.ts";
import { Code, ServiceError } from "../domain/errors.ts";
import type { Logger } from "../domain/log.ts";
import { eventually } from "./eventually.ts";
import { schema } from "./harness.ts";
import {
  createCa,
  issue,
  type Issued,
  issueServer,
  SecretVolume,
} from "./test_certificates.ts";

const ca = await createCa();
const client = await issue(ca, {
  commonName: "alice",
  organizations: ["team-a", "admins"],
  usage: "client",
});
const otherCa = await createCa("Another CA");
const stranger = await issue(otherCa, {
  commonName: "mallory",
  organizations: ["admins"],
  usage: "client",
});

function serverFiles(server: Issued): Record<string, string> {
  return { "tls.crt": server.cert, "tls.key": server.key, "ca.crt": ca.cert };
}

/**
 * A dispatcher that answers every call with NOT_FOUND whose message is the
 * call's peer, so a client of either transport reads what the dispatcher
 * got.
 */
function echoPeerDispatcher(): Dispatcher {
  const echo = (call: Call) =>
    Promise.resolve({
      error: new ServiceError(
        Code.NOT_FOUND,
        JSON.stringify(call.peer ?? null),
      ),
    });
  return { log: silentLogger(), invoke: echo, serve: echo, reject() {} };
}

interface Listeners {
  volume: SecretVolume;
  source: CertificateSource;
  http: HttpServer;
  grpcPort: number;
  close(): Promise<void>;
}

/** Both listeners on 127.0.0.1 with TLS from a Secret volume. */
async function startListeners(
  server: Issued,
  options: { clientCa?: boolean; log?: Logger } = {},
): Promise<Listeners> {
  const volume = await SecretVolume.create(serverFiles(server));
  const files: TlsFiles = {
    certFile: volume.path("tls.crt"),
    keyFile: volume.path("tls.key"),
    ...(options.clientCa ? { clientCaFile: volume.path("ca.crt") } : {}),
  };
  const log = options.log ?? silentLogger();
  const source = watchTlsFiles(files, await readTlsFiles(files), {
    log,
    intervalMs: 100,
  });
  const dispatcher = echoPeerDispatcher();
  const api = await schema();
  const http = await serveHttp({
    hostname: "127.0.0.1",
    port: 0,
    handler: createGateway({ schema: api, dispatcher }),
    log,
    tls: source,
  });
  const grpcServer = createGrpcServer({ schema: api, dispatcher });
  const grpcPort = await new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync(
      "127.0.0.1:0",
      grpcServerCredentials(source),
      (error, port) => error ? reject(error) : resolve(port),
    )
  );
  return {
    volume,
    source,
    http,
    grpcPort,
    async close() {
      grpcServer.forceShutdown();
      await http.shutdown(1_000);
      await source.close();
      await volume.remove();
    },
  };
}

interface HttpsAnswer {
  status: number;
  body: string;
  /** The serial number of the certificate the server presented. */
  serial: bigint;
}

/** A GET over a new TLS connection, trusting `ca`. */
function httpsGet(
  port: number,
  path: string,
  identity?: Issued,
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const request = https.get({
      host: "127.0.0.1",
      port,
      path,
      ca: ca.cert,
      agent: false,
      ...(identity ? { cert: identity.cert, key: identity.key } : {}),
    }, (response) => {
      const socket = response.socket as tls.TLSSocket;
      const serial = BigInt(`0x${socket.getPeerCertificate().serialNumber}`);
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => body += chunk);
      response.on(
        "end",
        () => resolve({ status: response.statusCode!, body, serial }),
      );
      response.on("error", reject);
    });
    request.on("error", reject);
  });
}

/** The serial number a TLS server on `port` presents to a new connection. */
async function presentedSerial(port: number): Promise<bigint> {
  const socket = tls.connect({
    host: "127.0.0.1",
    port,
    ca: ca.cert,
    servername: "localhost",
    ALPNProtocols: ["h2"],
  });
  try {
    await new Promise((resolve, reject) => {
      socket.once("secureConnect", resolve);
      socket.once("error", reject);
    });
    return BigInt(`0x${socket.getPeerCertificate().serialNumber}`);
  } finally {
    socket.destroy();
  }
}

const serial = (issued: Issued) => BigInt(`0x${issued.serial}`);

const PATH = "/apis/v1alpha2/namespaces/team-a/clusters/blue";

/** The peer the dispatcher got, from the message of the HTTP error body. */
function httpPeer(answer: HttpsAnswer): unknown {
  assert.equal(answer.status, 404, answer.body);
  return JSON.parse(JSON.parse(answer.body).message);
}

interface GrpcAnswer {
  code: number;
  message: string;
}

/** A unary call of GetCluster over a new channel. */
async function grpcCall(
  port: number,
  credentials: grpc.ChannelCredentials,
): Promise<GrpcAnswer> {
  const api = await schema();
  const method = api.services.flatMap((s) => s.methodsArray)
    .find((m) => m.name === "GetCluster")!;
  const channel = new grpc.Client(`localhost:${port}`, credentials);
  try {
    return await new Promise((resolve) =>
      channel.makeUnaryRequest(
        `/${methodKey(method)}`,
        (bytes: Uint8Array) => Buffer.from(bytes),
        (bytes: Buffer) => bytes,
        new Uint8Array(),
        new grpc.Metadata(),
        { deadline: Date.now() + 5_000 },
        (error: grpc.ServiceError | null) =>
          resolve({ code: error?.code ?? 0, message: error?.details ?? "" }),
      )
    );
  } finally {
    channel.close();
  }
}

function tlsCredentials(identity?: Issued): grpc.ChannelCredentials {
  return grpc.credentials.createSsl(
    Buffer.from(ca.cert),
    identity ? Buffer.from(identity.key) : null,
    identity ? Buffer.from(identity.cert) : null,
  );
}

function grpcPeer(answer: GrpcAnswer): unknown {
  assert.equal(answer.code, grpc.status.NOT_FOUND, answer.message);
  return JSON.parse(answer.message);
}

Deno.test("TLS listeners: an HTTPS request and a gRPC call over TLS succeed, each with the caller's address", async () => {
  const listeners = await startListeners(await issueServer(ca));
  try {
    const https = httpPeer(await httpsGet(listeners.http.port, PATH)) as {
      address: string;
    };
    assert.match(https.address, /^127\.0\.0\.1:\d+$/);
    assert.deepEqual(Object.keys(https), ["address"]);
    const grpcAnswer = grpcPeer(
      await grpcCall(listeners.grpcPort, tlsCredentials()),
    ) as { address: string };
    assert.match(grpcAnswer.address, /^127\.0\.0\.1:\d+$/);
    assert.deepEqual(Object.keys(grpcAnswer), ["address"]);
  } finally {
    await listeners.close();
  }
});

Deno.test("TLS listeners: plaintext HTTP and plaintext gRPC are refused", async () => {
  const listeners = await startListeners(await issueServer(ca));
  try {
    // The handshake fails on the request's first bytes: the client gets a
    // TLS alert, not an HTTP answer, and the connection closes.
    const conn = await Deno.connect({
      hostname: "127.0.0.1",
      port: listeners.http.port,
    });
    await conn.write(
      new TextEncoder().encode("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
    );
    const received: number[] = [];
    const buffer = new Uint8Array(1024);
    for (;;) {
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) break;
      received.push(...buffer.subarray(0, n));
    }
    conn.close();
    assert.ok(
      !new TextDecoder().decode(new Uint8Array(received)).includes("HTTP/"),
      "no HTTP answer",
    );
    assert.ok(
      received.length === 0 || received[0] === 0x15,
      `got ${received}: want nothing or a TLS alert record (21)`,
    );
    await assert.rejects(fetch(`http://127.0.0.1:${listeners.http.port}/`));

    const plaintext = await grpcCall(
      listeners.grpcPort,
      grpc.credentials.createInsecure(),
    );
    assert.equal(plaintext.code, grpc.status.UNAVAILABLE, plaintext.message);
  } finally {
    await listeners.close();
  }
});

Deno.test("TLS listeners: a rotated certificate reaches new connections on both ports without a restart", async () => {
  const first = await issueServer(ca);
  const second = await issueServer(ca);
  const listeners = await startListeners(first);
  try {
    const { port } = listeners.http;
    assert.equal((await httpsGet(port, PATH)).serial, serial(first));
    assert.equal(await presentedSerial(listeners.grpcPort), serial(first));

    await listeners.volume.update(serverFiles(second));

    await eventually(
      "the HTTPS port to present the new certificate",
      async () =>
        (await httpsGet(port, PATH)).serial === serial(second) || undefined,
    );
    await eventually(
      "the gRPC port to present the new certificate",
      async () =>
        await presentedSerial(listeners.grpcPort) === serial(second) ||
        undefined,
    );
    // And calls still work over it.
    assert.equal((await httpsGet(port, PATH)).status, 404);
    assert.equal(
      (await grpcCall(listeners.grpcPort, tlsCredentials())).code,
      grpc.status.NOT_FOUND,
    );
  } finally {
    await listeners.close();
  }
});

Deno.test("TLS listeners: a half-written rotation keeps the certificate in force", async () => {
  const first = await issueServer(ca);
  const second = await issueServer(ca);
  const warnings: string[] = [];
  const listeners = await startListeners(first, {
    log: createLogger({ level: "warn", write: (line) => warnings.push(line) }),
  });
  try {
    // The new certificate with the old key: not a pair.
    await listeners.volume.update({
      ...serverFiles(first),
      "tls.crt": second.cert,
    });
    await eventually(
      "the half-written rotation to be read and refused",
      () =>
        Promise.resolve(
          warnings.some((l) => l.includes("Kept the TLS certificate in force"))
            ? true
            : undefined,
        ),
    );
    assert.equal(listeners.source.current.cert, first.cert);
    assert.equal(
      (await httpsGet(listeners.http.port, PATH)).serial,
      serial(first),
    );
    assert.equal(await presentedSerial(listeners.grpcPort), serial(first));
    await listeners.volume.update(serverFiles(second));
    await eventually("the complete rotation to be taken", () =>
      Promise.resolve(
        listeners.source.current.cert === second.cert || undefined,
      ));
  } finally {
    await listeners.close();
  }
});

Deno.test("TLS listeners: a client certificate's CN and O reach the Call on both transports", async () => {
  const listeners = await startListeners(await issueServer(ca), {
    clientCa: true,
  });
  try {
    const want = { commonName: "alice", organizations: ["team-a", "admins"] };
    const viaHttps = httpPeer(
      await httpsGet(listeners.http.port, PATH, client),
    ) as { certificate: unknown };
    assert.deepEqual(viaHttps.certificate, want);
    const viaGrpc = grpcPeer(
      await grpcCall(listeners.grpcPort, tlsCredentials(client)),
    ) as { certificate: unknown };
    assert.deepEqual(viaGrpc.certificate, want);
  } finally {
    await listeners.close();
  }
});

Deno.test("TLS listeners: without a client certificate, or with one of another CA, a client connects with no identity", async (t) => {
  const listeners = await startListeners(await issueServer(ca), {
    clientCa: true,
  });
  try {
    for (
      const [name, identity] of [
        ["no certificate", undefined],
        ["a certificate of another CA", stranger],
      ] as const
    ) {
      await t.step(name, async () => {
        const viaHttps = httpPeer(
          await httpsGet(listeners.http.port, PATH, identity),
        ) as Record<string, unknown>;
        assert.deepEqual(Object.keys(viaHttps), ["address"]);
        const viaGrpc = grpcPeer(
          await grpcCall(listeners.grpcPort, tlsCredentials(identity)),
        ) as Record<string, unknown>;
        assert.deepEqual(Object.keys(viaGrpc), ["address"]);
      });
    }
  } finally {
    await listeners.close();
  }
});

Deno.test("TLS listeners: without --client-ca-file a client certificate is not asked for nor taken", async () => {
  const listeners = await startListeners(await issueServer(ca));
  try {
    const viaHttps = httpPeer(
      await httpsGet(listeners.http.port, PATH, client),
    ) as Record<string, unknown>;
    assert.deepEqual(Object.keys(viaHttps), ["address"]);
    const viaGrpc = grpcPeer(
      await grpcCall(listeners.grpcPort, tlsCredentials(client)),
    ) as Record<string, unknown>;
    assert.deepEqual(Object.keys(viaGrpc), ["address"]);
  } finally {
    await listeners.close();
  }
});

Deno.test("HTTPS listener: a client that sends no request, or no handshake, is closed at the header time-out", async () => {
  const volume = await SecretVolume.create(
    serverFiles(await issueServer(ca)),
  );
  const files = {
    certFile: volume.path("tls.crt"),
    keyFile: volume.path("tls.key"),
  };
  const source = watchTlsFiles(files, await readTlsFiles(files), {
    log: silentLogger(),
  });
  const server = await serveHttp({
    hostname: "127.0.0.1",
    port: 0,
    handler: () => Promise.resolve(new Response("hello")),
    log: silentLogger(),
    headerTimeoutMs: 300,
    tls: source,
  });
  try {
    const socket = tls.connect({
      host: "127.0.0.1",
      port: server.port,
      ca: ca.cert,
      servername: "localhost",
    });
    const started = Date.now();
    await new Promise((resolve, reject) => {
      socket.once("secureConnect", resolve);
      socket.once("error", reject);
    });
    await new Promise((resolve) => socket.once("close", resolve));
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 5_000, `closed after ${elapsed} ms`);

    // And one that never begins the handshake, at the same time-out.
    const conn = await Deno.connect({
      hostname: "127.0.0.1",
      port: server.port,
    });
    const opened = Date.now();
    const n = await conn.read(new Uint8Array(16)).catch(() => null);
    conn.close();
    const waited = Date.now() - opened;
    assert.equal(n, null);
    assert.ok(waited < 5_000, `closed after ${waited} ms`);
  } finally {
    await server.shutdown(1_000);
    await source.close();
    await volume.remove();
  }
});

Deno.test("readTlsFiles() names the flag and file it cannot use", async (t) => {
  const server = await issueServer(ca);
  const other = await issueServer(ca);
  const dir = await Deno.makeTempDir();
  try {
    const write = async (name: string, text: string) => {
      await Deno.writeTextFile(`${dir}/${name}`, text);
      return `${dir}/${name}`;
    };
    const cert = await write("tls.crt", server.cert);
    const key = await write("tls.key", server.key);
    const cases: [string, TlsFiles, string, RegExp][] = [
      [
        "a missing certificate",
        { certFile: `${dir}/missing.crt`, keyFile: key },
        "--tls-cert-file",
        /^Cannot use --tls-cert-file ".*missing\.crt": /,
      ],
      [
        "a key that is no key",
        { certFile: cert, keyFile: await write("bad.key", "nonsense") },
        "--tls-private-key-file",
        /not a PEM private key$/,
      ],
      [
        "a certificate that is no certificate",
        { certFile: key, keyFile: key },
        "--tls-cert-file",
        /not a PEM certificate$/,
      ],
      [
        "the key of another certificate",
        { certFile: cert, keyFile: await write("other.key", other.key) },
        "--tls-private-key-file",
        /not the private key of the certificate in/,
      ],
      [
        "a client CA that is no certificate",
        { certFile: cert, keyFile: key, clientCaFile: key },
        "--client-ca-file",
        /not a PEM certificate$/,
      ],
    ];
    for (const [name, files, flag, message] of cases) {
      await t.step(name, async () => {
        const error = await readTlsFiles(files).then(
          () => assert.fail("read"),
          (error) => error,
        );
        assert.ok(error instanceof TlsFileError, String(error));
        assert.equal(error.flag, flag);
        assert.match(error.message, message);
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("TLS listeners: a certificate with several CNs is its last CN on both transports, as in Go and the Kubernetes API server", async () => {
  // issue() writes the subject "CN=<commonName>, O=...": this common name
  // makes it two CN attributes, in this order in the certificate.
  const twoNames = await issue(ca, {
    commonName: "mallory, CN=alice",
    organizations: ["team-a"],
    usage: "client",
  });
  const inOrder = twoNames.certificate.subjectName.getField("CN");
  assert.deepEqual(inOrder, ["mallory", "alice"], "the certificate's CNs");
  const listeners = await startListeners(await issueServer(ca), {
    clientCa: true,
  });
  try {
    const want = { commonName: "alice", organizations: ["team-a"] };
    const viaHttps = httpPeer(
      await httpsGet(listeners.http.port, PATH, twoNames),
    ) as { certificate: unknown };
    assert.deepEqual(viaHttps.certificate, want, "HTTPS");
    const viaGrpc = grpcPeer(
      await grpcCall(listeners.grpcPort, tlsCredentials(twoNames)),
    ) as { certificate: unknown };
    assert.deepEqual(viaGrpc.certificate, want, "gRPC");
  } finally {
    await listeners.close();
  }
});
