/**
 * Text as the invoice fonts can draw it (see {@link sanitize_text}).
 *
 * @module
 */

import { load_invoice_fonts } from "./fonts.ts";
import { han_font_order, script_font_for } from "./script_fonts.ts";
import {
  is_ignorable_format_character,
  UNSUPPORTED_CHARACTER_PLACEHOLDER,
} from "./unicode_coverage.ts";

let grapheme_segmenter: Intl.Segmenter | undefined;

/**
 * Whether every character is drawable as it is, by the Latin fonts or a
 * script font, with nothing to turn into a space or a line break, drop or
 * replace: then sanitizing changes nothing and needs no grapheme
 * segmentation (text in other scripts, the usual case for them).
 */
function all_drawable(text: string): boolean {
  const { normal, bold } = load_invoice_fonts();
  const han = han_font_order();
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp === 10) continue;
    // Tested in the order `sanitize_text` tests them.
    if (
      cp === 9 || cp === 0x0b || cp === 0x0c || cp === 0x85 ||
      cp === 0x2028 || cp === 0x2029 || cp === 0x200c || cp === 0x200d ||
      is_ignorable_format_character(cp)
    ) return false;
    if (cp < 0x10000 && normal.code_map[cp] && bold.code_map[cp]) continue;
    if (script_font_for(cp, han) === undefined) return false;
  }
  return true;
}

/**
 * Prepares text for the invoice font: NFC-normalises it (so "e" + U+0301
 * becomes the single glyph "é"), turns tabs into spaces and other line
 * separators into "\n", drops invisible format characters, and replaces
 * every grapheme cluster containing a character the font cannot draw with
 * {@link UNSUPPORTED_CHARACTER_PLACEHOLDER} — one per cluster, so an emoji
 * sequence or a CJK character becomes a single "�". The result only
 * contains characters of the font (and "\n"), which jsPDF needs: it
 * silently truncates a string at the first character without a glyph.
 */
export function sanitize_text(text: string): string {
  const { normal, bold } = load_invoice_fonts();
  const nfc = text.normalize("NFC");
  // Fast path: nothing to change (the common case).
  let clean = true;
  for (let i = 0; i < nfc.length; i++) {
    const c = nfc.charCodeAt(i);
    if (c === 10) continue;
    if (normal.code_map[c] === 0 || bold.code_map[c] === 0) {
      clean = false;
      break;
    }
  }
  if (clean || all_drawable(nfc)) return nfc;

  grapheme_segmenter ??= new Intl.Segmenter("en", { granularity: "grapheme" });
  let out = "";
  const unified = nfc.replace(/\r\n?/g, "\n");
  const han = han_font_order();
  for (const { segment } of grapheme_segmenter.segment(unified)) {
    let kept = "";
    let unsupported = false;
    let script = false;
    for (const ch of segment) {
      const cp = ch.codePointAt(0)!;
      if (
        cp === 10 || cp === 0x0b || cp === 0x0c || cp === 0x85 ||
        cp === 0x2028 || cp === 0x2029
      ) {
        kept += "\n";
      } else if (cp === 9) {
        kept += " ";
      } else if (cp === 0x200c || cp === 0x200d) {
        // Joiners shape the letters around them (Persian, Indic); they are
        // kept with script text and dropped elsewhere.
        kept += ch;
      } else if (is_ignorable_format_character(cp)) {
        continue;
      } else if (cp < 0x10000 && normal.code_map[cp] && bold.code_map[cp]) {
        kept += ch;
      } else if (script_font_for(cp, han) !== undefined) {
        kept += ch;
        script = true;
      } else {
        unsupported = true;
      }
    }
    if (!script) kept = kept.replace(/[\u200c\u200d]/g, "");
    out += unsupported ? UNSUPPORTED_CHARACTER_PLACEHOLDER : kept;
  }
  return out;
}
