/**
 * Finds duplicate keys in JSON text. `JSON.parse` silently keeps the last of
 * two equal keys; on an invoice that would drop data without a word, so such
 * bodies are rejected instead.
 */

/**
 * The open arrays and objects, innermost last, as parallel stacks: no
 * allocation per level beyond a set for objects with two keys or more.
 */
interface Nesting {
  /** True for an object, false for an array. */
  is_object: boolean[];
  /** Index of the current element (array) or keys seen so far (object). */
  count: number[];
  /** The key whose value is being read (objects). */
  last_key: string[];
  /** The keys seen, once an object has a second one. */
  keys: (Set<string> | undefined)[];
}

/**
 * The path of the value the innermost open level is reading, e.g.
 * `items[1]`; built only when a duplicate needs naming, so the scan stays
 * linear however deep the text nests.
 */
function path_of(nesting: Nesting): string {
  let path = "";
  for (let level = 0; level < nesting.is_object.length - 1; level++) {
    if (nesting.is_object[level]) {
      const key = nesting.last_key[level];
      path = path === "" ? key : `${path}.${key}`;
    } else {
      path = `${path}[${nesting.count[level]}]`;
    }
  }
  return path;
}

/** Records `key` in the innermost object; false when it was there already. */
function add_key(nesting: Nesting, key: string): boolean {
  const top = nesting.is_object.length - 1;
  const count = nesting.count[top];
  if (count > 0) {
    let keys = nesting.keys[top];
    if (!keys) {
      keys = new Set([nesting.last_key[top]]);
      nesting.keys[top] = keys;
    }
    if (keys.has(key)) return false;
    keys.add(key);
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
  const nesting: Nesting = { is_object: [], count: [], last_key: [], keys: [] };
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
      nesting.is_object.push(is_object);
      nesting.count.push(0);
      nesting.last_key.push("");
      nesting.keys.push(undefined);
      expecting_key = is_object;
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) {
      nesting.is_object.pop();
      nesting.count.pop();
      nesting.last_key.pop();
      nesting.keys.pop();
      expecting_key = false;
    } else if (char === 0x2c /* , */) {
      const top = nesting.is_object.length - 1;
      if (top >= 0 && nesting.is_object[top]) expecting_key = true;
      else if (top >= 0) nesting.count[top] += 1;
    }
    i++;
  }
  return undefined;
}
