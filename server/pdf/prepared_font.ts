/**
 * A TrueType font parsed once per process and pre-digested for PDF output:
 * glyph lookup by UTF-16 code unit, widths in 1/1000 em, glyph ids as hex
 * and the FontDescriptor entries. Shared by the Latin invoice fonts
 * (`fonts.ts`) and the lazily loaded script fonts (`script_fonts.ts`).
 *
 * @module
 */

import { parse_truetype, type TrueTypeFont } from "./truetype.ts";

/** A font parsed once per process, shared read-only by all documents. */
export interface PreparedFont {
  /** Distinguishes fonts in subset tags ("normal", "bold", "arabic"…). */
  style: string;
  postscript: string;
  ttf: TrueTypeFont;
  /**
   * UTF-16 code unit → glyph id (0 = not in the font). jsPDF reads it as
   * `codeMap[code]`; a typed array is much faster than an object here.
   */
  code_map: Uint16Array;
  /** Advance widths in 1/1000 em, by glyph id. */
  widths: Float64Array;
  /** Each glyph id as four hex digits, for encoding text. */
  gid_hex: string[];
  /** PDF FontDescriptor entries (bbox, ascent…), preformatted. */
  descriptor: string;
}

/** Parses `bytes` and derives everything PDF output needs from it. */
export function prepare_font(
  bytes: Uint8Array,
  { style, postscript }: { style: string; postscript: string },
): PreparedFont {
  const ttf = parse_truetype(bytes);
  const code_map = new Uint16Array(0x10000);
  for (const [cp, gid] of ttf.cmap) if (cp < 0x10000) code_map[cp] = gid;
  const scale = 1000 / ttf.units_per_em;
  const widths = new Float64Array(ttf.num_glyphs);
  for (let g = 0; g < ttf.num_glyphs; g++) {
    widths[g] = ttf.advances[g] * scale;
  }

  const head = table_view(ttf, "head");
  const os2 = table_view(ttf, "OS/2");
  const post = table_view(ttf, "post");
  const v2 = os2.getUint16(0) >= 2;
  const bbox = [36, 38, 40, 42].map((at) =>
    Math.round(head.getInt16(at) * scale)
  );
  const ascent = Math.round(os2.getInt16(68) * scale); // sTypoAscender
  const descent = Math.round(os2.getInt16(70) * scale); // sTypoDescender
  const cap_height = v2 ? Math.round(os2.getInt16(88) * scale) : ascent;
  const x_height = v2 ? Math.round(os2.getInt16(86) * scale) : 0;
  const italic_angle = post.getInt32(4) / 65536;
  // TrueType fonts do not store StemV; this is the usual estimate from the
  // weight class. Viewers use it only when they substitute the font.
  const weight = os2.getUint16(4);
  const stem_v = Math.round(10 + 220 * ((weight - 50) / 900) ** 2);
  const descriptor = `/Flags 32/FontBBox [${bbox.join(" ")}]` +
    `/ItalicAngle ${italic_angle}/Ascent ${ascent}/Descent ${descent}` +
    `/CapHeight ${cap_height}/XHeight ${x_height}/StemV ${stem_v}`;
  const gid_hex = Array.from({ length: ttf.num_glyphs }, (_, g) => hex4(g));
  return { style, postscript, ttf, code_map, widths, gid_hex, descriptor };
}

function table_view(ttf: TrueTypeFont, tag: string): DataView {
  const t = ttf.tables.get(tag);
  if (t === undefined) throw new Error(`font lacks '${tag}'`);
  return new DataView(t.buffer, t.byteOffset, t.byteLength);
}

/**
 * {@link hex4} of the 16-bit values met so far, so each is built once per
 * process (every glyph drawn asks for one). Allocated at full length so
 * V8 keeps it a flat array: 256 KB of slots.
 */
const hex4_texts = new Array<string | undefined>(0x10000);

/** Four upper-case hex digits, as PDF hex strings and CMaps spell ids. */
export function hex4(value: number): string {
  const known = hex4_texts[value];
  if (known !== undefined) return known;
  const text = value.toString(16).toUpperCase().padStart(4, "0");
  if (Number.isInteger(value) && value >= 0 && value <= 0xffff) {
    hex4_texts[value] = text;
  }
  return text;
}
