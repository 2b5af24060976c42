import assert from "node:assert/strict";
import {
  isDns1035Label,
  isDns1123Label,
  isDns1123Subdomain,
  isLabelValue,
  isQualifiedName,
  matchesDns1035Label,
  matchesDns1123Label,
  matchesDns1123Subdomain,
  matchesLabelValue,
  matchesQualifiedNamePart,
  splitQualifiedName,
} from "../../domain/kubernetes_names.ts";

const LONG_LABEL = "a".repeat(63);
const TOO_LONG_LABEL = "a".repeat(64);
const LONG_SUBDOMAIN = `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${
  "d".repeat(61)
}`; // 253 characters

interface Case {
  value: string;
  /** What the check answers. */
  want: boolean;
}

/** Each check over its table; a failure names the check and the value. */
const TABLES: [string, (value: string) => boolean, Case[]][] = [
  ["isDns1123Label", isDns1123Label, [
    { value: "team-a", want: true },
    { value: "0abc", want: true },
    { value: "a", want: true },
    { value: LONG_LABEL, want: true },
    { value: TOO_LONG_LABEL, want: false },
    { value: "", want: false },
    { value: "Team-a", want: false },
    { value: "-a", want: false },
    { value: "a-", want: false },
    { value: "a.b", want: false },
    { value: "a_b", want: false },
  ]],
  ["matchesDns1123Label (no length limit)", matchesDns1123Label, [
    { value: TOO_LONG_LABEL, want: true },
    { value: "a.b", want: false },
  ]],
  ["isDns1123Subdomain", isDns1123Subdomain, [
    { value: "example.com", want: true },
    { value: "blue", want: true },
    { value: "0.0", want: true },
    { value: LONG_SUBDOMAIN, want: true },
    { value: `${LONG_SUBDOMAIN}e`, want: false },
    { value: "", want: false },
    { value: "example..com", want: false },
    { value: ".example", want: false },
    { value: "example.", want: false },
    { value: "Example.com", want: false },
    { value: "ex_ample", want: false },
  ]],
  ["matchesDns1123Subdomain (no length limit)", matchesDns1123Subdomain, [
    { value: `${LONG_SUBDOMAIN}e`, want: true },
  ]],
  ["isDns1035Label", isDns1035Label, [
    { value: "blue", want: true },
    { value: "a1", want: true },
    { value: LONG_LABEL, want: true },
    { value: TOO_LONG_LABEL, want: false },
    { value: "1blue", want: false },
    { value: "", want: false },
    { value: "blue-", want: false },
    { value: "b.lue", want: false },
  ]],
  ["matchesDns1035Label (no length limit)", matchesDns1035Label, [
    { value: TOO_LONG_LABEL, want: true },
    { value: "9", want: false },
  ]],
  ["isLabelValue", isLabelValue, [
    { value: "", want: true },
    { value: "MyValue", want: true },
    { value: "my_value.v-1", want: true },
    { value: "12345", want: true },
    { value: LONG_LABEL, want: true },
    { value: TOO_LONG_LABEL, want: false },
    { value: "_value", want: false },
    { value: "value-", want: false },
    { value: "a b", want: false },
    { value: "a/b", want: false },
  ]],
  ["matchesLabelValue (no length limit)", matchesLabelValue, [
    { value: TOO_LONG_LABEL, want: true },
  ]],
  ["matchesQualifiedNamePart", matchesQualifiedNamePart, [
    { value: "cluster-name", want: true },
    { value: "My.Name_1", want: true },
    { value: "", want: false },
    { value: ".name", want: false },
  ]],
  ["isQualifiedName", isQualifiedName, [
    { value: "ray.io/cluster-name", want: true },
    { value: "app.kubernetes.io/managed-by", want: true },
    { value: "plain", want: true },
    { value: `${LONG_SUBDOMAIN}/name`, want: true },
    { value: `example.com/${LONG_LABEL}`, want: true },
    { value: `example.com/${TOO_LONG_LABEL}`, want: false },
    { value: `${LONG_SUBDOMAIN}e/name`, want: false },
    { value: "/name", want: false },
    { value: "example.com/", want: false },
    { value: "Example.com/name", want: false },
    { value: "a/b/c", want: false },
    { value: "", want: false },
  ]],
];

Deno.test("Kubernetes naming checks accept and refuse as apimachinery does", async (t) => {
  for (const [check, fn, cases] of TABLES) {
    await t.step(check, () => {
      for (const { value, want } of cases) {
        assert.equal(
          fn(value),
          want,
          `${check}(${JSON.stringify(value)}): got ${!want}, want ${want}`,
        );
      }
    });
  }
});

Deno.test("splitQualifiedName() splits at the first slash", async (t) => {
  const cases = [
    {
      value: "ray.io/cluster-name",
      want: { prefix: "ray.io", name: "cluster-name" },
    },
    { value: "plain", want: { name: "plain" } },
    { value: "/name", want: { prefix: "", name: "name" } },
    { value: "a/b/c", want: { prefix: "a", name: "b/c" } },
  ];
  for (const { value, want } of cases) {
    await t.step(value, () => {
      assert.deepEqual(splitQualifiedName(value), want);
    });
  }
});
