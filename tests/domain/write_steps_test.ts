import assert from "node:assert/strict";
import {
  KIND_NAMES,
  KINDS,
  type WorkloadKindName,
  writeStepsOf,
} from "../../domain/kinds.ts";

const WORKLOADS: WorkloadKindName[] = ["clusters", "jobs", "services"];

Deno.test("every kind that runs pods has write steps, and the others none", () => {
  for (const name of KIND_NAMES) {
    assert.equal(
      KINDS[name].writes !== undefined,
      (WORKLOADS as string[]).includes(name),
      name,
    );
  }
});

Deno.test("write steps: a workload kind that takes no queue or expiry says why", () => {
  for (const name of WORKLOADS) {
    const steps = writeStepsOf(name);
    assert.deepEqual(
      [steps.owners, steps.admission, steps.quota],
      [true, true, true],
      name,
    );
    for (const step of [steps.queue, steps.expiry]) {
      if (step === true) continue;
      assert.match(step.not, /\w+ \w+/, `${name}: ${JSON.stringify(step)}`);
    }
  }
  assert.deepEqual(
    WORKLOADS.map((name) => {
      const { queue, expiry } = writeStepsOf(name);
      return [name, queue === true, expiry === true];
    }),
    [["clusters", true, true], ["jobs", true, true], [
      "services",
      false,
      true,
    ]],
  );
});
