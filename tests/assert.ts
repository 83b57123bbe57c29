/**
 * Assertions for the tests, with @std/assert's names and signatures.
 *
 * JSR (and so `@std/assert`) cannot be reached from our build machines, so
 * these wrap `node:assert/strict`. Moving back is one line:
 * `export * from "jsr:@std/assert";`
 *
 * @module
 */
import node_assert from "node:assert/strict";

/** Asserts deep (structural, strict) equality. */
export function assertEquals<T>(
  actual: unknown,
  expected: T,
  message?: string,
): asserts actual is T {
  node_assert.deepStrictEqual(actual, expected, message);
}

/** Asserts deep inequality. */
export function assertNotEquals(
  actual: unknown,
  expected: unknown,
  message?: string,
): void {
  node_assert.notDeepStrictEqual(actual, expected, message);
}

/** Asserts `===` equality. */
export function assertStrictEquals<T>(
  actual: unknown,
  expected: T,
  message?: string,
): asserts actual is T {
  node_assert.strictEqual(actual, expected, message);
}

/** Asserts `!==`. */
export function assertNotStrictEquals(
  actual: unknown,
  expected: unknown,
  message?: string,
): void {
  node_assert.notStrictEqual(actual, expected, message);
}

/** Asserts that a value is truthy. */
export function assert(value: unknown, message?: string): asserts value {
  node_assert.ok(value, message);
}

/** Asserts that a string matches a pattern. */
export function assertMatch(
  actual: string,
  expected: RegExp,
  message?: string,
): void {
  node_assert.match(actual, expected, message);
}

/** Asserts that a string does not match a pattern. */
export function assertNotMatch(
  actual: string,
  expected: RegExp,
  message?: string,
): void {
  node_assert.doesNotMatch(actual, expected, message);
}

/** Asserts that a string contains a substring. */
export function assertStringIncludes(
  actual: string,
  expected: string,
  message?: string,
): void {
  node_assert.ok(
    actual.includes(expected),
    message ??
      `expected ${JSON.stringify(actual.slice(0, 300))} to include ${
        JSON.stringify(expected)
      }`,
  );
}

/** Asserts `actual > expected`. */
export function assertGreater(
  actual: number,
  expected: number,
  message?: string,
): void {
  node_assert.ok(
    actual > expected,
    message ?? `expected ${actual} > ${expected}`,
  );
}

/** Asserts `actual < expected`. */
export function assertLess(
  actual: number,
  expected: number,
  message?: string,
): void {
  node_assert.ok(
    actual < expected,
    message ?? `expected ${actual} < ${expected}`,
  );
}

// deno-lint-ignore no-explicit-any
type ErrorClass = new (...args: any[]) => Error;

function check_error(
  error: unknown,
  error_class?: ErrorClass,
  includes?: string,
): void {
  if (error_class && !(error instanceof error_class)) {
    throw new node_assert.AssertionError({
      message: `expected ${error_class.name}, got ${String(error)}`,
    });
  }
  if (
    includes !== undefined &&
    !String((error as Error)?.message).includes(includes)
  ) {
    throw new node_assert.AssertionError({
      message: `expected the error message to include ${
        JSON.stringify(includes)
      }, got ${JSON.stringify((error as Error)?.message)}`,
    });
  }
}

/** Asserts that `fn` rejects (optionally with a class and message); returns the error. */
export async function assertRejects(
  fn: () => PromiseLike<unknown>,
  error_class?: ErrorClass,
  includes?: string,
): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    check_error(error, error_class, includes);
    return error;
  }
  throw new node_assert.AssertionError({ message: "expected a rejection" });
}

/** Asserts that `fn` throws (optionally with a class and message); returns the error. */
export function assertThrows(
  fn: () => unknown,
  error_class?: ErrorClass,
  includes?: string,
): unknown {
  try {
    fn();
  } catch (error) {
    check_error(error, error_class, includes);
    return error;
  }
  throw new node_assert.AssertionError({ message: "expected a throw" });
}
