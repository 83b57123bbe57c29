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
 * they come; the inside of a string is skipped with the engine's own byte
 * search, as most of an invoice's bytes are text. Malformed text is left to
 * the parser: the scanner only answers whether the nesting ever went past
 * the limit.
 */
export class JsonDepthScanner {
  readonly #limit: number;
  #depth = 0;
  #in_string = false;
  /** The chunk ended inside a string on a backslash that escapes the next byte. */
  #escaped = false;

  /** A scanner that refuses nesting deeper than `limit`. */
  constructor(limit: number = JSON_MAX_DEPTH) {
    this.#limit = limit;
  }

  /** Scans the next bytes; false once the nesting went deeper than the limit. */
  push(bytes: Uint8Array): boolean {
    let depth = this.#depth;
    const limit = this.#limit;
    let index = 0;
    if (this.#in_string) {
      index = this.#string_end(bytes, 0);
      if (index === -1) return true;
      index++;
    }
    for (; index < bytes.length; index++) {
      const byte = bytes[index];
      if (byte === QUOTE) {
        index = this.#string_end(bytes, index + 1);
        if (index === -1) break;
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
    return true;
  }

  /**
   * Index of the quote that closes the string whose bytes go on at `start`,
   * or -1 when the chunk ends inside it (the state then says so). A quote
   * after an odd run of backslashes is text; the run is counted from
   * `start` on, where no escape is pending.
   */
  #string_end(bytes: Uint8Array, start: number): number {
    let from = start;
    if (this.#escaped && from < bytes.length) {
      this.#escaped = false;
      from++;
    }
    const text_start = from;
    for (;;) {
      const quote = bytes.indexOf(QUOTE, from);
      const end = quote === -1 ? bytes.length : quote;
      let backslashes = 0;
      while (
        end - 1 - backslashes >= text_start &&
        bytes[end - 1 - backslashes] === BACKSLASH
      ) {
        backslashes++;
      }
      if (quote === -1) {
        this.#in_string = true;
        // A pending escape carries over an empty chunk.
        this.#escaped ||= backslashes % 2 === 1;
        return -1;
      }
      if (backslashes % 2 === 0) {
        this.#in_string = false;
        return quote;
      }
      from = quote + 1;
    }
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
