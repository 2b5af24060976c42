/** The simulated dashboard's reading of a working directory package. */
import assert from "node:assert/strict";
import { zipFileNames } from "../../../standin/dashboard/zip.ts";
import { zipOf } from "../zip_fixture.ts";

Deno.test("zipFileNames() lists a zip's files and refuses what is not a zip", () => {
  assert.deepEqual(zipFileNames(zipOf({ "a.py": "", "b/c.txt": "x" })), [
    "a.py",
    "b/c.txt",
  ]);
  assert.equal(zipFileNames(new TextEncoder().encode("not a zip")), undefined);
});
