/**
 * PDF content-stream operators for a laid-out line ({@link LineLayout}):
 * glyph runs shown with `TJ` (HarfBuzz advances and offsets as position
 * adjustments, `Ts` for vertical mark offsets), each line wrapped in
 * `/Span <</ActualText …>> BDC … EMC` so text extraction, search and copy
 * return the line as written, in logical order, whatever the shaping did
 * (ligatures, reordered vowel signs, right-to-left runs).
 *
 * @module
 */

import { hex4, type PreparedFont } from "./prepared_font.ts";
import type { LineLayout } from "./text_layout.ts";

/** Where drawn glyphs are registered: the document's font resources. */
export interface GlyphSink {
  /**
   * The resource name of `font` in this document; `record` notes a glyph
   * the document uses and the text it stands for (for ToUnicode), returning
   * the character code (CID) that shows it.
   */
  font_resource(font: PreparedFont): {
    resource: string;
    record(gid: number, text: string): number;
  };
}

/** Options of {@link line_operators}. */
export interface LineOperatorOptions {
  /** Left end of the line and baseline, in PDF user space (points). */
  x: number;
  y: number;
  /** Font size in points. */
  size: number;
  /** Fill colour operator, e.g. `"0.1 0.12 0.21 rg"`. */
  fill: string;
  /** The line's text in logical order, for ActualText. */
  text: string;
  sink: GlyphSink;
  /**
   * The page is drawn mirrored (`-1 0 0 1 W 0 cm`, right-to-left layouts):
   * the text matrix mirrors back, starting from the line's right end, so
   * glyphs read normally at the mirrored position.
   */
  mirrored?: boolean;
}

/** PDF number: at most three decimals, no exponent, no "-0". */
function num(value: number): string {
  const rounded = Math.round(value * 1000) / 1000;
  return rounded === 0 ? "0" : String(rounded);
}

/** A PDF text string in UTF-16BE hex with byte-order mark. */
function utf16_hex(text: string): string {
  let hex = "FEFF";
  for (let i = 0; i < text.length; i++) hex += hex4(text.charCodeAt(i));
  return hex;
}

/** Operators drawing `layout` (a complete marked-content sequence). */
export function line_operators(
  layout: LineLayout,
  { x, y, size, fill, text, sink, mirrored }: LineOperatorOptions,
): string {
  // Right-to-left lines get no ActualText: extractors such as poppler
  // spread ActualText over the span left to right and then reverse RTL
  // words again. They read such lines correctly from the glyphs' own
  // ToUnicode entries in visual order instead.
  const actual = !layout.mixed;
  let ops = actual ? `/Span<</ActualText<${utf16_hex(text)}>>>BDC\n` : "";
  const stroke = fill.replace(/rg$/, "RG");
  ops += `q ${fill} ${stroke} ${num(size * 0.035)} w BT\n` +
    (mirrored
      ? `-1 0 0 1 ${num(x + (layout.width * size) / 1000)} ${num(y)} Tm\n`
      : `1 0 0 1 ${num(x)} ${num(y)} Tm\n`);
  let mode = 0;
  for (const run of layout.runs) {
    if (run.glyphs.length === 0) continue;
    const { resource, record } = sink.font_resource(run.font);
    const want = run.fake_bold ? 2 : 0;
    if (want !== mode) {
      ops += `${want} Tr\n`;
      mode = want;
    }
    ops += `/${resource} ${num(size)} Tf\n`;
    const widths = run.font.widths;
    // The elements of the current TJ array, written as they come.
    let array = "";
    let pending = 0; // adjustment (1/1000 em, TJ sign) before the next glyph
    for (let i = 0; i < run.glyphs.length; i++) {
      const gid = run.glyphs[i];
      const code = hex4(record(gid, run.texts[i]));
      const dx = run.x_offsets?.[i] ?? 0;
      const dy = run.y_offsets?.[i] ?? 0;
      pending -= dx;
      if (Math.abs(pending) >= 0.05) array += num(pending);
      pending = 0;
      if (dy !== 0) {
        if (array !== "") ops += "[" + array + "] TJ\n";
        array = "";
        ops += `${num((dy * size) / 1000)} Ts [<${code}>] TJ 0 Ts\n`;
      } else array += "<" + code + ">";
      // After the glyph the viewer advances by its /W width; the shaper's
      // advance (less the offset already applied) is what we want.
      pending = Math.round(widths[gid]) - (run.advances[i] - dx);
    }
    if (Math.abs(pending) >= 0.05) array += num(pending);
    if (array !== "") ops += "[" + array + "] TJ\n";
  }
  ops += actual ? "ET Q\nEMC" : "ET Q";
  return ops;
}
