// Shows XML text with syntax highlighting: the declaration, comments, tag
// names, attribute names and values, and text, each in a span of its own
// kind. Built from text nodes only (never HTML), one line per element start,
// as the service writes it.

const TOKEN =
  /(<\?[\s\S]*?\?>)|(<!--[\s\S]*?-->)|(<!\[CDATA\[[\s\S]*?\]\]>)|(<\/?)([^\s/>]+)([^>]*?)(\/?>)|([^<]+)/g;
const ATTRIBUTE = /([^\s=]+)(\s*=\s*)("[^"]*"|'[^']*')/g;

/**
 * @param {string} kind
 * @param {string} text
 * @returns {HTMLSpanElement}
 */
function span(kind, text) {
  const element = document.createElement("span");
  element.className = `xml-${kind}`;
  element.textContent = text;
  return element;
}

/**
 * The attributes part of a start tag, highlighted.
 * @param {string} text
 * @returns {(string | HTMLSpanElement)[]}
 */
function attributes(text) {
  /** @type {(string | HTMLSpanElement)[]} */
  const parts = [];
  let at = 0;
  for (const match of text.matchAll(ATTRIBUTE)) {
    parts.push(text.slice(at, match.index));
    parts.push(span("attr", match[1]), match[2], span("value", match[3]));
    at = (match.index ?? 0) + match[0].length;
  }
  parts.push(text.slice(at));
  return parts;
}

/**
 * Highlighted nodes for `xml`, indented for reading: each element starts on
 * a line of its own, two spaces deeper than its parent (the service writes
 * e-invoices on one line, with no mixed content, so this changes no text).
 * @param {string} xml
 * @returns {(string | HTMLSpanElement)[]}
 */
export function highlight_xml(xml) {
  /** @type {(string | HTMLSpanElement)[]} */
  const parts = [];
  let depth = 0;
  let after_tag_end = false;
  const line = () => {
    if (parts.length > 0) parts.push(`\n${"  ".repeat(depth)}`);
  };
  for (const match of xml.matchAll(TOKEN)) {
    if (match[1] || match[2]) {
      line();
      parts.push(span(match[1] ? "meta" : "comment", match[0]));
      after_tag_end = true;
    } else if (match[3]) {
      parts.push(span("text", match[3]));
      after_tag_end = false;
    } else if (match[4] !== undefined) {
      const closing = match[4] === "</";
      const empty = match[7] === "/>";
      if (closing) depth = Math.max(0, depth - 1);
      if (!closing || after_tag_end) line();
      parts.push(
        span("punct", match[4]),
        span("tag", match[5]),
        ...attributes(match[6]),
        span("punct", match[7]),
      );
      if (!closing && !empty) depth++;
      after_tag_end = closing || empty;
    } else if (match[8].trim() !== "") {
      parts.push(span("text", match[8]));
      after_tag_end = false;
    }
  }
  return parts;
}

/**
 * Puts `xml`, highlighted and indented, into `code`.
 * @param {HTMLElement} code
 * @param {string} xml
 */
export function show_xml(code, xml) {
  code.replaceChildren(...highlight_xml(xml));
}
