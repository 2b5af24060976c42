/**
 * The reading every list section of the policy file shares
 * (policy_section.ts), alone: the sections' own tests read them through
 * the whole file.
 */
import assert from "node:assert/strict";
import {
  type ListSection,
  listSectionOf,
  namesAt,
} from "../../../api/auth/policy_section.ts";

/** A section whose entries are their `names:` ([] when absent). */
const NAMES: ListSection<string[]> = {
  name: "names",
  keys: new Set(["names"]),
  list: "a list of {names}",
  entry: "a mapping with names",
  read: (entry, at, problem) => namesAt(entry, "names", at, problem) ?? [],
};

function problemsOf(value: unknown): string[] {
  const problems: string[] = [];
  listSectionOf(
    NAMES,
    value,
    (field, why) => problems.push(`${field}: ${why}`),
  );
  return problems;
}

Deno.test("listSectionOf() tells a section that is not a list, an entry that is not a mapping, and unknown keys before the entry's own problems", () => {
  assert.deepEqual(problemsOf({}), ["names: must be a list of {names}"]);
  assert.deepEqual(problemsOf([[], "x", { names: ["a"] }]), [
    "names[0]: must be a mapping with names",
    "names[1]: must be a mapping with names",
  ]);
  assert.deepEqual(problemsOf([{ names: [""], other: 1 }]), [
    "names[0].other: unknown key",
    "names[0].names: must be a list of non-empty strings",
  ]);
  assert.deepEqual(
    listSectionOf(NAMES, [{ names: ["a", "b"] }, {}], () => {}),
    [["a", "b"], []],
  );
});
