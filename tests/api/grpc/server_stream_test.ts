/**
 * The gRPC adapter's server streams (pump): answers are written only as
 * fast as the call takes them, so a client that does not read holds the
 * watch back until the watch cuts it off with code 8; a client that goes
 * away ends the watch.
 */
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import type * as grpc from "@grpc/grpc-js";
import { pump } from "../../../api/grpc/server.ts";
import { createLogger, silentLogger } from "../../../api/log.ts";
import { CLUSTER_WATCH, fanoutOf } from "../../../api/service/kind_watch.ts";
import { ConvertedClusters } from "../../../api/service/converted_clusters.ts";
import type { Message } from "../../../domain/message_form.ts";
import { Code, ServiceError } from "../../../domain/errors.ts";
import type { Change } from "../../../domain/ports.ts";
import type { RayCluster } from "../../../domain/resources.ts";
import { until } from "../../eventually.ts";

/** A call whose client reads nothing until `drain()`. */
class StuckCall extends EventEmitter {
  written = 0;
  write(_bytes: Uint8Array): boolean {
    this.written++;
    return false;
  }
  drain(): void {
    this.emit("drain");
  }
}

function rayCluster(name: string, resourceVersion: string): RayCluster {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: {
      name,
      namespace: "team-a",
      uid: `uid-${name}`,
      resourceVersion,
      labels: { "app.kubernetes.io/managed-by": "corral" },
    },
    spec: { headGroupSpec: { template: { spec: { containers: [] } } } },
  } as unknown as RayCluster;
}

function hub(queueLimit: number) {
  const listeners = new Set<(change: Change<RayCluster>) => void>();
  const tell = (change: Change<RayCluster>) =>
    listeners.forEach((l) => l(change));
  const watches = fanoutOf(CLUSTER_WATCH, {
    feed: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    inStep: () => true,
    converted: new ConvertedClusters(),
    queueLimit,
  });
  const change = (name: string, version: number) =>
    tell({
      namespace: "team-a",
      name,
      object: rayCluster(name, String(version)),
      events: [],
      resourceVersion: String(version),
      epoch: 0,
    });
  return { watches, change };
}

Deno.test("a stream is written only as the call drains, and a client that stays behind is ended with code 8", async () => {
  const { watches, change } = hub(2);
  const call = new StuckCall();
  const ended = pump(
    watches.watch({}) as AsyncIterableIterator<Message>,
    call as unknown as grpc.ServerWritableStream<Buffer, Uint8Array>,
    () => new Uint8Array(1),
    silentLogger(),
  );
  // The BOOKMARK that ends the (empty) state is written; the call is full,
  // and the pump waits for it to drain.
  await until(
    "the pump to wait for a drain",
    () => call.listenerCount("drain") > 0,
  );
  assert.equal(call.written, 1);
  for (let i = 1; i <= 5; i++) change(`c${i}`, i);
  await until("the watcher to be cut off", () => watches.watchers === 0);
  assert.equal(call.written, 1, "nothing more written while full");
  assert.equal(call.listenerCount("drain"), 1, "still waiting for a drain");
  call.drain();
  const error = await ended;
  assert.ok(error instanceof ServiceError);
  assert.equal(error.code, Code.RESOURCE_EXHAUSTED);
  assert.match(error.message, /fell more than 2 changes behind/);
  watches.close();
});

Deno.test("a client that goes away ends its watch", async () => {
  const { watches, change } = hub(100);
  const call = new (class extends StuckCall {
    override write(): boolean {
      this.written++;
      return true;
    }
  })();
  const ended = pump(
    watches.watch({}) as AsyncIterableIterator<Message>,
    call as unknown as grpc.ServerWritableStream<Buffer, Uint8Array>,
    () => new Uint8Array(1),
    silentLogger(),
  );
  change("c1", 1);
  await until("the bookmark and c1 written", () => call.written >= 2);
  assert.equal(call.written, 2, "the bookmark and c1");
  assert.equal(watches.watchers, 1);
  call.emit("cancelled");
  assert.equal(await ended, undefined);
  assert.equal(watches.watchers, 0);
  watches.close();
});

Deno.test("an answer that cannot be encoded ends the watch with code 13 and is logged", async () => {
  const { watches } = hub(100);
  const call = new StuckCall();
  const logged: string[] = [];
  const log = createLogger({
    write: (line) => logged.push(JSON.parse(line).msg),
  });
  const error = await pump(
    watches.watch({}) as AsyncIterableIterator<Message>,
    call as unknown as grpc.ServerWritableStream<Buffer, Uint8Array>,
    () => {
      throw new Error("not encodable");
    },
    log,
  );
  assert.ok(error instanceof ServiceError);
  assert.equal(error.code, Code.INTERNAL);
  assert.equal(watches.watchers, 0, "the watcher is gone");
  assert.deepEqual(logged, ["Failed to encode response"]);
  watches.close();
});
