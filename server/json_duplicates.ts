/**
 * Finds duplicate keys in JSON text. `JSON.parse` silently keeps the last of
 * two equal keys; on an invoice that would drop data without a word, so such
 * bodies are rejected instead.
 */

interface Frame {
  /** Keys seen so far, for an object; undefined for an array. */
  keys?: Set<string>;
  path: string;
  /** Current element index, for an array. */
  index: number;
  /** The key whose value is being read, for an object. */
  last_key: string;
}

function child_path(parent: Frame | undefined): string {
  if (!parent) return "";
  if (parent.keys) {
    return parent.path === ""
      ? parent.last_key
      : `${parent.path}.${parent.last_key}`;
  }
  return `${parent.path}[${parent.index}]`;
}

/**
 * The path of the first duplicate key (e.g. `items[1].rate`) in text that
 * `JSON.parse` accepted, or undefined when every object's keys are distinct.
 */
export function find_duplicate_key(text: string): string | undefined {
  const stack: Frame[] = [];
  let expecting_key = false;
  let i = 0;
  while (i < text.length) {
    const char = text.charCodeAt(i);
    if (char === 0x22 /* " */) {
      const start = ++i;
      let escaped = false;
      while (i < text.length && text.charCodeAt(i) !== 0x22) {
        if (text.charCodeAt(i) === 0x5c /* \ */) {
          escaped = true;
          i++;
        }
        i++;
      }
      const top = stack[stack.length - 1];
      if (expecting_key && top?.keys) {
        const raw = text.slice(start, i);
        const key = escaped ? JSON.parse(`"${raw}"`) as string : raw;
        if (top.keys.has(key)) {
          return top.path === "" ? key : `${top.path}.${key}`;
        }
        top.keys.add(key);
        top.last_key = key;
        expecting_key = false;
      }
    } else if (char === 0x7b /* { */ || char === 0x5b /* [ */) {
      const is_object = char === 0x7b;
      stack.push({
        keys: is_object ? new Set() : undefined,
        path: child_path(stack[stack.length - 1]),
        index: 0,
        last_key: "",
      });
      expecting_key = is_object;
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) {
      stack.pop();
      expecting_key = false;
    } else if (char === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.keys) expecting_key = true;
      else if (top) top.index++;
    }
    i++;
  }
  return undefined;
}
