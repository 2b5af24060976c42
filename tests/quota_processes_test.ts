/**
 * Quotas across replicas as deployed: three main.ts processes, each with
 * its watch-backed cache, over one stand-in (served by this process and
 * reached over HTTP), the policy and tokens read from files. Six creates
 * at once into a namespace where two clusters fit, spread over the three:
 * what stands is followed change by change through the stand-in's watches
 * and is never over the quota, and what was answered OK is what stands
 * (tests/api/auth/quota_replicas_test.ts races every kind in-process).
 */
import { kubeconfigFor, startStandin } from "../standin/mod.ts";
import { writeAccessFiles } from "./api/auth/access_fixtures.ts";
import { clusterBody, CS, ok, root } from "./api/auth/quota_corrals.ts";
import { POLICY_WITH_QUOTAS } from "./api/auth/quota_fixtures.ts";
import { clear, race } from "./api/auth/quota_races.ts";
import { eventually } from "./eventually.ts";
import { type Corral, TRANSPORTS } from "./harness.ts";
import { corralOf } from "./main_client.ts";
import {
  FREE_PORTS,
  type MainProcess,
  NO_FAIR_USE_LIMITS,
  NO_SHUTDOWN_DELAY,
  startMain,
} from "./main_process.ts";

const NAMESPACE = "q-replicas";
const ROUNDS = 10;

async function ready(main: MainProcess): Promise<void> {
  await eventually(`${main.http}/readyz`, async () => {
    const response = await fetch(`${main.http}/readyz`);
    await response.body?.cancel();
    return response.status === 200 ? true : undefined;
  });
}

Deno.test("quotas across 3 main.ts replicas: 6 creates at once never stand over 2 clusters / 8 CPUs, and what stands is what was answered OK", async () => {
  const standin = startStandin({ hostname: "127.0.0.1", port: 0 });
  const files = await writeAccessFiles({ policy: POLICY_WITH_QUOTAS });
  const kubeconfig = `${files.dir}/kubeconfig`;
  await Deno.writeTextFile(kubeconfig, kubeconfigFor(standin.url));
  const started = await Promise.allSettled(
    ["a", "b", "c"].map((label) =>
      startMain({
        name: `replica ${label}`,
        startTimeoutMs: 60_000,
        args: [
          "--orchestrator",
          "kubernetes",
          "--kubeconfig",
          kubeconfig,
          ...FREE_PORTS,
          ...NO_SHUTDOWN_DELAY,
          ...NO_FAIR_USE_LIMITS,
          "--token-auth-file",
          files.tokenFile,
          "--authorization-policy-file",
          files.policyFile,
        ],
      })
    ),
  );
  const mains = started.flatMap((s) =>
    s.status === "fulfilled" ? [s.value] : []
  );
  const corrals: Corral[] = [];
  try {
    for (const s of started) if (s.status === "rejected") throw s.reason;
    for (const main of mains) {
      await ready(main);
      corrals.push(await corralOf(main));
    }
    await ok(
      TRANSPORTS[0][1](
        corrals[0],
        "proto.ComputeTemplateService/CreateComputeTemplate",
        {
          namespace: NAMESPACE,
          computeTemplate: { name: "t", cpu: 2, memory: 4, gpu: 1 },
        },
        root,
      ),
      "template",
    );
    for (let round = 0; round < ROUNDS; round++) {
      const racers = Array.from({ length: 6 }, (_, i) => {
        const name = `p${round}-${i}`;
        const [, via] = TRANSPORTS[(i + round) % 2];
        return {
          name: `RayCluster/${name}`,
          call: () =>
            via(
              corrals[i % 3],
              `${CS}/CreateCluster`,
              clusterBody(NAMESPACE, name, "root"),
              root,
            ),
        };
      });
      const stood = await race(
        standin.url,
        NAMESPACE,
        { maxClusters: 2, cpu: 8 },
        racers,
        round,
      );
      await clear(corrals[0], standin.url, NAMESPACE, stood);
    }
  } finally {
    for (const corral of corrals) await corral.close();
    await Promise.all(mains.map((main) => main.stop()));
    await standin.close();
    await files.remove();
  }
});
