/**
 * Lays out one line of text that the Latin invoice font alone cannot draw:
 * splits it into runs by font (Latin font, or the script font of each
 * character), resolves directions with the Unicode Bidirectional Algorithm
 * (npm `bidi-js`), shapes script runs with HarfBuzz and orders the runs
 * visually. The result is a list of glyph runs to draw left to right.
 *
 * Latin-only text never comes here: the renderer checks with
 * {@link needs_text_layout} first and keeps its direct path for it.
 *
 * @module
 */

import type { Bidi } from "bidi-js";
import type { PreparedFont } from "./prepared_font.ts";
import { BoundedCache } from "./bounded_cache.ts";
import { right_to_left_levels } from "./right_to_left_levels.ts";
import {
  han_font_order,
  type HanFontId,
  is_han_or_cjk_symbol,
  load_script_font,
  script_font_for,
  type ScriptFont,
} from "./script_fonts.ts";
import {
  load_shaping,
  shape_text,
  shaping_loaded,
  TextLayoutNotLoadedError,
} from "./shaping.ts";

export { TextLayoutNotLoadedError } from "./shaping.ts";

/** Options of {@link layout_line} and {@link measure_line}. */
export interface TextLayoutOptions {
  /** The Latin invoice font of the requested style (normal or bold). */
  latin: PreparedFont;
  /** Bold requested: script fonts (Regular only) are drawn fake-bold. */
  bold: boolean;
  /** Invoice locale, if any: picks regional Han glyph forms. */
  locale?: string;
  /** Paragraph direction; by default from the first strong character. */
  direction?: "ltr" | "rtl";
}

/** Glyphs of one font, in drawing order, with their positions. */
export interface GlyphRun {
  readonly font: PreparedFont;
  /** Draw with fill and outline (bold in a Regular-only script font). */
  readonly fake_bold: boolean;
  readonly glyphs: Uint16Array | readonly number[];
  /** Advances and offsets in 1/1000 em. */
  readonly advances: Float64Array | readonly number[];
  readonly x_offsets?: Float64Array;
  readonly y_offsets?: Float64Array;
  /**
   * For each glyph, the text it stands for in ToUnicode ("" for the second
   * and later glyphs of a cluster).
   */
  readonly texts: readonly string[];
}

/** A laid-out line: runs left to right, total width in 1/1000 em. */
export interface LineLayout {
  readonly runs: readonly GlyphRun[];
  readonly width: number;
  /** Resolved paragraph direction. */
  readonly rtl: boolean;
  /** Whether any part of the line runs right to left. */
  readonly mixed: boolean;
}

/**
 * Whether `text` (sanitized) holds any character the Latin font of
 * `latin` cannot draw, i.e. whether it needs {@link layout_line}.
 */
export function needs_text_layout(text: string, latin: PreparedFont): boolean {
  const map = latin.code_map;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (map[c] === 0 && c !== 10) return true;
  }
  return false;
}

let bidi: Bidi | undefined;

/**
 * Loads what {@link measure_line} and {@link layout_line} need: bidi-js
 * and HarfBuzz (`shaping.ts`). The renderer's entry (`mod.ts`) awaits it,
 * so its importers render every script synchronously; a render worker
 * imports the renderer without it and loads it when an invoice first needs
 * it (most invoices never do: about 1 MB of heap and 5 MB resident saved
 * per worker). Later calls return at once.
 */
export async function load_text_layout(): Promise<void> {
  if (bidi === undefined) {
    // bidi-js is CommonJS: its default import is the factory function
    // itself, which its type declarations do not say.
    const bidi_module = await import("bidi-js");
    bidi = (bidi_module.default as unknown as () => Bidi)();
  }
  await load_shaping();
}

/** Whether {@link load_text_layout} has finished. */
export function text_layout_loaded(): boolean {
  return bidi !== undefined && shaping_loaded();
}

/** The bidi algorithm; throws {@link TextLayoutNotLoadedError} before the load. */
function loaded_bidi(): Bidi {
  if (bidi === undefined || !shaping_loaded()) {
    throw new TextLayoutNotLoadedError();
  }
  return bidi;
}

const BIDI_MARKS = /[\u061c\u200e\u200f\u202a-\u202e]/g;
const HAS_BIDI_MARKS = /[\u061c\u200e\u200f\u202a-\u202e]/;
const ISOLATES = /[\u2066-\u2069]/g;

/** Text without bidi isolates (LRI, RLI, FSI, PDI), e.g. for ActualText. */
export function without_isolates(text: string): string {
  return text.replace(ISOLATES, "");
}

/**
 * Text without invisible bidi marks and embeddings (Intl puts RLM and ALM
 * into Arabic and Hebrew numbers and dates): the layout resolves direction
 * itself, and no font has glyphs for them.
 */
export function without_bidi_marks(text: string): string {
  return HAS_BIDI_MARKS.test(text) ? text.replace(BIDI_MARKS, "") : text;
}

/** A logical stretch of text in one font (undefined = Latin font). */
interface FontSpan {
  start: number;
  end: number;
  font: ScriptFont | undefined;
}

/** The Han font order of text without Han characters: never read. */
const NO_HAN_ORDER: readonly HanFontId[] = [];

const KANA = /[\u3040-\u30ff\u31f0-\u31ff\uff65-\uff9f]/;
const HANGUL = /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]/;

function han_order_for(text: string, locale?: string): readonly HanFontId[] {
  if (KANA.test(text)) return han_font_order("ja");
  if (HANGUL.test(text)) return han_font_order("ko");
  return han_font_order(locale);
}

/** Zero-width joiners and combining marks stay with the preceding run. */
function attaches_to_previous(cp: number): boolean {
  return cp === 0x200c || cp === 0x200d || (cp >= 0x0300 && cp <= 0x036f) ||
    (cp >= 0xfe00 && cp <= 0xfe0f);
}

/** Splits `text` into maximal spans drawn by one font. */
function font_spans(text: string, options: TextLayoutOptions): FontSpan[] {
  const map = options.latin.code_map;
  // The Han font order looks at the whole text: only worked out when the
  // text has a Han character (`script_font_for` reads it for those only).
  let han: readonly HanFontId[] | undefined;
  const spans: FontSpan[] = [];
  let i = 0;
  while (i < text.length) {
    const cp = text.codePointAt(i)!;
    const size = cp > 0xffff ? 2 : 1;
    let font: ScriptFont | undefined;
    const previous = spans.at(-1);
    if (previous !== undefined && attaches_to_previous(cp)) {
      font = previous.font;
    } else if (cp <= 0xffff && map[cp] !== 0) {
      font = undefined;
    } else {
      const id = script_font_for(
        cp,
        is_han_or_cjk_symbol(cp)
          ? han ??= han_order_for(text, options.locale)
          : NO_HAN_ORDER,
      );
      font = id === undefined ? undefined : load_script_font(id);
    }
    if (previous !== undefined && previous.font === font) {
      previous.end = i + size;
    } else spans.push({ start: i, end: i + size, font });
    i += size;
  }
  return spans;
}

/** Glyph run of Latin-font text, drawn in the given order. */
function latin_run(
  text: string,
  { latin, reverse }: { latin: PreparedFont; reverse: boolean },
): GlyphRun {
  const glyphs: number[] = [];
  const advances: number[] = [];
  const texts: string[] = [];
  const chars = [...text];
  if (reverse) chars.reverse();
  for (const ch0 of chars) {
    // Mirrored in right-to-left runs: "(" shows as ")" (Unicode BidiMirroring).
    const ch = reverse
      ? loaded_bidi().getMirroredCharacter(ch0) ??
        ch0
      : ch0;
    const code = ch.charCodeAt(0);
    const gid = ch.length === 1 ? latin.code_map[code] : 0;
    glyphs.push(gid);
    advances.push(latin.widths[gid]);
    texts.push(ch0);
  }
  return { font: latin, fake_bold: false, glyphs, advances, texts };
}

/** Glyph run of a script-font span, shaped by HarfBuzz. */
function shaped_run(
  text: string,
  { font, rtl, bold }: { font: ScriptFont; rtl: boolean; bold: boolean },
): GlyphRun {
  const shaped = shape_text(font, text, { rtl });
  return {
    font: font.prepared,
    fake_bold: bold,
    glyphs: shaped.glyphs,
    advances: shaped.advances,
    x_offsets: shaped.x_offsets,
    y_offsets: shaped.y_offsets,
    texts: shaped.texts,
  };
}

function run_width(run: GlyphRun): number {
  let w = 0;
  for (let i = 0; i < run.advances.length; i++) w += run.advances[i];
  return w;
}

function is_rtl_font(font: ScriptFont | undefined): boolean {
  return font?.id === "arabic" || font?.id === "hebrew";
}

/**
 * Laid-out lines and measured widths, per worker, by everything a layout
 * depends on: invoices of one sender repeat their labels, parties, terms
 * and item texts, and each line is measured before it is drawn. Layouts
 * share their script runs' arrays with the shaping cache.
 */
const line_layouts = new BoundedCache<LineLayout>({
  entries: 20_000,
  bytes: 4 * 1024 * 1024,
});
const line_widths = new BoundedCache<number>({
  entries: 20_000,
  bytes: 2 * 1024 * 1024,
});

/** The cache key of `text` laid out with `options`. */
function layout_key(text: string, options: TextLayoutOptions): string {
  return `${options.latin.postscript}\u0000${options.bold ? 1 : 0}` +
    `${options.locale ?? ""}\u0000${options.direction ?? ""}\u0000${text}`;
}

/** Approximate bytes a cached layout holds: its key, runs and glyphs. */
function layout_bytes(key: string, layout: LineLayout): number {
  let bytes = 2 * key.length + 300;
  // Per glyph: its id, advance and text in the run's arrays (a script
  // run's are the shaping cache's, kept alive by the layout).
  for (const run of layout.runs) bytes += 150 + 64 * run.glyphs.length;
  return bytes;
}

/**
 * Width of one line in 1/1000 em (direction does not change it, so no bidi
 * pass is needed).
 */
export function measure_line(
  text: string,
  options: TextLayoutOptions,
): number {
  const key = layout_key(text, options);
  return line_widths.cached(
    key,
    () => measured_width(text, options),
    () => 2 * key.length + 80,
  );
}

function measured_width(text0: string, options: TextLayoutOptions): number {
  loaded_bidi();
  const text = without_isolates(without_bidi_marks(text0));
  let width = 0;
  for (const span of font_spans(text, options)) {
    const part = text.slice(span.start, span.end);
    if (span.font === undefined) {
      const { code_map, widths } = options.latin;
      for (let i = 0; i < part.length; i++) {
        width += widths[code_map[part.charCodeAt(i)]];
      }
    } else {
      width += shape_text(span.font, part, { rtl: is_rtl_font(span.font) })
        .width;
    }
  }
  return width;
}

// Characters that can raise a bidi level: right-to-left letters and
// digits (Hebrew, Arabic, Syriac, Thaana, N'Ko, Samaritan, their
// presentation forms and the RTL planes) and the explicit controls.
const RAISES_LEVEL =
  /[\u0590-\u08ff\u200f\u202a-\u202e\u2066-\u2069\ufb1d-\ufdff\ufe70-\ufeff]|[\ud802-\ud803\ud83a-\ud83b]/;

/**
 * The bidi levels of a line and its paragraph level. Text without a
 * character that can raise a level, in a paragraph that is not
 * right-to-left, is level 0 throughout; right-to-left letters with marks,
 * digits and common punctuation, in a right-to-left paragraph, are resolved
 * by `right_to_left_levels.ts`. Most invoice text skips the full bidi
 * analysis.
 */
export function embedding_levels(
  text: string,
  direction: "ltr" | "rtl" | undefined,
): { levels: ArrayLike<number>; base: number } {
  if (direction !== "rtl" && !RAISES_LEVEL.test(text)) {
    return { levels: new Uint8Array(text.length), base: 0 };
  }
  const right_to_left = right_to_left_levels(text, direction);
  if (right_to_left) return { levels: right_to_left, base: 1 };
  const { levels, paragraphs } = loaded_bidi().getEmbeddingLevels(
    text,
    direction,
  );
  return {
    levels,
    base: paragraphs[0]?.level ?? (direction === "rtl" ? 1 : 0),
  };
}

/**
 * Lays out one line (no "\n"): bidi levels over the whole line, runs split
 * where the font or the level changes, script runs shaped, runs reordered
 * visually (UAX #9, rule L2). Layouts are cached: the result is shared and
 * must not be changed.
 */
export function layout_line(
  text: string,
  options: TextLayoutOptions,
): LineLayout {
  const key = layout_key(text, options);
  return line_layouts.cached(
    key,
    () => laid_out_line(text, options),
    (layout) => layout_bytes(key, layout),
  );
}

function laid_out_line(
  text0: string,
  options: TextLayoutOptions,
): LineLayout {
  const text = without_bidi_marks(text0);
  const { levels, base } = embedding_levels(text, options.direction);
  const pieces: {
    start: number;
    end: number;
    level: number;
    font: ScriptFont | undefined;
  }[] = [];
  for (const span of font_spans(text, options)) {
    let start = span.start;
    for (let i = span.start + 1; i <= span.end; i++) {
      if (i === span.end || levels[i] !== levels[start]) {
        // Never split a surrogate pair or a mark from its base by level.
        pieces.push({ start, end: i, level: levels[start], font: span.font });
        start = i;
      }
    }
  }
  // L2: reverse every maximal sequence at or above each odd level.
  let max = 0;
  let min_odd = 255;
  for (const p of pieces) {
    max = Math.max(max, p.level);
    if (p.level % 2 === 1) min_odd = Math.min(min_odd, p.level);
  }
  const order = pieces.slice();
  for (let level = max; level >= min_odd && level > 0; level--) {
    let i = 0;
    while (i < order.length) {
      if (order[i].level < level) {
        i++;
        continue;
      }
      let j = i;
      while (j < order.length && order[j].level >= level) j++;
      const reversed = order.slice(i, j).reverse();
      order.splice(i, j - i, ...reversed);
      i = j;
    }
  }
  const runs: GlyphRun[] = [];
  let width = 0;
  for (const p of order) {
    // Isolates steer the levels above; they are not drawn.
    const part = without_isolates(text.slice(p.start, p.end));
    if (part === "") continue;
    const rtl = p.level % 2 === 1;
    const run = p.font === undefined
      ? latin_run(part, { latin: options.latin, reverse: rtl })
      : shaped_run(part, { font: p.font, rtl, bold: options.bold });
    runs.push(run);
    width += run_width(run);
  }
  return { runs, width, rtl: base % 2 === 1, mixed: max > 0 };
}
