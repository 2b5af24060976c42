import assert from "node:assert/strict";
import {
  formatKubernetesTime,
  formatTimestamp,
} from "../../domain/timestamps.ts";

Deno.test("formatTimestamp() and formatKubernetesTime() write RFC 3339 in UTC", async (t) => {
  const cases = [
    {
      date: "2024-05-01T12:00:00.000Z",
      timestamp: "2024-05-01T12:00:00Z",
      kubernetes: "2024-05-01T12:00:00Z",
    },
    {
      date: "2024-05-01T12:00:00.250Z",
      timestamp: "2024-05-01T12:00:00.250Z",
      kubernetes: "2024-05-01T12:00:00Z",
    },
    {
      date: "2024-05-01T23:59:59.999Z",
      timestamp: "2024-05-01T23:59:59.999Z",
      kubernetes: "2024-05-01T23:59:59Z",
    },
    {
      date: "2024-05-01T14:30:00.000+02:00",
      timestamp: "2024-05-01T12:30:00Z",
      kubernetes: "2024-05-01T12:30:00Z",
    },
  ];
  for (const c of cases) {
    await t.step(c.date, () => {
      const date = new Date(c.date);
      assert.equal(formatTimestamp(date), c.timestamp);
      assert.equal(formatKubernetesTime(date), c.kubernetes);
    });
  }
});

Deno.test("formatKubernetesTime() is now, to the second, without an argument", () => {
  const before = Math.floor(Date.now() / 1000) * 1000;
  const text = formatKubernetesTime();
  const after = Date.now();
  assert.match(text, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const time = Date.parse(text);
  assert.ok(time >= before && time <= after, `got ${text}`);
});
