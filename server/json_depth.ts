/**
 * The nesting depth of JSON, checked before anything parses it. `JSON.parse`
 * and every walk over its result cost time and stack in proportion to the
 * depth, and no request the service takes nests deeper than a handful of
 * levels, so deeper text is refused without being parsed.
 *
 * @module
 */

/** The deepest nesting of arrays and objects a request may send. */
export const JSON_MAX_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Follows the nesting of JSON text as its UTF-8 bytes arrive, chunk by
 * chunk, in one pass. Only ASCII bytes are structural in JSON and UTF-8
 * never uses them inside a multi-byte character, so bytes are scanned as
 * they come. Malformed text is left to the parser: the scanner only answers
 * whether the nesting ever went past the limit.
 */
export class JsonDepthScanner {
  readonly #limit: number;
  #depth = 0;
  #in_string = false;
  #escaped = false;

  /** A scanner that refuses nesting deeper than `limit`. */
  constructor(limit: number = JSON_MAX_DEPTH) {
    this.#limit = limit;
  }

  /** Scans the next bytes; false once the nesting went deeper than the limit. */
  push(bytes: Uint8Array): boolean {
    let depth = this.#depth;
    let in_string = this.#in_string;
    let escaped = this.#escaped;
    const limit = this.#limit;
    for (let index = 0; index < bytes.length; index++) {
      const byte = bytes[index];
      if (in_string) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) in_string = false;
      } else if (byte === QUOTE) {
        in_string = true;
      } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
        depth += 1;
        if (depth > limit) {
          this.#depth = depth;
          return false;
        }
      } else if (
        (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) && depth > 0
      ) {
        depth -= 1;
      }
    }
    this.#depth = depth;
    this.#in_string = in_string;
    this.#escaped = escaped;
    return true;
  }
}

const encoder = new TextEncoder();

/** True when JSON text nests no deeper than `limit`. */
export function within_json_depth(
  text: string,
  limit: number = JSON_MAX_DEPTH,
): boolean {
  return new JsonDepthScanner(limit).push(encoder.encode(text));
}
