/**
 * Fuzzing the credentials: a seeded generator of Authorization header (and
 * gRPC `authorization` metadata) values: other schemes, the scheme's case,
 * spacing, lengths up to the header limit, control characters, near misses
 * of a valid token (one character changed, dropped or added, a prefix or a
 * suffix of it), JWT-shaped garbage, Basic, several values at once. Sent
 * through the gateway function, the HTTP listener over raw sockets and the
 * gRPC server. Every answer must be refused with 16 unless the value is
 * exactly `Bearer <a valid token>` (scheme in any case), never a 5xx,
 * INTERNAL or UNKNOWN, and never repeat the token sent.
 *
 * The seed is random and printed; FUZZ_SEED=<n> replays a run.
 */
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { type Corral, listening, startCorral } from "../../harness.ts";
import { Rng } from "../../random.ts";
import {
  bearer,
  fileAccess,
  PEOPLE,
  type TestAccess,
} from "./access_fixtures.ts";

const SEED = Number(Deno.env.get("FUZZ_SEED") ?? Date.now() % 2 ** 31);
const HTTP_COUNT = 3_000;
const SOCKET_COUNT = 300;
const GRPC_COUNT = 1_500;
/** The HTTP listener's limit on a request head (serveHttp's default). */
const HEADER_LIMIT = 16 * 1024;

const TOKENS = PEOPLE.map((p) => p.token);
const VALID = new Set(TOKENS);
const PATH = "/apis/v1alpha2/namespaces/team-a/clusters";
const RPC = "proto.ClusterService/ListCluster";

const B64TOKEN =
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/";
const PRINTABLE =
  " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~";
/** C0 controls and DEL, without NUL, CR and LF, which no header may hold. */
const CONTROLS = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i))
  .filter((c) => !"\0\r\n".includes(c)).join("") + "\x7f";

interface Fuzzed {
  category: string;
  /** One value per Authorization header or metadata entry. */
  values: string[];
}

/** A valid token changed a little: a near miss. */
function nearMiss(rng: Rng, token: string): string {
  const at = rng.int(token.length);
  const other = (c: string) => {
    let d;
    do d = rng.pick([...B64TOKEN]); while (d === c);
    return d;
  };
  switch (rng.int(7)) {
    case 0:
      return token.slice(0, at) + other(token[at]) + token.slice(at + 1);
    case 1:
      return token.slice(0, at) + token.slice(at + 1);
    case 2:
      return token.slice(0, at) + rng.pick([...B64TOKEN]) + token.slice(at);
    case 3:
      return token.slice(0, 1 + rng.int(token.length - 1));
    case 4:
      return token + rng.string(1 + rng.int(8), B64TOKEN);
    case 5:
      return token.slice(1 + rng.int(token.length - 1));
    default: {
      const flipped = token[at] === token[at].toUpperCase()
        ? token[at].toLowerCase()
        : token[at].toUpperCase();
      return flipped === token[at]
        ? token + "="
        : token.slice(0, at) + flipped + token.slice(at + 1);
    }
  }
}

function base64url(text: string): string {
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(
    /=+$/,
    "",
  );
}

function randomCase(rng: Rng, text: string): string {
  return [...text].map((c) => rng.chance(0.5) ? c.toUpperCase() : c).join("");
}

/** One generated header value (or several), of `maxLength` at most. */
function generate(rng: Rng, maxLength: number): Fuzzed {
  const token = rng.pick(TOKENS);
  switch (rng.int(9)) {
    case 0: {
      const scheme = rng.pick([
        "Bearer",
        "Bearer:",
        "Bearer=",
        "Bearerx",
        "Beare",
        "Token",
        "JWT",
        "OAuth",
        "Digest",
        "Negotiate",
        "",
        rng.string(1 + rng.int(10), "abcdefghijklmnopqrstuvwxyz"),
      ]);
      const space = rng.pick([" ", "", "  ", "\t", " \t", ":", "=", ","]);
      return {
        category: "scheme and separator",
        values: [`${randomCase(rng, scheme)}${space}${token}`],
      };
    }
    case 1:
      return {
        category: "scheme in any case",
        values: [
          `${randomCase(rng, "bearer")} ${
            rng.chance(0.5) ? token : nearMiss(rng, token)
          }`,
        ],
      };
    case 2:
      return {
        category: "near-miss token",
        values: [`Bearer ${nearMiss(rng, token)}`],
      };
    case 3: {
      const header = base64url(JSON.stringify(
        rng.pick([
          { alg: "none", typ: "JWT" },
          { alg: "HS256", typ: "JWT" },
          { alg: "RS256", kid: rng.string(8, B64TOKEN) },
        ]),
      ));
      const payload = base64url(JSON.stringify({
        iss: "https://127.0.0.1",
        sub: rng.pick(PEOPLE).user,
        aud: "corral",
        exp: Math.floor(Date.now() / 1000) + 3600,
      }));
      const signature = rng.chance(0.3) ? "" : base64url(rng.string(
        32 + rng.int(200),
        PRINTABLE,
      ));
      return {
        category: "JWT-shaped garbage",
        values: [`Bearer ${header}.${payload}.${signature}`],
      };
    }
    case 4:
      return {
        category: "Basic",
        values: [
          rng.chance(0.5)
            ? `Basic ${btoa(`${rng.pick(PEOPLE).user}:${token}`)}`
            : `${randomCase(rng, "basic")} ${token}`,
        ],
      };
    case 5: {
      const valid = `Bearer ${token}`;
      const at = rng.int(valid.length + 1);
      const inserted = rng.string(1 + rng.int(3), CONTROLS);
      return {
        category: "control characters",
        values: [valid.slice(0, at) + inserted + valid.slice(at)],
      };
    }
    case 6: {
      const length = rng.chance(0.5)
        ? rng.int(maxLength)
        : maxLength - rng.int(64);
      const body = rng.chance(0.5)
        ? rng.string(Math.max(1, length - 7), B64TOKEN)
        : (token + rng.string(length, B64TOKEN)).slice(0, length);
      return { category: "long", values: [`Bearer ${body}`] };
    }
    case 7: {
      const other = rng.pick(TOKENS);
      const garbage = `Bearer ${nearMiss(rng, token)}`;
      return {
        category: "several values",
        values: rng.pick([
          [`Bearer ${token}`, garbage],
          [garbage, `Bearer ${token}`],
          [`Bearer ${token}`, `Bearer ${other}`],
          [`Bearer ${token}`, `Bearer ${token}`],
          [`Bearer ${token}`, ""],
          [`Bearer ${token}, Bearer ${other}`],
          [`Bearer ${token},`],
        ]),
      };
    }
    default: {
      const inner = rng.chance(0.5) ? token : nearMiss(rng, token);
      return {
        category: "spacing",
        values: [
          rng.pick([
            `Bearer  ${inner}`,
            `Bearer\t${inner}`,
            ` Bearer ${inner}`,
            `Bearer ${inner} `,
            `Bearer ${inner} x`,
            `Bearer ${inner.slice(0, 5)} ${inner.slice(5)}`,
            `Bearer${inner}`,
            `\tBearer ${inner}\t`,
          ]),
        ],
      };
    }
  }
}

/**
 * Whether the value as the server reads it is `Bearer <a valid token>`,
 * the only thing to let through. Several values never are.
 */
function acceptable(values: string[]): boolean {
  if (values.length !== 1) return false;
  const match = /^bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(values[0]);
  return match !== null && VALID.has(match[1]);
}

/** The token-like runs of the values, which no message may repeat. */
function secrets(values: string[]): string[] {
  return values.flatMap((v) => v.split(/[^A-Za-z0-9\-._~+/=]+/))
    .filter((piece) => piece.length >= 8 && piece.toLowerCase() !== "bearer");
}

function describe(fuzzed: Fuzzed): string {
  return `[${fuzzed.category}] ${
    JSON.stringify(fuzzed.values.map((v) =>
      v.length > 120 ? `${v.slice(0, 120)}... (${v.length})` : v
    ))
  }`;
}

interface Answer {
  /** HTTP status, or undefined for gRPC. */
  status?: number;
  code: number;
  message: string;
}

/** Whether the answer is the right one for what the server read. */
function problemOf(read: string[], answer: Answer): string | undefined {
  if (answer.status !== undefined && answer.status >= 500) {
    return `status ${answer.status}`;
  }
  if ([2, 13, 14].includes(answer.code)) return `code ${answer.code}`;
  const leaked = secrets(read).find((s) => answer.message.includes(s));
  if (leaked) return `the message repeats "${leaked}"`;
  if (acceptable(read)) {
    return answer.code === 16 ? "a valid token was refused" : undefined;
  }
  if (answer.code === 0) return "accepted";
  return undefined;
}

async function withCorral(
  fn: (corral: Corral, files: TestAccess) => Promise<void>,
): Promise<void> {
  const files = await fileAccess();
  const corral = await startCorral({ access: files.access });
  try {
    await fn(corral, files);
  } finally {
    await corral.close();
    await files.close();
  }
}

function report(failures: string[], seed: number): void {
  assert.deepEqual(
    failures,
    [],
    `FUZZ_SEED=${seed}: ${failures.length} bad answer(s):\n${
      failures.join("\n")
    }`,
  );
}

Deno.test(`the gateway refuses ${HTTP_COUNT} generated Authorization headers unless exactly Bearer and a valid token (FUZZ_SEED=${SEED})`, async () => {
  await withCorral(async (corral) => {
    const rng = new Rng(SEED);
    const failures: string[] = [];
    const categories = new Map<string, number>();
    let accepted = 0;
    for (let i = 0; i < HTTP_COUNT && failures.length < 10; i++) {
      const fuzzed = generate(rng, HEADER_LIMIT - 200);
      categories.set(
        fuzzed.category,
        (categories.get(fuzzed.category) ?? 0) + 1,
      );
      const headers = new Headers();
      for (const value of fuzzed.values) headers.append("authorization", value);
      // What the gateway reads: one value, the header's values joined and
      // trimmed of surrounding whitespace, as fetch's Headers does.
      const read = [headers.get("authorization") ?? ""];
      const response = await corral.gateway(
        new Request(`http://corral.test${PATH}`, { headers }),
      );
      const body = await response.json();
      const answer = {
        status: response.status,
        code: body.code ?? 0,
        message: body.message ?? "",
      };
      let problem = problemOf(read, answer);
      if (
        !problem && answer.code === 16 &&
        response.headers.get("www-authenticate") !== 'Bearer realm="corral"'
      ) {
        problem = "401 without WWW-Authenticate";
      }
      if (answer.code !== 16) accepted++;
      if (problem) {
        failures.push(
          `#${i} ${problem}: ${describe(fuzzed)} -> ${response.status} ${
            JSON.stringify(body).slice(0, 200)
          }`,
        );
      }
    }
    report(failures, SEED);
    assert.equal(categories.size, 9, JSON.stringify([...categories]));
    assert.ok(accepted > 0, "some generated values were valid");
  });
});

/**
 * One GET over a new connection, the header written as the bytes given;
 * the status line's code and the body. Bounded: the connection is closed
 * after 5 s.
 */
async function rawGet(
  port: number,
  header: string,
): Promise<{ status: number; body: string }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const timer = setTimeout(() => conn.close(), 5_000);
  try {
    const head = `GET ${PATH} HTTP/1.1\r\nhost: corral.test\r\n` +
      `authorization: ${header}\r\nconnection: close\r\n\r\n`;
    // Latin-1: each character one byte, as it was generated.
    await conn.write(Uint8Array.from(head, (c) => c.charCodeAt(0)));
    const chunks: Uint8Array[] = [];
    const buffer = new Uint8Array(64 * 1024);
    for (;;) {
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) break;
      chunks.push(buffer.slice(0, n));
    }
    const text = new TextDecoder().decode(
      Uint8Array.from(chunks.flatMap((c) => [...c])),
    );
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
    return { status, body: text.slice(text.indexOf("\r\n\r\n") + 4) };
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch {
      // closed by the timer
    }
  }
}

Deno.test(`the HTTP listener refuses ${SOCKET_COUNT} generated Authorization headers sent as raw bytes (FUZZ_SEED=${SEED})`, async () => {
  await withCorral(async (corral) => {
    const server = await listening(corral);
    try {
      const rng = new Rng(SEED ^ 0x1b873593);
      const failures: string[] = [];
      const statuses = new Map<number, number>();
      for (let i = 0; i < SOCKET_COUNT && failures.length < 10; i++) {
        // One value: a second would be a second header line.
        let fuzzed: Fuzzed;
        do fuzzed = generate(rng, HEADER_LIMIT + 256); while (
          fuzzed.values.length !== 1
        );
        const value = fuzzed.values[0];
        const got = await rawGet(server.port, value);
        statuses.set(got.status, (statuses.get(got.status) ?? 0) + 1);
        let body: { code?: number; message?: string } = {};
        try {
          body = JSON.parse(got.body);
        } catch {
          // judged below by its status
        }
        // The parser takes the value without the whitespace around it.
        const read = [value.replace(/^[ \t]+|[ \t]+$/g, "")];
        const answer = {
          status: got.status,
          code: body.code ?? (got.status === 200 ? 0 : -1),
          message: body.message ?? "",
        };
        let problem = problemOf(read, answer);
        if (!problem && got.status === 0) problem = "no answer";
        if (
          !problem && !acceptable(read) &&
          ![400, 401, 431].includes(got.status)
        ) {
          problem = `status ${got.status}`;
        }
        if (problem) {
          failures.push(
            `#${i} ${problem}: ${describe(fuzzed)} -> ${got.status} ${
              got.body.slice(0, 200)
            }`,
          );
        }
      }
      report(failures, SEED ^ 0x1b873593);
      assert.ok(statuses.has(401), JSON.stringify([...statuses]));
    } finally {
      await server.shutdown(0);
    }
  });
});

Deno.test(`the gRPC server refuses ${GRPC_COUNT} generated authorization metadata values unless exactly Bearer and a valid token (FUZZ_SEED=${SEED})`, async () => {
  await withCorral(async (corral) => {
    const rng = new Rng(SEED ^ 0x5bd1e995);
    const failures: string[] = [];
    const categories = new Map<string, number>();
    let unsendable = 0;
    for (let i = 0; i < GRPC_COUNT && failures.length < 10; i++) {
      // grpc-js' default limit on received metadata is 8 KiB.
      const fuzzed = generate(rng, 8 * 1024 - 200);
      // grpc-js sends neither several authorization values (its client
      // fails the call itself, with INTERNAL) nor anything but printable
      // ASCII. Nor could a server tell several apart: the HTTP/2 layer hands
      // grpc-js the first authorization field only, as Go's Header.Get does.
      if (fuzzed.values.length > 1) {
        unsendable++;
        continue;
      }
      const metadata = new grpc.Metadata();
      try {
        metadata.set("authorization", fuzzed.values[0]);
      } catch {
        unsendable++;
        continue;
      }
      categories.set(
        fuzzed.category,
        (categories.get(fuzzed.category) ?? 0) + 1,
      );
      const got = await corral.grpc.call(
        RPC,
        { namespace: "team-a" },
        metadata,
      );
      const problem = problemOf(fuzzed.values, got);
      if (problem) {
        failures.push(
          `#${i} ${problem}: ${describe(fuzzed)} -> ${got.code} ${
            got.message.slice(0, 200)
          }`,
        );
      }
    }
    report(failures, SEED ^ 0x5bd1e995);
    assert.ok(categories.size >= 8, JSON.stringify([...categories]));
    assert.ok(unsendable < GRPC_COUNT / 3, `unsendable: ${unsendable}`);
    // Still serving.
    const metadata = new grpc.Metadata();
    metadata.set("authorization", bearer(PEOPLE[0]));
    const list = await corral.grpc.call(RPC, { namespace: "team-a" }, metadata);
    assert.equal(list.code, 0, list.message);
  });
});
