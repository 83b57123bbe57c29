import { assertEquals } from "../assert.ts";
import { find_duplicate_key } from "../../server/json_duplicates.ts";

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

/** The fastest of a few runs of `scan` (after one to warm up), in ms. */
function best_time(scan: () => void): number {
  scan();
  let best = Infinity;
  for (let run = 0; run < 5; run++) {
    const started = performance.now();
    scan();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

Deno.test("find_duplicate_key costs about what JSON.parse does, on wide or deep text", () => {
  // About 1 MB each (the largest body): one object with many keys, many
  // small items, nesting as deep as the text allows. JSON.parse is linear;
  // a scan that copied paths or revisited levels would cost many times it.
  const shapes = {
    wide: `{${
      Array.from({ length: 55_000 }, (_, index) => `"key${index}": [${index}]`)
        .join(",")
    }}`,
    items: `{"items": [${
      Array.from(
        { length: 22_000 },
        (_, index) => `{"description": "item ${index}", "rate": "1.00"}`,
      ).join(",")
    }]}`,
    deep: '{"a":['.repeat(85_000) + "1" + "]}".repeat(85_000),
    arrays: "[".repeat(500_000) + "]".repeat(500_000),
  };
  for (const [name, text] of Object.entries(shapes)) {
    assertEquals(find_duplicate_key(text), undefined);
    const parse = best_time(() => JSON.parse(text));
    const scan = best_time(() => find_duplicate_key(text));
    assertEquals(
      scan < 6 * Math.max(parse, 5),
      true,
      `${name}: scan ${scan.toFixed(1)} ms, JSON.parse ${parse.toFixed(1)} ms`,
    );
  }
  // The path is still exact where the duplicate sits deep down.
  const deep = '{"a":['.repeat(100) + "1" + "]}".repeat(100);
  assertEquals(
    find_duplicate_key(deep.replace('"a":[1]', '"a":[{"b":1,"b":2}]')),
    Array(100).fill("a[0]").join(".") + ".b",
  );
});
