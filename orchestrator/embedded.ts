// Temporary: replaced by standin/mod.ts when the stand-in moves.
import { kubeconfigFor, startStandin } from "./standin.ts";
import { startSimulatedOperator } from "./simulated_operator.ts";
import type { Logger } from "../domain/log.ts";

export function startEmbedded(options: {
  crds: string[];
  operatorDelayMs: number;
  cluster: { group: string; version: string; plural: string };
  log: Logger;
}) {
  const standin = startStandin({
    hostname: "127.0.0.1",
    port: 0,
    crds: options.crds,
  });
  const operator = startSimulatedOperator({
    server: standin.url,
    delayMs: options.operatorDelayMs,
    logger: options.log.with({ component: "simulated-operator" }),
  });
  if (options.crds.length > 0) {
    options.log.info("Installed CRDs into the stand-in", {
      files: options.crds,
    });
  }
  return {
    kubeconfig: kubeconfigFor(standin.url),
    close: async () => {
      await operator.stop();
      await standin.close();
    },
  };
}
