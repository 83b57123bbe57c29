/**
 * A small streaming XML writer: elements are opened and closed in order,
 * every text and attribute value is escaped on the way in.
 *
 * Our e-invoices are a few hundred elements with fixed names; a general XML
 * library (a DOM, namespaces resolution, pretty printing) would cost more
 * time than the whole mapping, so this writer only does what they need and
 * guarantees well-formed output for any input text.
 *
 * @module
 */

// Characters XML 1.0 does not allow at all (C0 controls other than tab,
// line feed and carriage return; U+FFFE, U+FFFF), and lone surrogates.
// deno-lint-ignore no-control-regex
const FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const LONE_SURROGATE =
  /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const NEEDS_TEXT_WORK =
  // deno-lint-ignore no-control-regex
  /[&<>\r\u0000-\u0008\u000b\u000c\u000e-\u001f\ud800-\udfff\ufffe\uffff]/;
const NEEDS_ATTRIBUTE_WORK =
  // deno-lint-ignore no-control-regex
  /[&<>"\t\n\r\u0000-\u0008\u000b\u000c\u000e-\u001f\ud800-\udfff\ufffe\uffff]/;

/** Text without the characters XML 1.0 forbids (they are dropped). */
function xml_chars(text: string): string {
  return text.replace(LONE_SURROGATE, "").replace(FORBIDDEN, "");
}

/**
 * Escapes element content: `&`, `<`, `>` become entities, characters XML
 * forbids are dropped, and a carriage return is written as `&#13;` so a
 * parser's line-end normalisation does not change the text.
 */
export function escape_xml_text(text: string): string {
  if (!NEEDS_TEXT_WORK.test(text)) return text;
  return xml_chars(text).replace(/&/g, "&amp;").replace(/</g, "&lt;")
    .replace(/>/g, "&gt;").replace(/\r/g, "&#13;");
}

/**
 * Escapes a double-quoted attribute value: as {@link escape_xml_text}, plus
 * `"` and the whitespace characters a parser would otherwise normalise.
 */
export function escape_xml_attribute(text: string): string {
  if (!NEEDS_ATTRIBUTE_WORK.test(text)) return text;
  return xml_chars(text).replace(/&/g, "&amp;").replace(/</g, "&lt;")
    .replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/\t/g, "&#9;")
    .replace(/\n/g, "&#10;").replace(/\r/g, "&#13;");
}

/** Attributes of an element; `undefined` values are left out. */
export type XmlAttributes = Record<string, string | undefined>;

const NAME = /^[A-Za-z_][A-Za-z0-9._-]*(:[A-Za-z_][A-Za-z0-9._-]*)?$/;

/**
 * Names already checked. They come from our code, a few hundred at most,
 * so each is tested against {@link NAME} once per process, not once per
 * element written.
 */
const checked_names = new Set<string>();
/** Bound of {@link checked_names}, should a caller pass names of its own. */
const MAX_CHECKED_NAMES = 4096;

function check_name(name: string): void {
  if (checked_names.has(name)) return;
  if (!NAME.test(name)) throw new Error(`not an XML name: ${name}`);
  if (checked_names.size < MAX_CHECKED_NAMES) checked_names.add(name);
}

function start_tag(name: string, attributes?: XmlAttributes): string {
  check_name(name);
  let tag = "<" + name;
  if (attributes !== undefined) {
    for (const key in attributes) {
      const value = attributes[key];
      if (value === undefined) continue;
      check_name(key);
      tag += ` ${key}="${escape_xml_attribute(value)}"`;
    }
  }
  return tag;
}

/**
 * Writes one XML document. Element and attribute names come from our code
 * (checked to be XML names); text and attribute values may be anything.
 *
 * @example
 * ```ts
 * const xml = new XmlWriter();
 * xml.open("a", { "xmlns:b": "urn:x" });
 * xml.leaf("b:c", "1 < 2");
 * xml.close();
 * xml.finish(); // '<?xml version="1.0" encoding="UTF-8"?>\n<a xmlns:b="urn:x"><b:c>1 &lt; 2</b:c></a>'
 * ```
 */
export class XmlWriter {
  #out = '<?xml version="1.0" encoding="UTF-8"?>\n';
  readonly #open: string[] = [];

  /** Opens an element; close it with {@link XmlWriter.close}. */
  open(name: string, attributes?: XmlAttributes): this {
    this.#out += start_tag(name, attributes) + ">";
    this.#open.push(name);
    return this;
  }

  /** Closes the innermost open element. */
  close(): this {
    const name = this.#open.pop();
    if (name === undefined) throw new Error("no open element to close");
    this.#out += `</${name}>`;
    return this;
  }

  /** Writes `<name attributes>text</name>`. */
  leaf(name: string, text: string, attributes?: XmlAttributes): this {
    this.#out += start_tag(name, attributes) + ">" + escape_xml_text(text) +
      `</${name}>`;
    return this;
  }

  /** Writes the element only when `text` is given and not blank. */
  optional(
    name: string,
    text: string | undefined,
    attributes?: XmlAttributes,
  ): this {
    if (text !== undefined && text.trim() !== "") {
      this.leaf(name, text, attributes);
    }
    return this;
  }

  /** The document; every element must be closed. */
  finish(): string {
    if (this.#open.length > 0) {
      throw new Error(`unclosed elements: ${this.#open.join(" > ")}`);
    }
    return this.#out;
  }
}
