/**
 * The Kubernetes API stand-in and the simulated operator, as embedded mode
 * runs them, in a process of their own: what bench/soak.ts runs Corral in
 * kubernetes mode against, so that Corral's memory is Corral's alone (in
 * `deno task dev` the stand-in and the operator share Corral's process).
 *
 *   deno run -A bench/soak_standin.ts --operator-delay-ms 300
 *
 * Prints one JSON line when ready: {"url": ..., "kubeconfig": <path>}.
 */
import { parseArgs } from "node:util";
import type { Logger } from "../domain/log.ts";
import { startEmbedded } from "../standin/mod.ts";

/** The operator's log goes nowhere: the soak measures memory, not lines. */
const silent: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  with: () => silent,
};

const { values } = parseArgs({
  args: Deno.args,
  options: { "operator-delay-ms": { type: "string", default: "300" } },
});
const embedded = startEmbedded({
  group: "ray.io",
  version: "v1",
  plural: "rayclusters",
  crds: [],
  operatorDelayMs: Number(values["operator-delay-ms"]),
  logger: silent,
});
const kubeconfig = await Deno.makeTempFile({ suffix: ".kubeconfig" });
await Deno.writeTextFile(kubeconfig, embedded.kubeconfig);
console.log(JSON.stringify({ url: embedded.url, kubeconfig }));
Deno.addSignalListener("SIGTERM", async () => {
  await embedded.close();
  await Deno.remove(kubeconfig).catch(() => {});
  Deno.exit(0);
});
