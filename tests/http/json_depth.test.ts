import { assert, assertEquals } from "../assert.ts";
import {
  JSON_MAX_DEPTH,
  JsonDepthScanner,
  within_json_depth,
} from "../../server/json_depth.ts";

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
