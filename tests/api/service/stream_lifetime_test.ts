/**
 * GuardedStream (stream_lifetime.ts) on its own, over a handler stream that
 * answers only when told to and on a clock the test moves: what ends it,
 * how, and what it leaves behind.
 */
import assert from "node:assert/strict";
import { Code, ServiceError } from "../../../domain/errors.ts";
import { silentLogger } from "../../../api/log.ts";
import {
  GuardedStream,
  type GuardOptions,
  jitteredDuration,
  lostNamespaces,
} from "../../../api/service/stream_lifetime.ts";
import { ManualClock } from "../../manual_clock.ts";
import { Watched } from "../../collected.ts";

/** A handler's stream: answers what is pushed, ends on return(). */
class Answers<T = number> implements AsyncIterableIterator<T> {
  returned = 0;
  #wake: ((result: IteratorResult<T>) => void) | undefined;

  push(value: T): void {
    this.#wake?.({ done: false, value });
  }

  next(): Promise<IteratorResult<T>> {
    return new Promise((resolve) => this.#wake = resolve);
  }

  return(): Promise<IteratorResult<T>> {
    this.returned++;
    this.#wake?.({ done: true, value: undefined });
    return Promise.resolve({ done: true, value: undefined });
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}

/** A subscription to access changes, as Access.onChange gives one. */
function changes() {
  const listeners = new Set<() => void>();
  return {
    listeners,
    subscribe: (listener: () => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    tell: () => listeners.forEach((listener) => listener()),
  };
}

function guard(
  inner: Answers,
  options: Partial<GuardOptions>,
): GuardedStream<number> {
  return new GuardedStream(inner, {
    authorizeAgain: () => Promise.resolve(undefined),
    log: silentLogger(),
    ...options,
  });
}

async function endingOf(
  stream: GuardedStream<number>,
): Promise<ServiceError | "done"> {
  try {
    const result = await stream.next();
    assert.equal(result.done, true, "an answer instead of the end");
    return "done";
  } catch (error) {
    return error as ServiceError;
  }
}

Deno.test("GuardedStream passes answers through until an access change finds the right lost, then throws that error and lets the stream go", async () => {
  const inner = new Answers();
  const access = changes();
  let allowed = true;
  const stream = guard(inner, {
    onAccessChange: access.subscribe,
    authorizeAgain: () =>
      allowed ? Promise.resolve(undefined) : Promise.reject(
        new ServiceError(Code.PERMISSION_DENIED, "Cannot watch: no rule"),
      ),
  });
  const first = stream.next();
  inner.push(1);
  assert.deepEqual(await first, { done: false, value: 1 });
  access.tell(); // still allowed
  const second = stream.next();
  inner.push(2);
  assert.deepEqual(await second, { done: false, value: 2 });
  allowed = false;
  const third = endingOf(stream);
  access.tell();
  const error = await third;
  assert.ok(error instanceof ServiceError);
  assert.equal(error.code, Code.PERMISSION_DENIED);
  assert.equal(error.message, "Cannot watch: no rule");
  assert.equal(inner.returned, 1, "the handler's stream was ended");
  assert.equal(access.listeners.size, 0, "the subscription ended with it");
  assert.deepEqual(await stream.next(), { done: true, value: undefined });
});

Deno.test("GuardedStream keeps a stream whose check cannot decide (code 14)", async () => {
  const inner = new Answers();
  const access = changes();
  let checks = 0;
  const stream = guard(inner, {
    onAccessChange: access.subscribe,
    authorizeAgain: () => {
      checks++;
      return Promise.reject(
        new ServiceError(Code.UNAVAILABLE, "the issuer cannot be reached"),
      );
    },
  });
  await stream.check();
  assert.equal(checks, 1);
  const next = stream.next();
  inner.push(7);
  assert.deepEqual(await next, { done: false, value: 7 });
  await stream.return();
  assert.equal(access.listeners.size, 0);
});

Deno.test("GuardedStream checks again when the credentials expire and ends with code 16", async () => {
  const clock = new ManualClock(1_000_000);
  const inner = new Answers();
  const expiresAt = clock.now() + 30_000;
  let checks = 0;
  const stream = guard(inner, {
    expiresAt,
    timers: clock,
    authorizeAgain: () => {
      checks++;
      return clock.now() < expiresAt
        ? Promise.resolve(expiresAt)
        : Promise.reject(
          new ServiceError(Code.UNAUTHENTICATED, "Unauthorized: expired"),
        );
    },
  });
  const ending = endingOf(stream);
  clock.advance(29_999);
  assert.equal(checks, 0, "no check before the credentials expire");
  clock.advance(1);
  const error = await ending;
  assert.ok(error instanceof ServiceError);
  assert.equal(error.code, Code.UNAUTHENTICATED);
  assert.equal(checks, 1);
  assert.equal(clock.pending, 0, "its timers end with it");
});

Deno.test("GuardedStream ends a stream that cannot finish itself cleanly at its maximum duration", async () => {
  const clock = new ManualClock();
  const inner = new Answers();
  const stream = guard(inner, { maxDurationMs: 10, timers: clock });
  const ending = endingOf(stream);
  clock.advance(9);
  assert.equal(inner.returned, 0, "not before its maximum duration");
  clock.advance(1);
  assert.equal(await ending, "done");
  assert.equal(inner.returned, 1);
});

Deno.test("GuardedStream asks a Finishable stream to finish at its maximum duration and passes its last answers on", async () => {
  const clock = new ManualClock();
  const inner = new (class extends Answers {
    finished = 0;
    finish() {
      this.finished++;
      queueMicrotask(() => this.push(99));
    }
  })();
  const stream = guard(inner, { maxDurationMs: 10, timers: clock });
  const next = stream.next();
  clock.advance(9);
  assert.equal(inner.finished, 0, "not before its maximum duration");
  clock.advance(1);
  assert.deepEqual(await next, { done: false, value: 99 });
  assert.equal(inner.finished, 1);
  assert.equal(inner.returned, 0, "the stream ends itself");
  await stream.return();
});

/**
 * Passes `n` answers, each watched, through `stream`; in a function of its
 * own, so that no variable of the test's holds the last of them.
 */
async function passOn(
  inner: Answers<{ n: number }>,
  stream: GuardedStream<{ n: number }>,
  n: number,
  watched: Watched,
): Promise<void> {
  for (let i = 0; i < n; i++) {
    const next = stream.next();
    inner.push(watched.add({ n: i }));
    assert.equal((await next).done, false);
  }
}

Deno.test("GuardedStream holds none of the answers it has passed on, however many a long stream passes", async () => {
  const inner = new Answers<{ n: number }>();
  const stream = new GuardedStream(inner, {
    authorizeAgain: () => Promise.resolve(undefined),
    log: silentLogger(),
  });
  const watched = new Watched();
  await passOn(inner, stream, 1_000, watched);
  // Open and quiet, as a watch between changes.
  const waiting = stream.next();
  assert.equal(await watched.held(), 0, "answers still held");
  await stream.return();
  assert.equal((await waiting).done, true);
});

Deno.test("lostNamespaces() says where a call across namespaces no longer reaches", () => {
  const all = { kind: "namespaces", namespaces: undefined } as const;
  const some = (...namespaces: string[]) =>
    ({ kind: "namespaces", namespaces }) as const;
  const cases: [
    string,
    ReturnType<typeof some> | typeof all,
    typeof all | ReturnType<typeof some>,
    string | undefined,
  ][] = [
    ["all, still all", all, all, undefined],
    ["all, now some", all, some("a"), "every namespace"],
    ["some, now all", some("a"), all, undefined],
    ["some, now more", some("a"), some("a", "b"), undefined],
    ["some, one lost", some("a", "b"), some("a"), 'namespace "b"'],
    ["some, two lost", some("a", "b", "c"), some("a"), 'namespaces "b", "c"'],
  ];
  for (const [name, before, after, want] of cases) {
    assert.equal(lostNamespaces(before, after), want, name);
  }
});

Deno.test("jitteredDuration() takes a stream's lifetime between half the maximum and the maximum", () => {
  assert.equal(jitteredDuration(1_000, () => 0), 500);
  assert.equal(jitteredDuration(1_000, () => 0.5), 750);
  assert.ok(jitteredDuration(1_000, () => 0.999999) <= 1_000);
});
