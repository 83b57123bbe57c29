/**
 * Which characters invoice PDFs can show with the Latin invoice font.
 *
 * The Latin font (Noto Sans, subset at build time by `build_fonts.ts`)
 * keeps exactly the characters of these blocks that Noto Sans Regular and
 * Bold both draw. Other scripts have fonts of their own (`script_fonts.ts`);
 * a character no font draws is shown as
 * {@link UNSUPPORTED_CHARACTER_PLACEHOLDER}.
 *
 * @module
 */

/** A block of Unicode code points, both ends inclusive. */
export interface UnicodeRange {
  readonly start: number;
  readonly end: number;
  readonly name: string;
}

/**
 * Unicode blocks the invoice font covers, in the order their glyphs are
 * numbered in the embedded font (most common first, which keeps the fonts
 * embedded in typical documents small).
 *
 * Within a block only the characters Noto Sans actually draws are supported
 * (for example of Mathematical Operators only U+2212 MINUS SIGN).
 */
export const SUPPORTED_UNICODE_RANGES: readonly UnicodeRange[] = [
  { start: 0x0020, end: 0x007e, name: "Basic Latin" },
  { start: 0x00a0, end: 0x00ff, name: "Latin-1 Supplement" },
  { start: 0x2000, end: 0x206f, name: "General Punctuation" },
  { start: 0x20a0, end: 0x20cf, name: "Currency Symbols" },
  { start: 0x0100, end: 0x017f, name: "Latin Extended-A" },
  { start: 0x0180, end: 0x024f, name: "Latin Extended-B" },
  { start: 0x02b0, end: 0x02ff, name: "Spacing Modifier Letters" },
  { start: 0x0300, end: 0x036f, name: "Combining Diacritical Marks" },
  { start: 0x0370, end: 0x03ff, name: "Greek and Coptic" },
  { start: 0x0400, end: 0x04ff, name: "Cyrillic" },
  { start: 0x0500, end: 0x052f, name: "Cyrillic Supplement" },
  { start: 0x1e00, end: 0x1eff, name: "Latin Extended Additional" },
  { start: 0x2070, end: 0x209f, name: "Superscripts and Subscripts" },
  { start: 0x2100, end: 0x214f, name: "Letterlike Symbols" },
  { start: 0x2150, end: 0x218f, name: "Number Forms" },
  { start: 0x2200, end: 0x22ff, name: "Mathematical Operators" },
  {
    start: 0xfb00,
    end: 0xfb06,
    name: "Latin ligatures (Alphabetic Presentation Forms)",
  },
  { start: 0xfffd, end: 0xfffd, name: "Replacement Character" },
  { start: 0x1f00, end: 0x1fff, name: "Greek Extended" },
];

/**
 * Shown in place of every character (grapheme cluster) the font cannot draw,
 * e.g. CJK ideographs or emoji: U+FFFD REPLACEMENT CHARACTER "�".
 */
export const UNSUPPORTED_CHARACTER_PLACEHOLDER = "\uFFFD";

/** Human-readable summary of the supported ranges, e.g. for a README. */
export const SUPPORTED_CHARACTERS_DESCRIPTION: string =
  "Latin (Basic Latin, Latin-1, Latin Extended-A, -B and Additional), " +
  "Greek (including polytonic), Cyrillic (including Cyrillic Supplement), " +
  "general punctuation, currency symbols, super/subscripts, letterlike " +
  "symbols and number forms, as drawn by Noto Sans; and, with one Noto " +
  "font per script, Chinese (GB 2312 and Big5 characters), Japanese " +
  "(JIS X 0208 and kana), Korean (all modern hangul, KS X 1001 hanja), " +
  "Arabic (with Persian and Urdu letters), Hebrew, Devanagari, Bengali, " +
  "Tamil, Thai, Armenian and Georgian. Other characters (emoji, Ethiopic, " +
  "Khmer, …) are rendered as U+FFFD \u201C\uFFFD\u201D.";

/** Code points in {@link SUPPORTED_UNICODE_RANGES}, in glyph-numbering order. */
export function supported_range_code_points(): number[] {
  const out: number[] = [];
  for (const range of SUPPORTED_UNICODE_RANGES) {
    for (let cp = range.start; cp <= range.end; cp++) out.push(cp);
  }
  return out;
}

/**
 * Invisible formatting characters (zero-width spaces and joiners, bidi
 * controls, soft hyphen, BOM…). They carry no ink, so the renderer drops
 * them instead of showing a placeholder, and the font does not include them.
 */
export function is_ignorable_format_character(cp: number): boolean {
  return cp === 0x00ad || (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) ||
    cp === 0xfeff || (cp >= 0xfe00 && cp <= 0xfe0f);
}
