/**
 * Finds duplicate keys in JSON text. `JSON.parse` silently keeps the last of
 * two equal keys; on an invoice that would drop data without a word, so such
 * bodies are rejected instead.
 */

// Keys of an object compared one by one before a set is built for them:
// most objects of a request have a handful.
const KEYS_COMPARED_IN_TURN = 8;

/**
 * The open arrays and objects, as parallel per-level entries (level 0
 * outermost, `depth` of them open). A level's entries are reused by the
 * next array or object opened at that level, so the scan allocates only
 * for the first object with two keys at each level and for objects with
 * many keys.
 */
interface Nesting {
  depth: number;
  /** True for an object, false for an array. */
  is_object: boolean[];
  /** Index of the current element (array) or keys seen so far (object). */
  count: number[];
  /** The key whose value is being read (object levels only). */
  last_key: string[];
  /**
   * An object's first keys once it has two, while it has at most
   * KEYS_COMPARED_IN_TURN (the array of a level is made by the first object
   * there with two keys; an object with one has it in `last_key`).
   */
  first_keys: (string[] | undefined)[];
  /** Every key of an object that has more (object levels only). */
  keys: (Set<string> | undefined)[];
}

/**
 * The path of the value the innermost open level is reading, e.g.
 * `items[1]`; built only when a duplicate needs naming, so the scan stays
 * linear however deep the text nests.
 */
function path_of(nesting: Nesting): string {
  let path = "";
  for (let level = 0; level < nesting.depth - 1; level++) {
    if (nesting.is_object[level]) {
      const key = nesting.last_key[level];
      path = path === "" ? key : `${path}.${key}`;
    } else {
      path = `${path}[${nesting.count[level]}]`;
    }
  }
  return path;
}

/** Opens an array or object one level deeper. */
function open_level(nesting: Nesting, is_object: boolean): void {
  const level = nesting.depth++;
  nesting.is_object[level] = is_object;
  nesting.count[level] = 0;
  // An array's level needs no keys: text nested as deep as a body allows
  // allocates nothing per array level.
  if (!is_object) return;
  nesting.last_key[level] = "";
  nesting.keys[level] = undefined;
}

/** Records `key` in the innermost object; false when it was there already. */
function add_key(nesting: Nesting, key: string): boolean {
  const top = nesting.depth - 1;
  const count = nesting.count[top];
  let keys = nesting.keys[top];
  if (keys) {
    if (keys.has(key)) return false;
    keys.add(key);
  } else if (count === 1) {
    const only = nesting.last_key[top];
    if (only === key) return false;
    const first_keys = nesting.first_keys[top] ??= [];
    first_keys[0] = only;
    first_keys[1] = key;
  } else if (count > 1) {
    const first_keys = nesting.first_keys[top]!;
    for (let index = 0; index < count; index++) {
      if (first_keys[index] === key) return false;
    }
    if (count < KEYS_COMPARED_IN_TURN) {
      first_keys[count] = key;
    } else {
      keys = new Set(first_keys);
      keys.add(key);
      nesting.keys[top] = keys;
    }
  }
  nesting.count[top] = count + 1;
  nesting.last_key[top] = key;
  return true;
}

/**
 * Index of the quote that closes the string whose text begins at `start`
 * (the text's length if none does). The search for quotes is the engine's
 * own; a quote after an odd number of backslashes is part of the string.
 */
function string_end(text: string, start: number): number {
  let end = text.indexOf('"', start);
  while (end !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === 0x5c /* \ */) {
      backslashes++;
    }
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return text.length;
}

/**
 * The path of the first duplicate key (e.g. `items[1].rate`) in text that
 * `JSON.parse` accepted, or undefined when every object's keys are distinct.
 * One pass over the text: each key is decoded once and looked up once.
 */
export function find_duplicate_key(text: string): string | undefined {
  const nesting: Nesting = {
    depth: 0,
    is_object: [],
    count: [],
    last_key: [],
    first_keys: [],
    keys: [],
  };
  // After `{` or `,` inside an object, the next string is a key.
  let expecting_key = false;
  let i = 0;
  while (i < text.length) {
    const char = text.charCodeAt(i);
    if (char === 0x22 /* " */) {
      const start = ++i;
      i = string_end(text, start);
      if (expecting_key) {
        const raw = text.slice(start, i);
        const key = raw.includes("\\") ? JSON.parse(`"${raw}"`) as string : raw;
        if (!add_key(nesting, key)) {
          const parent = path_of(nesting);
          return parent === "" ? key : `${parent}.${key}`;
        }
        expecting_key = false;
      }
    } else if (char === 0x7b /* { */ || char === 0x5b /* [ */) {
      const is_object = char === 0x7b;
      open_level(nesting, is_object);
      expecting_key = is_object;
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) {
      if (nesting.depth > 0) nesting.depth--;
      expecting_key = false;
    } else if (char === 0x2c /* , */) {
      const top = nesting.depth - 1;
      if (top >= 0 && nesting.is_object[top]) expecting_key = true;
      else if (top >= 0) nesting.count[top] += 1;
    }
    i++;
  }
  return undefined;
}
