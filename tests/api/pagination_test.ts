/**
 * Pagination through both transports, from the cache and straight from
 * Kubernetes: pages in order, an empty last token, the same answers over
 * HTTP (?pageSize=&pageToken=) and gRPC, and a walk over clusters that are
 * created and deleted between pages.
 */
import assert from "node:assert/strict";
import { NS, sampleCluster } from "./cases.ts";
import { type Corral, startCorral, TRANSPORTS } from "../harness.ts";

const LIST_ALL = "proto.ClusterService/ListAllClusters";
const LIST = "proto.ClusterService/ListCluster";

async function withCorral(
  cache: boolean,
  run: (corral: Corral) => Promise<void>,
): Promise<void> {
  const corral = await startCorral(cache ? { cache: {} } : {});
  try {
    await run(corral);
  } finally {
    await corral.close();
  }
}

async function create(corral: Corral, namespace: string, name: string) {
  const [, via] = TRANSPORTS[0];
  const got = await via(corral, "proto.ClusterService/CreateCluster", {
    namespace,
    cluster: sampleCluster({ name, namespace }),
  });
  assert.equal(got.code, 0, got.message);
}

for (const cache of [true, false]) {
  const mode = cache ? "from the cache" : "with --cache=off";
  Deno.test(`pagination ${mode}: pages in order over both transports, the same answers`, async () => {
    await withCorral(cache, async (corral) => {
      for (const ns of [NS, "team-b"]) {
        const [, via] = TRANSPORTS[0];
        const template = await via(
          corral,
          "proto.ComputeTemplateService/CreateComputeTemplate",
          {
            namespace: ns,
            computeTemplate: { name: "small", cpu: 1, memory: 1 },
          },
        );
        assert.equal(template.code, 0, template.message);
        for (let i = 0; i < 5; i++) await create(corral, ns, `c${i}`);
      }
      const walks: Record<string, string[]> = {};
      for (const [transport, via] of TRANSPORTS) {
        const seen: string[] = [];
        let pageToken = "";
        let pages = 0;
        do {
          const got = await via(corral, LIST_ALL, { pageSize: 3, pageToken });
          assert.equal(got.code, 0, got.message);
          const clusters = got.result!.clusters as Record<string, string>[];
          assert.ok(clusters.length <= 3);
          seen.push(...clusters.map((c) => `${c.namespace}/${c.name}`));
          pageToken = got.result!.nextPageToken as string;
          pages++;
        } while (pageToken !== "");
        assert.equal(pages, 4);
        walks[transport] = seen;
      }
      const want = [NS, "team-b"].flatMap((ns) =>
        [0, 1, 2, 3, 4].map((i) => `${ns}/c${i}`)
      );
      assert.deepEqual(walks.http, want);
      assert.deepEqual(walks.grpc, want);

      // Without a page size: everything, no token (KubeRay's clients).
      for (const [, via] of TRANSPORTS) {
        const got = await via(corral, LIST, { namespace: NS });
        assert.equal((got.result!.clusters as unknown[]).length, 5);
        assert.equal(got.result!.nextPageToken, "");
      }
    });
  });

  Deno.test(`pagination ${mode}: clusters created and deleted between pages are neither repeated nor skipped`, async () => {
    await withCorral(cache, async (corral) => {
      const [, via] = TRANSPORTS[0];
      await via(corral, "proto.ComputeTemplateService/CreateComputeTemplate", {
        namespace: NS,
        computeTemplate: { name: "small", cpu: 1, memory: 1 },
      });
      const names = Array.from(
        { length: 12 },
        (_, i) => `c${String(i).padStart(2, "0")}`,
      );
      for (const name of names) await create(corral, NS, name);
      const stays = names.filter((_, i) => i % 3 !== 0);
      const seen: string[] = [];
      let pageToken = "";
      let round = 0;
      do {
        const got = await via(corral, LIST, {
          namespace: NS,
          pageSize: 4,
          pageToken,
        });
        assert.equal(got.code, 0, got.message);
        seen.push(
          ...(got.result!.clusters as { name: string }[]).map((c) => c.name),
        );
        pageToken = got.result!.nextPageToken as string;
        // Between pages: one that does not stay goes, two new ones come.
        const going = names.filter((n) => !stays.includes(n))[round];
        if (going) {
          await via(corral, "proto.ClusterService/DeleteCluster", {
            namespace: NS,
            name: going,
          });
        }
        await create(corral, NS, `a-new${round}`);
        await create(corral, NS, `z-new${round}`);
        round++;
      } while (pageToken !== "");
      assert.equal(new Set(seen).size, seen.length, `duplicates in ${seen}`);
      for (const name of stays) {
        assert.ok(seen.includes(name), `${name} skipped`);
      }
    });
  });
}

Deno.test("a bad page request is code 3 naming the field, the same on both transports", async () => {
  await withCorral(true, async (corral) => {
    const other = await TRANSPORTS[0][1](corral, LIST, {
      namespace: NS,
      pageSize: 1,
    });
    for (
      const [request, field] of [
        [{ pageSize: -1 }, "pageSize"],
        [{ pageToken: "not-a-token" }, "pageToken"],
        // A token of another list: team-a's namespace list, used for all.
        [
          { pageToken: "WyJ2MSIsImNsdXN0ZXJzL3RlYW0tYSIsInRlYW0tYSIsImMwIl0" },
          "pageToken",
        ],
      ] as const
    ) {
      const answers = [];
      for (const [, via] of TRANSPORTS) {
        const got = await via(corral, LIST_ALL, request);
        assert.equal(got.code, 3, got.message);
        assert.match(
          got.message,
          new RegExp(`^Cannot list clusters: ${field}: `),
        );
        answers.push(got.message);
      }
      assert.equal(answers[0], answers[1]);
    }
    assert.equal(other.code, 0);
  });
});

Deno.test("KubeRay's current names, limit and continue, page clusters and jobs as pageSize and pageToken do, on both transports", async () => {
  await withCorral(true, async (corral) => {
    const [, first] = TRANSPORTS[0];
    const template = await first(
      corral,
      "proto.ComputeTemplateService/CreateComputeTemplate",
      { namespace: NS, computeTemplate: { name: "small", cpu: 1, memory: 1 } },
    );
    assert.equal(template.code, 0, template.message);
    for (let i = 0; i < 3; i++) await create(corral, NS, `c${i}`);
    for (const [transport, via] of TRANSPORTS) {
      const seen: string[] = [];
      let token = "";
      do {
        const got = await via(corral, LIST, {
          namespace: NS,
          limit: 2,
          continue: token,
        });
        assert.equal(got.code, 0, `${transport}: ${got.message}`);
        const result = got.result as {
          clusters: { name: string }[];
          continue: string;
          nextPageToken: string;
        };
        assert.ok(result.clusters.length <= 2, transport);
        assert.equal(result.continue, result.nextPageToken, transport);
        seen.push(...result.clusters.map((c) => c.name));
        token = result.continue;
      } while (token !== "");
      assert.deepEqual(seen, ["c0", "c1", "c2"], transport);
      const jobs = await via(corral, "proto.RayJobService/ListRayJobs", {
        namespace: NS,
        limit: 1,
      });
      assert.equal(jobs.code, 0, `${transport}: ${jobs.message}`);
    }
  });
});

Deno.test("limit and continue refused by their own names, and beside pageSize and pageToken only when they agree", async () => {
  await withCorral(true, async (corral) => {
    const page = await TRANSPORTS[0][1](corral, LIST_ALL, { pageSize: 1 });
    assert.equal(page.code, 0, page.message);
    for (
      const [request, field] of [
        [{ limit: -1 }, "limit"],
        [{ continue: "not-a-token" }, "continue"],
        [{ limit: 2, pageSize: 3 }, "limit"],
        [{ continue: "a", pageToken: "b" }, "continue"],
      ] as const
    ) {
      const answers = [];
      for (const [, via] of TRANSPORTS) {
        const got = await via(corral, LIST_ALL, request);
        assert.equal(got.code, 3, got.message);
        assert.match(
          got.message,
          new RegExp(`^Cannot list clusters: ${field}: `),
        );
        answers.push(got.message);
      }
      assert.equal(answers[0], answers[1]);
    }
    const agreeing = await TRANSPORTS[1][1](corral, LIST_ALL, {
      limit: 1,
      pageSize: 1,
    });
    assert.equal(agreeing.code, 0, agreeing.message);
  });
});
