/**
 * Watches and consistent lists of the stand-in: what kubectl, client-node's
 * informers and the simulated operator rely on.
 */
import assert from "node:assert/strict";
import * as k8s from "@kubernetes/client-node";
import {
  kubeconfigFor,
  type Standin,
  startStandin,
} from "../../standin/mod.ts";
import { withStandin } from "./with_standin.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const CM = "/api/v1/namespaces/team-a/configmaps";

async function send(
  standin: Standin,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/json",
): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${standin.url}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": contentType },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

function configMap(name: string, labels: Record<string, string> = {}) {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, labels },
    data: { k: "v" },
  };
}

async function createConfigMap(
  standin: Standin,
  name: string,
  labels: Record<string, string> = {},
): Promise<Json> {
  const answer = await send(standin, "POST", CM, configMap(name, labels));
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  return answer.body;
}

async function patchLabels(
  standin: Standin,
  name: string,
  labels: Record<string, string | null>,
): Promise<Json> {
  const answer = await send(
    standin,
    "PATCH",
    `${CM}/${name}`,
    { metadata: { labels } },
    "application/merge-patch+json",
  );
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

/** An open watch stream, read one event at a time. */
interface Watch {
  status: number;
  /** The next event, or undefined when the stream ended. */
  next(timeoutMs?: number): Promise<Json | undefined>;
  /** Events until the stream ends (fails after `timeoutMs`). */
  rest(timeoutMs?: number): Promise<Json[]>;
  close(): Promise<void>;
}

async function openWatch(standin: Standin, path: string): Promise<Watch> {
  const response = await fetch(`${standin.url}${path}`);
  assert.ok(response.body);
  const reader = response.body.pipeThrough(new TextDecoderStream())
    .getReader();
  let buffer = "";
  let done = false;
  async function next(timeoutMs = 2000): Promise<Json | undefined> {
    for (;;) {
      const newline = buffer.indexOf("\n");
      if (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        return JSON.parse(line);
      }
      if (done) return undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no watch event within ${timeoutMs} ms`)),
          timeoutMs,
        );
      });
      try {
        const chunk = await Promise.race([reader.read(), timeout]);
        if (chunk.done) done = true;
        else buffer += chunk.value;
      } finally {
        clearTimeout(timer);
      }
    }
  }
  return {
    status: response.status,
    next,
    async rest(timeoutMs = 3000) {
      const events: Json[] = [];
      for (;;) {
        const event = await next(timeoutMs);
        if (event === undefined) return events;
        events.push(event);
      }
    },
    async close() {
      await reader.cancel();
    },
  };
}

/** `TYPE name@resourceVersion`, to compare events at a glance. */
function summary(event: Json): string {
  return `${event.type} ${event.object.metadata.name}@${event.object.metadata.resourceVersion}`;
}

// ---------------------------------------------------------------------------
// Watch

Deno.test("watch without resourceVersion sends the current objects as ADDED, then every change", async () => {
  await withStandin(async (standin) => {
    const a = await createConfigMap(standin, "a");
    const b = await createConfigMap(standin, "b");
    const watch = await openWatch(standin, `${CM}?watch=true`);
    try {
      assert.equal(watch.status, 200);
      const first = await watch.next();
      assert.equal(first.type, "ADDED");
      assert.equal(first.object.kind, "ConfigMap", "events carry the kind");
      assert.equal(first.object.apiVersion, "v1");
      assert.deepEqual(first.object.metadata, a.metadata);
      assert.equal(
        summary(await watch.next()),
        `ADDED b@${b.metadata.resourceVersion}`,
      );

      const c = await createConfigMap(standin, "c");
      assert.equal(
        summary(await watch.next()),
        `ADDED c@${c.metadata.resourceVersion}`,
      );
      const relabelled = await patchLabels(standin, "a", { tier: "front" });
      const modified = await watch.next();
      assert.equal(
        summary(modified),
        `MODIFIED a@${relabelled.metadata.resourceVersion}`,
      );
      assert.deepEqual(modified.object.metadata.labels, { tier: "front" });
      assert.equal((await send(standin, "DELETE", `${CM}/b`)).status, 200);
      const deleted = await watch.next();
      assert.equal(deleted.type, "DELETED");
      assert.equal(deleted.object.metadata.name, "b");
      assert.ok(
        Number(deleted.object.metadata.resourceVersion) >
          Number(relabelled.metadata.resourceVersion),
        "a deletion has a resourceVersion of its own",
      );
    } finally {
      await watch.close();
    }
  });
});

Deno.test("watch from a resourceVersion replays the changes after it, then follows", async () => {
  await withStandin(async (standin) => {
    const a = await createConfigMap(standin, "a");
    const a2 = await patchLabels(standin, "a", { v: "2" });
    const b = await createConfigMap(standin, "b");
    await send(
      standin,
      "POST",
      "/api/v1/namespaces/team-b/configmaps",
      configMap("elsewhere"),
    );
    const watch = await openWatch(
      standin,
      `${CM}?watch=1&resourceVersion=${a.metadata.resourceVersion}`,
    );
    try {
      assert.equal(
        summary(await watch.next()),
        `MODIFIED a@${a2.metadata.resourceVersion}`,
      );
      assert.equal(
        summary(await watch.next()),
        `ADDED b@${b.metadata.resourceVersion}`,
      );
      const c = await createConfigMap(standin, "c");
      assert.equal(
        summary(await watch.next()),
        `ADDED c@${c.metadata.resourceVersion}`,
        "team-b's ConfigMap is not in team-a's watch",
      );
    } finally {
      await watch.close();
    }
  });
});

Deno.test("watch honours selectors: objects moving in or out of the selection arrive as ADDED and DELETED", async () => {
  await withStandin(async (standin) => {
    await createConfigMap(standin, "web", { app: "web" });
    const watch = await openWatch(
      standin,
      `${CM}?watch=true&labelSelector=app%3Dweb`,
    );
    const byName = await openWatch(
      standin,
      `/api/v1/configmaps?watch=true&fieldSelector=metadata.name%3Ddb`,
    );
    try {
      assert.equal((await watch.next()).object.metadata.name, "web");
      await createConfigMap(standin, "db", { app: "db" });
      assert.equal((await byName.next()).type, "ADDED");
      const moved = await patchLabels(standin, "db", { app: "web" });
      assert.equal(
        summary(await watch.next()),
        `ADDED db@${moved.metadata.resourceVersion}`,
      );
      assert.equal((await byName.next()).type, "MODIFIED");
      const back = await patchLabels(standin, "db", { app: "db" });
      const left = await watch.next();
      assert.equal(
        summary(left),
        `DELETED db@${back.metadata.resourceVersion}`,
      );
      assert.deepEqual(
        left.object.metadata.labels,
        { app: "web" },
        "the last state that matched",
      );
      await patchLabels(standin, "web", { extra: "x" });
      assert.equal((await watch.next()).type, "MODIFIED");
    } finally {
      await watch.close();
      await byName.close();
    }
  });
});

Deno.test("watch answers a resourceVersion older than the retained history with one ERROR event, 410 Expired", async () => {
  await withStandin(async (standin) => {
    const first = await createConfigMap(standin, "a");
    for (const name of ["b", "c", "d"]) await createConfigMap(standin, name);
    const watch = await openWatch(
      standin,
      `${CM}?watch=true&resourceVersion=${first.metadata.resourceVersion}`,
    );
    const events = await watch.rest();
    assert.equal(watch.status, 200, "the error comes inside a 200 stream");
    assert.equal(events.length, 1);
    // c and d are retained: a watch can start after b.
    const oldest = Number(first.metadata.resourceVersion) + 1;
    assert.deepEqual(events[0], {
      type: "ERROR",
      object: {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message:
          `too old resource version: ${first.metadata.resourceVersion} (${oldest})`,
        reason: "Expired",
        code: 410,
      },
    });
    const fresh = await openWatch(
      standin,
      `${CM}?watch=true&resourceVersion=${oldest}`,
    );
    try {
      assert.equal((await fresh.next()).object.metadata.name, "c");
    } finally {
      await fresh.close();
    }
  }, { watchHistory: 2 });
});

Deno.test("watch ends after timeoutSeconds and sends bookmarks when allowed", async () => {
  await withStandin(async (standin) => {
    const a = await createConfigMap(standin, "a");
    const started = Date.now();
    const watch = await openWatch(
      standin,
      `${CM}?watch=true&timeoutSeconds=1&allowWatchBookmarks=true&resourceVersion=${a.metadata.resourceVersion}`,
    );
    const events = await watch.rest();
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 900 && elapsed < 2500, `ended after ${elapsed} ms`);
    assert.ok(events.length >= 2, `got ${events.length} bookmarks`);
    assert.deepEqual(events[0], {
      type: "BOOKMARK",
      object: {
        kind: "ConfigMap",
        apiVersion: "v1",
        metadata: {
          resourceVersion: a.metadata.resourceVersion,
          creationTimestamp: null,
        },
      },
    });
  }, { bookmarkIntervalMs: 200 });
});

Deno.test("watch with sendInitialEvents ends the initial objects with an annotated bookmark", async () => {
  await withStandin(async (standin) => {
    await createConfigMap(standin, "a");
    const b = await createConfigMap(standin, "b");
    const watch = await openWatch(
      standin,
      `${CM}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
    );
    try {
      assert.equal((await watch.next()).type, "ADDED");
      assert.equal((await watch.next()).type, "ADDED");
      const bookmark = await watch.next();
      assert.equal(bookmark.type, "BOOKMARK");
      assert.equal(
        bookmark.object.metadata.resourceVersion,
        b.metadata.resourceVersion,
      );
      assert.deepEqual(bookmark.object.metadata.annotations, {
        "k8s.io/initial-events-end": "true",
      });
    } finally {
      await watch.close();
    }
  });
});

Deno.test("watch with sendInitialEvents=false and no resourceVersion starts from now", async () => {
  await withStandin(async (standin) => {
    await createConfigMap(standin, "old");
    const watch = await openWatch(
      standin,
      `${CM}?watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan`,
    );
    try {
      const made = await createConfigMap(standin, "new");
      assert.equal(
        summary(await watch.next()),
        `ADDED new@${made.metadata.resourceVersion}`,
      );
    } finally {
      await watch.close();
    }
  });
});

Deno.test("watch from a resourceVersion not reached yet waits for it, and fails 504 after 3 s", async () => {
  await withStandin(async (standin) => {
    const a = await createConfigMap(standin, "a");
    const next = Number(a.metadata.resourceVersion) + 1;
    const waiting = await openWatch(
      standin,
      `${CM}?watch=true&resourceVersion=${next}`,
    );
    const b = await createConfigMap(standin, "b");
    await createConfigMap(standin, "c");
    try {
      assert.equal(b.metadata.resourceVersion, String(next));
      assert.equal((await waiting.next()).object.metadata.name, "c");
    } finally {
      await waiting.close();
    }
    const far = await openWatch(
      standin,
      `${CM}?watch=true&resourceVersion=1000`,
    );
    const events = await far.rest(5000);
    assert.equal(events.length, 1);
    assert.equal(events[0].type, "ERROR");
    assert.equal(events[0].object.code, 504);
    assert.equal(events[0].object.reason, "Timeout");
    assert.match(
      events[0].object.message,
      /^Too large resource version: 1000, current: \d+$/,
    );
  });
});

Deno.test("close() ends open watches", async () => {
  const standin = startStandin();
  const watch = await openWatch(standin, `${CM}?watch=true`);
  await standin.close();
  assert.deepEqual(await watch.rest(), []);
});

Deno.test("client-node's informer follows changes through a kubeconfig from kubeconfigFor()", async () => {
  await withStandin(async (standin) => {
    await createConfigMap(standin, "before");
    const kubeConfig = new k8s.KubeConfig();
    kubeConfig.loadFromString(kubeconfigFor(standin.url, "team-a"));
    const core = kubeConfig.makeApiClient(k8s.CoreV1Api);
    const informer = k8s.makeInformer(
      kubeConfig,
      CM,
      () => core.listNamespacedConfigMap({ namespace: "team-a" }),
    );
    const seen: string[] = [];
    const changed = () =>
      new Promise<void>((resolve) => {
        const check = setInterval(() => {
          if (seen.length >= 4) {
            clearInterval(check);
            resolve();
          }
        }, 10);
      });
    informer.on("add", (o) => seen.push(`add ${o.metadata?.name}`));
    informer.on("update", (o) => seen.push(`update ${o.metadata?.name}`));
    informer.on("delete", (o) => seen.push(`delete ${o.metadata?.name}`));
    await informer.start();
    try {
      await createConfigMap(standin, "after");
      await patchLabels(standin, "after", { x: "y" });
      await send(standin, "DELETE", `${CM}/before`);
      await changed();
      assert.deepEqual(seen, [
        "add before",
        "add after",
        "update after",
        "delete before",
      ]);
      assert.deepEqual(
        informer.list("team-a").map((o) => o.metadata?.name),
        ["after"],
      );
    } finally {
      await informer.stop();
    }
  });
});

Deno.test("client-node's Watch hears 410 Expired as an ERROR event", async () => {
  await withStandin(async (standin) => {
    for (const name of ["a", "b", "c"]) await createConfigMap(standin, name);
    const kubeConfig = new k8s.KubeConfig();
    kubeConfig.loadFromString(kubeconfigFor(standin.url, "team-a"));
    const events: Json[] = [];
    const done = await new Promise<unknown>((resolve) => {
      new k8s.Watch(kubeConfig).watch(
        CM,
        { resourceVersion: "1" },
        (type, object) => events.push({ type, code: object.code }),
        resolve,
      );
    });
    assert.equal(done, null);
    assert.deepEqual(events, [{ type: "ERROR", code: 410 }]);
  }, { watchHistory: 1 });
});

// ---------------------------------------------------------------------------
// Consistent lists

function names(list: Json): string[] {
  return list.items.map((i: Json) => i.metadata.name);
}

Deno.test("continue tokens page through the snapshot of the first page", async () => {
  await withStandin(async (standin) => {
    for (const name of ["a", "b", "c", "d", "e"]) {
      await createConfigMap(standin, name);
    }
    const first = await send(standin, "GET", `${CM}?limit=2`);
    assert.deepEqual(names(first.body), ["a", "b"]);
    assert.equal(first.body.metadata.remainingItemCount, 3);
    const snapshot = first.body.metadata.resourceVersion;
    const token = JSON.parse(
      atob(
        first.body.metadata.continue.replaceAll("-", "+").replaceAll("_", "/"),
      ),
    );
    assert.deepEqual(token, {
      v: "meta.k8s.io/v1",
      rv: Number(snapshot),
      start: "b\u0000",
    });

    // Changes after the first page do not show on the next ones.
    await createConfigMap(standin, "bb");
    await send(standin, "DELETE", `${CM}/c`);
    await patchLabels(standin, "d", { changed: "yes" });

    const second = await send(
      standin,
      "GET",
      `${CM}?limit=2&continue=${first.body.metadata.continue}`,
    );
    assert.deepEqual(names(second.body), ["c", "d"]);
    assert.equal(second.body.metadata.resourceVersion, snapshot);
    assert.deepEqual(
      second.body.items[1].metadata.labels,
      {},
      "d as it was",
    );
    assert.equal(second.body.metadata.remainingItemCount, 1);
    const third = await send(
      standin,
      "GET",
      `${CM}?limit=2&continue=${second.body.metadata.continue}`,
    );
    assert.deepEqual(names(third.body), ["e"]);
    assert.equal(third.body.metadata.continue, undefined);

    const selected = await send(
      standin,
      "GET",
      `${CM}?limit=1&labelSelector=changed`,
    );
    assert.deepEqual(names(selected.body), ["d"]);
    const filtered = await send(
      standin,
      "GET",
      `${CM}?limit=1&labelSelector=!changed`,
    );
    assert.ok(filtered.body.metadata.continue);
    assert.equal(
      filtered.body.metadata.remainingItemCount,
      undefined,
      "no count when a selector filters, as the etcd3 store does",
    );
  });
});

Deno.test("a continue token older than the history answers 410 Expired with a token that continues at the latest", async () => {
  await withStandin(async (standin) => {
    for (const name of ["a", "b", "c"]) await createConfigMap(standin, name);
    const first = await send(standin, "GET", `${CM}?limit=1`);
    for (const name of ["d", "e", "f"]) await createConfigMap(standin, name);
    const stale = await send(
      standin,
      "GET",
      `${CM}?limit=1&continue=${first.body.metadata.continue}`,
    );
    assert.equal(stale.status, 410);
    assert.equal(stale.body.reason, "Expired");
    assert.match(
      stale.body.message,
      /^The provided continue parameter is too old to display a consistent list result\./,
    );
    const resumed = await send(
      standin,
      "GET",
      `${CM}?continue=${stale.body.metadata.continue}`,
    );
    assert.equal(resumed.status, 200);
    assert.deepEqual(names(resumed.body), ["b", "c", "d", "e", "f"]);
  }, { watchHistory: 2 });
});

Deno.test("resourceVersionMatch=Exact lists a past revision; a too old one is 410 Expired", async () => {
  await withStandin(async (standin) => {
    const a = await createConfigMap(standin, "a");
    await createConfigMap(standin, "b");
    await send(standin, "DELETE", `${CM}/a`);
    const past = await send(
      standin,
      "GET",
      `${CM}?resourceVersion=${a.metadata.resourceVersion}&resourceVersionMatch=Exact`,
    );
    assert.deepEqual(names(past.body), ["a"]);
    assert.equal(
      past.body.metadata.resourceVersion,
      a.metadata.resourceVersion,
    );
    const now = await send(
      standin,
      "GET",
      `${CM}?resourceVersion=${a.metadata.resourceVersion}`,
    );
    assert.deepEqual(names(now.body), ["b"], "NotOlderThan serves the latest");
  });
  await withStandin(async (standin) => {
    const a = await createConfigMap(standin, "a");
    for (const name of ["b", "c"]) await createConfigMap(standin, name);
    const old = await send(
      standin,
      "GET",
      `${CM}?resourceVersion=${a.metadata.resourceVersion}&resourceVersionMatch=Exact`,
    );
    assert.equal(old.status, 410);
    assert.equal(
      old.body.message,
      "The resourceVersion for the provided list is too old.",
    );
  }, { watchHistory: 1 });
});

Deno.test("list and watch options are validated as the real server does", async (t) => {
  const cases: [string, string, number, string][] = [
    [
      "resourceVersionMatch without resourceVersion",
      `${CM}?resourceVersionMatch=Exact`,
      422,
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    ],
    [
      "an unknown resourceVersionMatch",
      `${CM}?resourceVersion=1&resourceVersionMatch=Newest`,
      422,
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""',
    ],
    [
      "sendInitialEvents on a list",
      `${CM}?sendInitialEvents=true`,
      422,
      'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
    ],
    [
      "sendInitialEvents on a watch without NotOlderThan",
      `${CM}?watch=true&sendInitialEvents=true`,
      422,
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    ],
    [
      "a resourceVersion with a continue token",
      `${CM}?resourceVersion=3&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6Mywic3RhcnQiOiJhXHUwMDAwIn0`,
      400,
      "specifying resource version is not allowed when using continue",
    ],
    [
      "a malformed continue token",
      `${CM}?continue=garbage`,
      400,
      "",
    ],
    [
      "a malformed resourceVersion",
      `${CM}?resourceVersion=abc`,
      400,
      'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
    ],
  ];
  await withStandin(async (standin) => {
    for (const [name, path, code, message] of cases) {
      await t.step(name, async () => {
        const answer = await send(standin, "GET", path);
        assert.equal(answer.status, code, JSON.stringify(answer.body));
        assert.equal(answer.body.kind, "Status");
        if (message) assert.equal(answer.body.message, message);
        else {assert.match(
            answer.body.message,
            /^invalid continue token: continue key is not valid: /,
          );}
      });
    }
  });
});
