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

Deno.test("find_duplicate_key ends each string at its closing quote, however many backslashes precede quotes", () => {
  // A string ending in an escaped backslash: its closing quote is real.
  assertEquals(find_duplicate_key('{"a": "x\\\\", "a": 1}'), "a");
  // Escaped quotes (one or three backslashes) stay inside the string.
  assertEquals(
    find_duplicate_key('{"a": "x\\", \\"a\\": 1", "b": 2}'),
    undefined,
  );
  assertEquals(
    find_duplicate_key('{"a": "\\\\\\"", "b": {"a": 1, "a": 2}}'),
    "b.a",
  );
  // Keys with escapes are compared by value.
  assertEquals(find_duplicate_key('{"q\\"": 1, "q\\u0022": 2}'), 'q"');
  // Random values with quotes and backslashes never hide or invent a key.
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const pieces = ['"', "\\", "a", ",", ":", "{", "}", " ", "\\u0022"];
  for (let index = 0; index < 2_000; index++) {
    let value = "";
    for (let piece = 0; piece < 8; piece++) {
      value += pieces[Math.floor(random() * pieces.length)];
    }
    const distinct = JSON.stringify({ a: value, [value]: 1, b: [value] });
    assertEquals(find_duplicate_key(distinct), undefined, distinct);
    const twice = `{"k": ${JSON.stringify(value)}, "k": 2}`;
    assertEquals(find_duplicate_key(twice), "k", twice);
  }
});

Deno.test("find_duplicate_key finds a repeated key among few or many keys, and forgets an object's keys once it closes", () => {
  for (let count = 1; count <= 20; count++) {
    const keys = Array.from({ length: count }, (_, index) => `k${index}`);
    const fields = keys.map((key, index) => `"${key}": ${index}`);
    const object = `{${fields.join(", ")}}`;
    assertEquals(find_duplicate_key(object), undefined, object);
    for (const repeated of keys) {
      const twice = `{${fields.join(", ")}, "${repeated}": 0}`;
      assertEquals(find_duplicate_key(twice), repeated, twice);
      const nested = `{"a": [${object}, {"x": 1, "${repeated}": 2}], "b": ${
        twice.replace('"k0": 0', '"k0": {"k0": 1}')
      }}`;
      assertEquals(find_duplicate_key(nested), `b.${repeated}`, nested);
    }
  }
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
