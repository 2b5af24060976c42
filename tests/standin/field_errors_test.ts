import assert from "node:assert/strict";
import { goQuote } from "../../standin/field_errors.ts";

Deno.test("goQuote() quotes as Go's strconv.Quote", () => {
  assert.equal(goQuote('a"b\\c\n\x01é'), '"a\\"b\\\\c\\n\\x01é"');
});
