import { assertEquals } from "./assert.ts";
import { find_duplicate_key } from "../server/json_duplicates.ts";

Deno.test("find_duplicate_key finds duplicates at any depth, with their path", () => {
  assertEquals(find_duplicate_key('{"a": 1, "a": 2}'), "a");
  assertEquals(
    find_duplicate_key('{"s": {"name": "x", "name": "y"}}'),
    "s.name",
  );
  assertEquals(
    find_duplicate_key(
      '{"items": [{"rate": 1}, {"rate": 1, "amount": 2, "rate": 3}]}',
    ),
    "items[1].rate",
  );
  // Escapes are compared by value: "\u0061" is "a".
  assertEquals(find_duplicate_key('{"a": 1, "\\u0061": 2}'), "a");
});

Deno.test("find_duplicate_key accepts distinct keys and ignores strings that look like keys", () => {
  assertEquals(
    find_duplicate_key('{"a": "a", "b": ["a", "a"], "c": {"a": 1}}'),
    undefined,
  );
  assertEquals(
    find_duplicate_key('{"a": "x\\"y", "b": "{\\"a\\": 1}"}'),
    undefined,
  );
  assertEquals(find_duplicate_key('[{"a": 1}, {"a": 1}]'), undefined);
  assertEquals(find_duplicate_key('"plain"'), undefined);
  assertEquals(find_duplicate_key("{}"), undefined);
});
