// node:assert/strict for tests. `export * from` is rejected by the type
// checker for this `export =` module, so the assertions are re-exported one
// by one, each annotated so TypeScript keeps their `asserts` narrowing.
import assert from "node:assert/strict";

export default assert;
export const AssertionError: typeof assert.AssertionError =
  assert.AssertionError;
export const ok: typeof assert.ok = assert.ok;
export const fail: typeof assert.fail = assert.fail;
export const equal: typeof assert.equal = assert.equal;
export const notEqual: typeof assert.notEqual = assert.notEqual;
export const strictEqual: typeof assert.strictEqual = assert.strictEqual;
export const notStrictEqual: typeof assert.notStrictEqual =
  assert.notStrictEqual;
export const deepEqual: typeof assert.deepEqual = assert.deepEqual;
export const notDeepEqual: typeof assert.notDeepEqual = assert.notDeepEqual;
export const deepStrictEqual: typeof assert.deepStrictEqual =
  assert.deepStrictEqual;
export const notDeepStrictEqual: typeof assert.notDeepStrictEqual =
  assert.notDeepStrictEqual;
export const throws: typeof assert.throws = assert.throws;
export const doesNotThrow: typeof assert.doesNotThrow = assert.doesNotThrow;
export const rejects: typeof assert.rejects = assert.rejects;
export const doesNotReject: typeof assert.doesNotReject = assert.doesNotReject;
export const match: typeof assert.match = assert.match;
export const doesNotMatch: typeof assert.doesNotMatch = assert.doesNotMatch;
export const ifError: typeof assert.ifError = assert.ifError;

// The @std/assert names, so moving back to `jsr:@std/assert` is one line.
/** Asserts deep equality. */
export const assertEquals: <T>(
  actual: unknown,
  expected: T,
  message?: string,
) => asserts actual is T = assert.deepStrictEqual;
/** Asserts deep inequality. */
export const assertNotEquals: (
  actual: unknown,
  expected: unknown,
  message?: string,
) => void = assert.notDeepStrictEqual;
/** Asserts strict (===) equality. */
export const assertStrictEquals: <T>(
  actual: unknown,
  expected: T,
  message?: string,
) => asserts actual is T = assert.strictEqual;
/** Asserts a string matches a pattern. */
export const assertMatch: (
  actual: string,
  expected: RegExp,
  message?: string,
) => void = assert.match;
/** Asserts a string does not match a pattern. */
export const assertNotMatch: (
  actual: string,
  expected: RegExp,
  message?: string,
) => void = assert.doesNotMatch;
/** Asserts truthiness. */
export const assertOk: (value: unknown, message?: string) => asserts value =
  assert.ok;
/** Asserts truthiness (the @std/assert `assert`). */
export { assert_truthy as assert };
function assert_truthy(value: unknown, message?: string): asserts value {
  assert.ok(value, message);
}
/** Asserts a string contains a substring. */
export function assertStringIncludes(
  actual: string,
  expected: string,
  message?: string,
): void {
  assert.ok(
    actual.includes(expected),
    message ??
      `expected ${JSON.stringify(actual.slice(0, 200))} to include ${
        JSON.stringify(expected)
      }`,
  );
}
/** Asserts a value is greater than another. */
export function assertGreater(
  actual: number,
  expected: number,
  message?: string,
): void {
  assert.ok(actual > expected, message ?? `expected ${actual} > ${expected}`);
}
/** Asserts a value is less than another. */
export function assertLess(
  actual: number,
  expected: number,
  message?: string,
): void {
  assert.ok(actual < expected, message ?? `expected ${actual} < ${expected}`);
}
/** Asserts a promise rejects, returning the error. */
export async function assertRejects(
  fn: () => Promise<unknown>,
  message?: string,
): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new assert.AssertionError({
    message: message ?? "expected a rejection",
  });
}
/** Asserts a function throws, returning the error. */
export function assertThrows(fn: () => unknown, message?: string): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new assert.AssertionError({ message: message ?? "expected a throw" });
}
