/**
 * Text shaping with HarfBuzz (npm `harfbuzzjs`): turns a run of text in one
 * font and direction into positioned glyphs, as the font's OpenType layout
 * tables prescribe (Arabic joining and lam-alef, Indic conjuncts and vowel
 * signs, Thai mark stacking…).
 *
 * HarfBuzz itself (its WebAssembly, about 5 MB resident per isolate) is
 * loaded by {@link load_shaping}, not on import: a render worker that only
 * ever draws scripts of the Latin invoice font never starts it. HarfBuzz
 * faces are created lazily per script font and kept; one buffer is reused
 * for all calls (shaping is synchronous). Results are cached per font,
 * direction and text, since the same strings are measured for layout and
 * shaped again to be drawn.
 *
 * @module
 */

import type * as HarfBuzz from "harfbuzzjs";
import type { ScriptFont, ScriptFontId } from "./script_fonts.ts";
import { BoundedCache } from "./bounded_cache.ts";

/** Positioned glyphs of one run, in visual (left-to-right drawing) order. */
export interface ShapedRun {
  /** Glyph ids of the font. */
  readonly glyphs: Uint16Array;
  /** UTF-16 offset in the run's text of the cluster each glyph belongs to. */
  readonly clusters: Uint32Array;
  /** Advances and offsets in 1/1000 em. */
  readonly advances: Float64Array;
  readonly x_offsets: Float64Array;
  readonly y_offsets: Float64Array;
  /** Sum of the advances, in 1/1000 em. */
  readonly width: number;
  /**
   * For each glyph, the text it stands for in ToUnicode: its cluster's text
   * on the cluster's first glyph in logical order, "" on the others.
   */
  readonly texts: readonly string[];
}

let hb: typeof HarfBuzz | undefined;
const fonts = new Map<ScriptFontId, HarfBuzz.Font>();
let buffer: HarfBuzz.Buffer | undefined;
/**
 * Bound on what the shaping cache holds per isolate, in approximate bytes
 * (key as UTF-16, the run's arrays, object overhead). Distinct long texts
 * would fill memory long before its 20,000 entries (a 1,000-glyph run
 * holds about 65 KB).
 */
export const SHAPING_CACHE_BYTES_LIMIT = 8 * 1024 * 1024;
const cache = new BoundedCache<ShapedRun>({
  entries: 20_000,
  bytes: SHAPING_CACHE_BYTES_LIMIT,
});

/** Approximate bytes the shaping cache holds now. */
export function shaping_cache_bytes(): number {
  return cache.bytes;
}

function cached_run_bytes(key: string, glyphs: number): number {
  // Uint16 + Uint32 + three Float64 per glyph, and its text's slot and
  // string (a copy of up to a cluster of the key's text); ~300 bytes of
  // objects.
  return 4 * key.length + glyphs * (2 + 4 + 3 * 8 + 8 + 24) + 300;
}

/**
 * Thrown when text needs the text layout (shaping, bidi) before it is
 * loaded (`load_text_layout` in `text_layout.ts`). A caller that loads it
 * on first use catches this, awaits the load and renders again.
 */
export class TextLayoutNotLoadedError extends Error {
  /** Builds the error. */
  constructor() {
    super(
      "the text layout (HarfBuzz, bidi-js) is not loaded: await load_text_layout() first",
    );
    this.name = "TextLayoutNotLoadedError";
  }
}

/** Loads HarfBuzz (starts its WebAssembly) once; later calls return at once. */
export async function load_shaping(): Promise<void> {
  hb ??= await import("harfbuzzjs");
}

/** Whether {@link load_shaping} has finished. */
export function shaping_loaded(): boolean {
  return hb !== undefined;
}

function hb_font(harfbuzz: typeof HarfBuzz, font: ScriptFont): HarfBuzz.Font {
  let f = fonts.get(font.id);
  if (f === undefined) {
    f = new harfbuzz.Font(
      new harfbuzz.Face(new harfbuzz.Blob(font.bytes)),
    );
    fonts.set(font.id, f);
  }
  return f;
}

/**
 * Shapes `text` with `font`, right to left when `rtl`. The script and
 * language are guessed from the text (HarfBuzz's segment properties).
 * Throws {@link TextLayoutNotLoadedError} before {@link load_shaping}.
 */
export function shape_text(
  font: ScriptFont,
  text: string,
  { rtl }: { rtl: boolean },
): ShapedRun {
  const key = `${font.id}${rtl ? "<" : ">"}${text}`;
  return cache.cached(
    key,
    () => shaped(font, text, rtl),
    (run) => cached_run_bytes(key, run.glyphs.length),
  );
}

/** `text` shaped by HarfBuzz, with each glyph's text (see {@link shape_text}). */
function shaped(font: ScriptFont, text: string, rtl: boolean): ShapedRun {
  const harfbuzz = hb;
  if (harfbuzz === undefined) throw new TextLayoutNotLoadedError();
  const f = hb_font(harfbuzz, font);
  buffer ??= new harfbuzz.Buffer();
  buffer.clearContents();
  buffer.addText(text);
  buffer.guessSegmentProperties();
  buffer.setDirection(
    rtl ? harfbuzz.Direction.RTL : harfbuzz.Direction.LTR,
  );
  harfbuzz.shape(f, buffer);
  const infos = buffer.getGlyphInfos();
  const positions = buffer.getGlyphPositions();
  const n = infos.length;
  const scale = 1000 / font.prepared.ttf.units_per_em;
  const run = {
    glyphs: new Uint16Array(n),
    clusters: new Uint32Array(n),
    advances: new Float64Array(n),
    x_offsets: new Float64Array(n),
    y_offsets: new Float64Array(n),
    width: 0,
    texts: [] as readonly string[],
  };
  let width = 0;
  for (let i = 0; i < n; i++) {
    run.glyphs[i] = infos[i].codepoint;
    run.clusters[i] = infos[i].cluster;
    run.advances[i] = positions[i].xAdvance * scale;
    run.x_offsets[i] = positions[i].xOffset * scale;
    run.y_offsets[i] = positions[i].yOffset * scale;
    width += run.advances[i];
  }
  run.width = width;
  // Kept with the run: a cached run is drawn many times, its texts found once.
  run.texts = cluster_texts(text, run.clusters, rtl);
  return run;
}

/**
 * The text each glyph stands for ({@link ShapedRun.texts}), from the glyphs'
 * cluster offsets in `text` (visual order: right to left runs reversed).
 */
function cluster_texts(
  text: string,
  clusters: Uint32Array,
  rtl: boolean,
): string[] {
  const n = clusters.length;
  const length = text.length;
  // A cluster ends where the next cluster (by offset) starts, or with the
  // text. Flags and offsets per UTF-16 unit: no set, sort or map per run.
  const flags = new Uint8Array(length + 1);
  for (let i = 0; i < n; i++) flags[clusters[i]] = 1;
  const end_of = new Uint32Array(length + 1);
  let next = length;
  for (let c = length; c >= 0; c--) {
    end_of[c] = next;
    if (flags[c] === 1) next = c;
  }
  const texts: string[] = new Array(n).fill("");
  for (let k = 0; k < n; k++) {
    const i = rtl ? n - 1 - k : k;
    const c = clusters[i];
    if (flags[c] !== 1) continue;
    flags[c] = 2;
    texts[i] = text.slice(c, end_of[c]);
  }
  return texts;
}
