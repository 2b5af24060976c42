/**
 * WatchRayJobLog's handler (api/service/job_logs.ts) and the follow it
 * sets up: the call's end aborts it while it is being set up, not once
 * the stream is returned (the dispatcher ends the call's signal then).
 */
import assert from "node:assert/strict";
import { JobLogHandlers } from "../../../api/service/job_logs.ts";
import type { Service } from "../../../api/service/service.ts";
import type { CallContext, NamespaceScope } from "../../../api/service/rpcs.ts";
import type { JobLogOptions } from "../../../domain/ports.ts";

const JOB = { metadata: { name: "etl", namespace: "team-a" } };

/**
 * Handlers over a job log port whose follow waits for `answered` (or its
 * signal's abort); `follows` has the options of each follow.
 */
function handlersOf(answered: Promise<AsyncIterable<string>>) {
  const follows: JobLogOptions[] = [];
  const service = {
    orchestrator: {
      jobs: { get: () => Promise.resolve(JOB) },
      jobLogs: {
        read: () => Promise.resolve(""),
        follow(_namespace: string, _name: string, options: JobLogOptions) {
          follows.push(options);
          const aborted = new Promise<never>((_, reject) =>
            options.signal?.addEventListener(
              "abort",
              () => reject(options.signal!.reason),
              { once: true },
            )
          );
          return Promise.race([answered, aborted]);
        },
      },
    },
  } as unknown as Service;
  return { handlers: new JobLogHandlers(service), follows };
}

function callOf(signal: AbortSignal): CallContext<NamespaceScope> {
  return {
    action: "Cannot watch the log of job etl",
    kube: { signal },
    scope: { namespace: "team-a", rules: [] },
    caller: {},
  } as unknown as CallContext<NamespaceScope>;
}

const REQUEST = { namespace: "team-a", name: "etl", tailLines: 0 };

Deno.test("a client that goes away while WatchRayJobLog sets up its follow aborts the follow", async () => {
  const { handlers, follows } = handlersOf(new Promise(() => {}));
  const client = new AbortController();
  const watch = handlers.watchRayJobLog(REQUEST, callOf(client.signal));
  // The follow starts once the job is read and checked.
  while (follows.length === 0) await Promise.resolve();
  const gone = new Error("client gone");
  client.abort(gone);
  await assert.rejects(watch, (error) => error === gone);
  assert.equal(follows[0].signal?.aborted, true);
});

Deno.test("once WatchRayJobLog's stream is returned, the call's signal ending leaves the follow to the stream", async () => {
  async function* parts() {
    yield "line\n";
  }
  const { handlers, follows } = handlersOf(Promise.resolve(parts()));
  const call = new AbortController();
  const stream = await handlers.watchRayJobLog(REQUEST, callOf(call.signal));
  call.abort();
  assert.equal(follows[0].signal?.aborted, false);
  assert.deepEqual(await stream.next(), {
    done: false,
    value: { log: "line\n" },
  });
  await stream.return!();
  assert.equal(follows[0].signal?.aborted, true);
});
