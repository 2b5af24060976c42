/**
 * The stand-in in a process of its own (standin_process.ts) as an API
 * server that dies and comes back without its data: killed, its watches
 * are cut (an error, not the clean end of a watch at its time limit;
 * stopped, they end cleanly);
 * started again on the same port it holds nothing and counts versions from
 * the start, so a list or a watch from a version of the one before is
 * answered "Too large resource version" (504, after the watch cache's
 * 3 s), as a real API server whose etcd lost its data answers it.
 */
import assert from "node:assert/strict";
import { CM, configMap } from "./standin/requests.ts";
import { kubeFetch } from "./standin/with_standin.ts";
import { startStandinProcess } from "./standin_process.ts";

Deno.test("a stand-in process killed cuts its watches; started again on the same port it holds nothing, and a list or watch from an old version is answered 504 Too large resource version; stopped, it ends them cleanly", async () => {
  let standin = await startStandinProcess();
  try {
    let version = 0;
    for (let i = 0; i < 20; i++) {
      const created = await kubeFetch(
        standin.url,
        "POST",
        CM,
        configMap(`c${i}`),
      );
      assert.equal(created.status, 201);
      version = Number((await created.json()).metadata.resourceVersion);
    }
    const watch = await fetch(
      `${standin.url}${CM}?watch=true&resourceVersion=${version}`,
    );
    assert.equal(watch.status, 200);
    const reading = watch.body!.pipeTo(new WritableStream()).then(
      () => "ended cleanly",
      () => "cut",
    );
    await standin.kill();
    assert.equal(await reading, "cut");

    standin = await startStandinProcess(standin.port);
    const listed = await (await kubeFetch(standin.url, "GET", CM)).json();
    assert.deepEqual(listed.items, []);
    const now = Number(listed.metadata.resourceVersion);
    assert.ok(now < version, `versions start again: ${now} < ${version}`);

    const list = await kubeFetch(
      standin.url,
      "GET",
      `${CM}?resourceVersion=${version}`,
    );
    assert.equal(list.status, 504);
    const status = await list.json();
    assert.equal(status.reason, "Timeout");
    assert.deepEqual(status.details.causes, [{
      reason: "ResourceVersionTooLarge",
      message: "Too large resource version",
    }]);
    const watched = await kubeFetch(
      standin.url,
      "GET",
      `${CM}?watch=true&resourceVersion=${version}`,
    );
    const [event] = (await watched.text()).trim().split("\n").map((line) =>
      JSON.parse(line)
    );
    assert.equal(event.type, "ERROR");
    assert.equal(event.object.code, 504);
    assert.match(event.object.message, /^Too large resource version/);

    // Stopped rather than killed, it ends its watches cleanly.
    const open = await fetch(`${standin.url}${CM}?watch=true`);
    const ending = open.body!.pipeTo(new WritableStream()).then(
      () => "ended cleanly",
      () => "cut",
    );
    await standin.stop();
    assert.equal(await ending, "ended cleanly");
  } finally {
    await standin.kill();
  }
});
