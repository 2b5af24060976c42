import assert from "node:assert/strict";
import { visible } from "../../../api/service/service.ts";

const ITEMS = [
  { namespace: "kube-system", name: "a" },
  { namespace: "team-a", name: "b" },
];

Deno.test("visible() answers the list itself when nothing is hidden, so a kept list stays kept", () => {
  assert.equal(visible(ITEMS, undefined), ITEMS);
  assert.equal(visible(ITEMS, () => false), ITEMS);
});

Deno.test("visible() leaves out the items of hidden namespaces", () => {
  assert.deepEqual(
    visible(ITEMS, (namespace) => namespace.startsWith("kube-")),
    [ITEMS[1]],
  );
});
