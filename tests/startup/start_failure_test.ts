/**
 * What a failed start says, called directly: the error's message, and for
 * a permission Deno refused, what to do in place of Deno's own advice.
 */
import assert from "node:assert/strict";
import { createLogger } from "../../api/log.ts";
import { TlsFileError } from "../../api/tls.ts";
import {
  logStartFailure,
  permissionHint,
  startMessage,
} from "../../startup/start_failure.ts";

/** A refused read of `path`, worded as Deno words it, under `context`. */
function refusedRead(path: string, context: string): Error {
  const refusal =
    `Requires read access to "${path}", run again with the --allow-read flag`;
  const cause = new Deno.errors.NotCapable(refusal);
  return new Error(`${context}: ${refusal}`, { cause });
}

Deno.test("startMessage() is the error's message when no permission was refused", () => {
  const error = new Error('Cannot load kubeconfig "/k": no such file');
  assert.equal(
    startMessage(error),
    'Cannot load kubeconfig "/k": no such file',
  );
  assert.equal(permissionHint(error), "");
});

Deno.test("startMessage() drops Deno's advice to run again with the flag and says what to do with the task", () => {
  const message = startMessage(
    refusedRead(
      "/home/a/.kube/config",
      'Cannot load kubeconfig "/home/a/.kube/config"',
    ),
  );
  assert.doesNotMatch(message, /run again with the --allow-read flag/);
  assert.ok(
    message.startsWith(
      'Cannot load kubeconfig "/home/a/.kube/config": Requires read access to "/home/a/.kube/config". deno task start may read only this directory (./)',
    ),
    message,
  );
  assert.match(message, /--allow-read=\.,\/home\/a\/\.kube\/config instead/);
});

Deno.test("permissionHint() finds the refusal down the chain of causes, and says PATH when it names no file", () => {
  const deep = new Error("Cannot start", {
    cause: new Error("Cannot read", {
      cause: new Deno.errors.NotCapable('Requires read access to "/etc/x"'),
    }),
  });
  assert.match(permissionHint(deep), /--allow-read=\.,\/etc\/x instead/);
  const unnamed = new Deno.errors.NotCapable("Requires read access");
  assert.match(permissionHint(unnamed), /--allow-read=\.,PATH instead/);
});

Deno.test("logStartFailure() logs one error line, with the flag and file of a TLS file", () => {
  const lines: string[] = [];
  const log = createLogger({ write: (line) => lines.push(line) });
  logStartFailure(
    log,
    new TlsFileError("--tls-cert-file", "/etc/corral/tls/tls.crt", "not PEM"),
  );
  logStartFailure(log, new Error("port 8888 is in use"));
  const records = lines.map((line) => JSON.parse(line));
  assert.deepEqual(
    records.map(({ level, msg, flag, file }) => ({ level, msg, flag, file })),
    [
      {
        level: "error",
        msg:
          'Cannot start: Cannot use --tls-cert-file "/etc/corral/tls/tls.crt": not PEM',
        flag: "--tls-cert-file",
        file: "/etc/corral/tls/tls.crt",
      },
      {
        level: "error",
        msg: "Cannot start: port 8888 is in use",
        flag: undefined,
        file: undefined,
      },
    ],
  );
});
