/**
 * Bidi levels of right-to-left invoice lines without the full analysis.
 *
 * A line of Hebrew or Arabic letters with their marks, digits, spaces and
 * common punctuation, in a right-to-left paragraph, has no left-to-right
 * letter and no explicit embedding. The Unicode Bidirectional Algorithm
 * (UAX #9) then comes down to one isolating run sequence between
 * right-to-left ends: the weak rules (W1–W6; W7 never applies without a
 * left-to-right letter), every neutral resolved to right-to-left (N1: its
 * neighbours are right-to-left letters, numbers, which count as such, or the
 * sequence's ends), and levels 1 for right-to-left and 2 for numbers (I2).
 * Any other character leaves the line to the full analysis.
 *
 * @module
 */

// Bidi classes of the characters this module resolves; 0: any other.
const R = 1;
const AL = 2;
const EN = 3;
const AN = 4;
const ES = 5;
const ET = 6;
const CS = 7;
const NSM = 8;
const WS = 9;
const ON = 10;

/** [first, last, class]: the characters resolved here, by range (UCD). */
const CLASS_RANGES: readonly (readonly [number, number, number])[] = [
  [0x20, 0x20, WS],
  [0x21, 0x22, ON], // ! "
  [0x23, 0x25, ET], // # $ %
  [0x26, 0x2a, ON], // & ' ( ) *
  [0x2b, 0x2b, ES], // +
  [0x2c, 0x2c, CS], // ,
  [0x2d, 0x2d, ES], // -
  [0x2e, 0x2f, CS], // . /
  [0x30, 0x39, EN], // 0–9
  [0x3a, 0x3a, CS], // :
  [0x3b, 0x40, ON], // ; < = > ? @
  [0x5b, 0x60, ON], // [ \ ] ^ _ `
  [0x7b, 0x7e, ON], // { | } ~
  [0xa0, 0xa0, CS], // no-break space
  [0xa2, 0xa5, ET], // ¢ £ ¤ ¥
  [0xb0, 0xb1, ET], // ° ±
  [0x0591, 0x05bd, NSM], // Hebrew points and accents
  [0x05be, 0x05be, R],
  [0x05bf, 0x05bf, NSM],
  [0x05c0, 0x05c0, R],
  [0x05c1, 0x05c2, NSM],
  [0x05c3, 0x05c3, R],
  [0x05c4, 0x05c5, NSM],
  [0x05c6, 0x05c6, R],
  [0x05c7, 0x05c7, NSM],
  [0x05c8, 0x05f4, R], // Hebrew letters and punctuation
  [0x060c, 0x060c, CS], // Arabic comma
  [0x061b, 0x061b, AL], // Arabic semicolon
  [0x061f, 0x061f, AL], // Arabic question mark
  [0x0620, 0x064a, AL], // Arabic letters
  [0x064b, 0x065f, NSM], // Arabic vowel marks
  [0x0660, 0x0669, AN], // Arabic-Indic digits
  [0x066a, 0x066a, ET], // Arabic percent sign
  [0x066b, 0x066c, AN], // Arabic decimal and thousands separators
  [0x066e, 0x066f, AL],
  [0x0670, 0x0670, NSM],
  [0x0671, 0x06d5, AL],
  [0x06f0, 0x06f9, EN], // extended Arabic-Indic digits
  [0x20a0, 0x20bf, ET], // currency signs
];

const CLASS_OF = (() => {
  const table = new Uint8Array(0x20c0);
  for (const [first, last, bidi_class] of CLASS_RANGES) {
    table.fill(bidi_class, first, last + 1);
  }
  return table;
})();

/**
 * The levels of `text` as UAX #9 resolves them in a right-to-left
 * paragraph (stated, or of no stated direction with a right-to-left
 * letter), or undefined when the line needs the full analysis: a character
 * outside the ranges above, or no right-to-left paragraph.
 */
export function right_to_left_levels(
  text: string,
  direction: "ltr" | "rtl" | undefined,
): Uint8Array | undefined {
  if (direction === "ltr") return undefined;
  const types = new Uint8Array(text.length);
  let right_to_left_letter = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const bidi_class = code < CLASS_OF.length ? CLASS_OF[code] : 0;
    if (bidi_class === 0) return undefined;
    if (bidi_class === R || bidi_class === AL) right_to_left_letter = true;
    types[i] = bidi_class;
  }
  // P2–P3: with no left-to-right letter, a right-to-left one decides.
  if (direction === undefined && !right_to_left_letter) return undefined;
  resolve_weak_types(types);
  // N1 (every neutral between right-to-left ends) and I2.
  for (let i = 0; i < types.length; i++) {
    types[i] = types[i] === EN || types[i] === AN ? 2 : 1;
  }
  return types;
}

/** W1–W6 over the whole line, whose ends (sos, eos) are right-to-left. */
function resolve_weak_types(types: Uint8Array): void {
  const n = types.length;
  // W1 (a mark takes the class before it, the start's at the start), W2
  // (a European digit after an Arabic letter is an Arabic number), W3.
  let before = R;
  let last_strong = R;
  for (let i = 0; i < n; i++) {
    let type = types[i] === NSM ? before : types[i];
    before = type;
    if (type === R || type === AL) last_strong = type;
    if (type === EN && last_strong === AL) type = AN;
    types[i] = type === AL ? R : type;
  }
  // W4: one separator between two numbers of the same kind joins them.
  for (let i = 1; i < n - 1; i++) {
    const left = types[i - 1];
    if (left !== types[i + 1]) continue;
    if (
      (types[i] === ES && left === EN) ||
      (types[i] === CS && (left === EN || left === AN))
    ) {
      types[i] = left;
    }
  }
  // W5: terminators next to a European number are part of it; W6: the
  // separators and terminators left are neutrals.
  let i = 0;
  while (i < n) {
    if (types[i] !== ET) {
      if (types[i] === ES || types[i] === CS) types[i] = ON;
      i++;
      continue;
    }
    let end = i;
    while (end < n && types[end] === ET) end++;
    const joined = (i > 0 && types[i - 1] === EN) ||
      (end < n && types[end] === EN);
    types.fill(joined ? EN : ON, i, end);
    i = end;
  }
}
