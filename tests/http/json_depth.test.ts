import { assert, assertEquals } from "../assert.ts";
import {
  JSON_MAX_DEPTH,
  JsonDepthScanner,
  within_json_depth,
} from "../../server/json_depth.ts";
import { seeded_random } from "../helpers/random.ts";

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

Deno.test("json depth: 64 levels pass, 65 do not, arrays and objects alike", () => {
  assertEquals(JSON_MAX_DEPTH, 64);
  assert(within_json_depth(nested(64)));
  assert(!within_json_depth(nested(65)));
  const objects = (depth: number) =>
    '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
  assert(within_json_depth(objects(64)));
  assert(!within_json_depth(objects(65)));
  // Depth is nesting, not the number of brackets.
  assert(within_json_depth(`[${Array(10_000).fill("[[]]").join(",")}]`));
});

Deno.test("json depth: brackets inside strings and escaped quotes are text", () => {
  const text = JSON.stringify({ note: "[".repeat(100) + '"{' + "\\" });
  assert(within_json_depth(text));
  assert(within_json_depth(`["\\\\", ${nested(63)}]`));
  assert(!within_json_depth(`["\\\\", ${nested(64)}]`));
  assert(within_json_depth(`["\\"[[[[", ${nested(63)}]`));
});

Deno.test("json depth: chunks split anywhere give the same answer", () => {
  const bytes = new TextEncoder().encode(
    `{"a": "x\\"[[[", "b": ${nested(63)}, "c": "ü[" }`,
  );
  for (let cut = 0; cut <= bytes.length; cut++) {
    const scanner = new JsonDepthScanner();
    assert(scanner.push(bytes.subarray(0, cut)));
    assert(scanner.push(bytes.subarray(cut)), `cut at ${cut}`);
  }
  const deep = new TextEncoder().encode(nested(65));
  const scanner = new JsonDepthScanner();
  assert(scanner.push(deep.subarray(0, 64)));
  assertEquals(scanner.push(deep.subarray(64, 65)), false);
});

// The nesting depth reached, byte by byte: what the scanner must agree with.
function deepest_by_bytes(bytes: Uint8Array): number {
  let depth = 0;
  let deepest = 0;
  let in_string = false;
  let escaped = false;
  for (const byte of bytes) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (byte === 0x5c) escaped = true;
      else if (byte === 0x22) in_string = false;
    } else if (byte === 0x22) in_string = true;
    else if (byte === 0x5b || byte === 0x7b) {
      deepest = Math.max(deepest, ++depth);
    } else if ((byte === 0x5d || byte === 0x7d) && depth > 0) depth--;
  }
  return deepest;
}

Deno.test("json depth: strings of quotes and backslashes, cut into random chunks, agree with a byte-by-byte reading", () => {
  const random = seeded_random(20261127);
  const alphabet = ['"', "\\", "[", "]", "{", "}", "a", "ü", ","];
  for (let round = 0; round < 2_000; round++) {
    const length = 1 + Math.floor(random() * 40);
    const text = Array.from(
      { length },
      () => alphabet[Math.floor(random() * alphabet.length)],
    ).join("");
    const bytes = new TextEncoder().encode(text);
    const deepest = deepest_by_bytes(bytes);
    const limit = Math.max(0, deepest - Math.floor(random() * 2));
    const scanner = new JsonDepthScanner(limit);
    let within = true;
    let at = 0;
    while (at < bytes.length && within) {
      const next = Math.min(
        bytes.length,
        at + Math.floor(random() * 6),
      );
      within = scanner.push(bytes.subarray(at, next));
      at = next;
    }
    assertEquals(
      within,
      deepest <= limit,
      `${JSON.stringify(text)} limit ${limit}`,
    );
  }
});
