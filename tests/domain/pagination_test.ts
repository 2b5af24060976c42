import assert from "node:assert/strict";
import { ServiceError } from "../../domain/errors.ts";
import { MAX_PAGE_SIZE, pageCursor } from "../../domain/pagination.ts";

const item = (namespace: string, name: string) => ({ namespace, name });
const keys = (items: { namespace: string; name: string }[]) =>
  items.map((i) => `${i.namespace}/${i.name}`);

function walk(
  all: () => { namespace: string; name: string }[],
  pageSize: number,
  list = "clusters",
) {
  const seen: string[] = [];
  let pageToken = "";
  for (let pages = 0; pages < 1000; pages++) {
    const page = pageCursor({ pageSize, pageToken }, list, "Cannot list")
      .page(all());
    seen.push(...keys(page.items));
    if (page.nextPageToken === "") return seen;
    pageToken = page.nextPageToken;
  }
  throw new Error("no last page");
}

Deno.test("pages follow namespace then name, the last with an empty token", () => {
  // Out of order, and "a-b" sorts after "a" as a namespace though
  // "a-b/x" < "a/x" as a string.
  const items = [
    item("a-b", "x"),
    item("a", "z"),
    item("a", "x"),
    item("b", "y"),
  ];
  assert.deepEqual(walk(() => items, 2), ["a/x", "a/z", "a-b/x", "b/y"]);
  const all = pageCursor({ pageSize: 0, pageToken: "" }, "clusters", "x")
    .page(items);
  assert.equal(all.items.length, 4, "page size 0: everything");
  assert.equal(all.nextPageToken, "");
});

Deno.test("page size is capped at 1000", () => {
  const items = Array.from(
    { length: 2500 },
    (_, i) => item("a", String(i).padStart(5, "0")),
  );
  const page = pageCursor({ pageSize: 5000, pageToken: "" }, "c", "x")
    .page(items);
  assert.equal(page.items.length, MAX_PAGE_SIZE);
  assert.notEqual(page.nextPageToken, "");
});

Deno.test("paging over a changing list repeats nothing and skips nothing that stayed", () => {
  let items = Array.from(
    { length: 30 },
    (_, i) => item(`ns${i % 3}`, `c${String(i).padStart(2, "0")}`),
  );
  const stayed = new Set(keys(items).filter((_, i) => i % 4 !== 0));
  let calls = 0;
  const seen = walk(() => {
    calls++;
    // Between pages, those that do not stay go, and new ones come on both
    // sides of the cursor.
    if (calls > 1) {
      items = items.filter((i) => stayed.has(`${i.namespace}/${i.name}`));
    }
    items.push(item("ns0", `new${calls}`), item("ns9", `new${calls}`));
    return items;
  }, 4);
  assert.equal(new Set(seen).size, seen.length, "no duplicates");
  for (const key of stayed) assert.ok(seen.includes(key), `${key} skipped`);
});

Deno.test("a negative size, a bad token and another list's token are code 3 naming the field", async (t) => {
  const first = pageCursor({ pageSize: 1, pageToken: "" }, "clusters/a", "x")
    .page([item("a", "x"), item("a", "y")]);
  const cases = [
    { pageSize: -1, pageToken: "", list: "clusters/a", field: "pageSize" },
    {
      pageSize: 1,
      pageToken: "garbage!",
      list: "clusters/a",
      field: "pageToken",
    },
    {
      pageSize: 1,
      pageToken: btoa('["v2","clusters/a","a","x"]'),
      list: "clusters/a",
      field: "pageToken",
    },
    {
      pageSize: 1,
      pageToken: first.nextPageToken,
      list: "clusters/b",
      field: "pageToken",
    },
  ];
  for (const c of cases) {
    await t.step(`${c.field} ${c.pageSize} ${c.pageToken.slice(0, 12)}`, () => {
      assert.throws(
        () => pageCursor(c, c.list, "Cannot list clusters"),
        (error: unknown) =>
          error instanceof ServiceError && error.code === 3 &&
          error.message.startsWith(`Cannot list clusters: ${c.field}:`),
      );
    });
  }
});
