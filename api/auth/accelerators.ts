/**
 * Accelerators: the extended resources a pod may ask for without a rule
 * allowing them, which quotas count as `gpu` (and by name where a quota
 * names one). The policy file's `accelerators:` section lists them by
 * name or pattern (`*` is any run of characters); without the section,
 * DEFAULT_ACCELERATORS. The section replaces the defaults: list them too
 * to keep them.
 *
 *     accelerators:                  # optional (DEFAULT_ACCELERATORS)
 *       - names: ["nvidia.com/gpu", "nvidia.com/mig-*"]
 *       - names: ["example.com/fpga"]
 *
 * Any other extended resource (a domain-prefixed name outside
 * kubernetes.io: `example.com/dongle`, `smarter-devices/fuse`) reaches a
 * pod only where one rule that grants the request lists it in its
 * `extendedResources` (workload_grants.ts); quotas do not count it.
 */
import { extendedResourceNameProblems } from "../../domain/name_problems.ts";
import {
  type ListSection,
  listSectionOf,
  type Problem,
  requiredNamesAt,
} from "./policy_section.ts";
import { matchesAny } from "./workload_grants.ts";

/**
 * The accelerators without an `accelerators:` section: NVIDIA's GPUs and
 * their MIG slices, AMD's and Intel's GPUs, Google's TPUs, AWS's Neuron
 * devices and cores, Habana's Gaudi.
 */
export const DEFAULT_ACCELERATORS: readonly string[] = [
  "nvidia.com/gpu",
  "nvidia.com/mig-*",
  "amd.com/gpu",
  "gpu.intel.com/*",
  "google.com/tpu",
  "aws.amazon.com/neuron*",
  "habana.ai/gaudi",
];

/** Whether the resource `name` is one of `accelerators` (names or patterns). */
export function isAccelerator(
  name: string,
  accelerators: readonly string[] = DEFAULT_ACCELERATORS,
): boolean {
  return matchesAny(accelerators, name);
}

/**
 * Whether a container's resource `name` is an extended resource: a
 * domain-prefixed name outside kubernetes.io (cpu, memory,
 * ephemeral-storage and hugepages-* are Kubernetes' own).
 */
export function isExtendedResource(name: string): boolean {
  const slash = name.indexOf("/");
  if (slash < 0) return false;
  const prefix = name.slice(0, slash);
  return prefix !== "kubernetes.io" && !prefix.endsWith(".kubernetes.io");
}

/** Why an extended resource is refused: `"x.com/y" is ${UNLISTED}`. */
export const UNLISTED =
  "neither an accelerator of the policy (accelerators) nor allowed by a rule (extendedResources)";

/** The `accelerators:` section, as policy_section.ts reads it. */
const ACCELERATORS: ListSection<string[]> = {
  name: "accelerators",
  keys: new Set(["names"]),
  list: "a list of {names}",
  entry: "a mapping with names",
  read(entry, at, problem) {
    const names = requiredNamesAt(
      entry,
      "names",
      at,
      problem,
      'must be a non-empty list of extended resource names or patterns, such as "nvidia.com/mig-*"',
    ) ?? [];
    names.forEach((name, j) => {
      // A pattern is checked as the name it reads with `*` as one letter.
      const problems = extendedResourceNameProblems(name.replaceAll("*", "x"));
      if (problems.length > 0) {
        problem(`${at}.names[${j}]`, `"${name}" ${problems[0]}`);
      }
    });
    return names;
  },
};

/**
 * The `accelerators:` section of a policy file, its problems told to
 * `problem`; the defaults when it is absent (undefined).
 */
export function acceleratorsOf(
  value: unknown,
  problem: Problem,
): readonly string[] {
  if (value === undefined) return DEFAULT_ACCELERATORS;
  return listSectionOf(ACCELERATORS, value, problem).flat();
}
