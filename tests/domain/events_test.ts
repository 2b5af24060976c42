import assert from "node:assert/strict";
import {
  eventsByCluster,
  namespacedName,
} from "../../domain/event_conversions.ts";
import type { KubeEvent } from "../../domain/resources.ts";

function event(
  name: string,
  involvedObject: KubeEvent["involvedObject"],
): KubeEvent {
  return { metadata: { name }, involvedObject };
}

Deno.test("eventsByCluster() groups RayCluster events by namespace and name, and drops the rest", () => {
  const events = [
    event("a1", { kind: "RayCluster", namespace: "team-a", name: "blue" }),
    event("b1", { kind: "RayCluster", namespace: "team-b", name: "blue" }),
    event("p1", { kind: "Pod", namespace: "team-a", name: "blue" }),
    event("a2", { kind: "RayCluster", namespace: "team-a", name: "blue" }),
    event("g1", { kind: "RayCluster", namespace: "team-a", name: "green" }),
  ];
  const groups = eventsByCluster(events);
  const names = (key: string) =>
    groups.get(key)?.map((e) => e.metadata.name) ?? [];
  assert.deepEqual(names(namespacedName("team-a", "blue")), ["a1", "a2"]);
  assert.deepEqual(names(namespacedName("team-b", "blue")), ["b1"]);
  assert.deepEqual(names(namespacedName("team-a", "green")), ["g1"]);
  assert.equal(groups.size, 3, "the Pod's event is in no group");
});
