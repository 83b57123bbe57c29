/**
 * The script fonts: Noto Sans families for the scripts the Latin invoice
 * font (Noto Sans) does not cover — Arabic, Hebrew, Devanagari, Bengali,
 * Tamil, Thai, Armenian, Georgian and CJK (Simplified and Traditional
 * Chinese, Japanese, Korean).
 *
 * Each is subset at build time (`build_fonts.ts`, with HarfBuzz's subsetter
 * so the layout tables stay usable) into `fonts/`, and loaded lazily: a
 * process (render worker) reads and parses a script font the first time an
 * invoice uses its script and keeps it afterwards. Only Regular weights
 * ship; bold text in these scripts is drawn as "fake bold" (fill plus a
 * thin outline of the same colour), which keeps the repository and memory
 * at half the size.
 *
 * @module
 */

import { prepare_font, type PreparedFont } from "./prepared_font.ts";

/** Identifier of a script font family. */
export type ScriptFontId =
  | "arabic"
  | "hebrew"
  | "devanagari"
  | "bengali"
  | "tamil"
  | "thai"
  | "armenian"
  | "georgian"
  | "sc"
  | "tc"
  | "jp"
  | "kr";

/** The CJK fonts, each of which can draw Han ideographs. */
export type HanFontId = "sc" | "tc" | "jp" | "kr";

/** Where a script font comes from and which characters it keeps. */
export interface ScriptFontSource {
  /** npm package (SIL OFL 1.1). */
  readonly package: string;
  /** Path of the Regular TTF inside the package. */
  readonly source: string;
  /** File name under `server/pdf/fonts/`. */
  readonly file: string;
  /** PostScript name of the embedded font. */
  readonly postscript: string;
  /** What the build keeps, for documentation. */
  readonly coverage: string;
}

function noto(
  name: string,
  slug: string,
  version: string,
  coverage: string,
): ScriptFontSource {
  return {
    package: `@expo-google-fonts/noto-sans-${slug}@${version}`,
    source: `400Regular/NotoSans${name}_400Regular.ttf`,
    file: `NotoSans${name}-Regular.subset.ttf`,
    postscript: `NotoSans${name}-Regular`,
    coverage,
  };
}

const WHOLE = "every character of the font";

/** Source and coverage of every script font. */
export const SCRIPT_FONT_SOURCES: Readonly<
  Record<ScriptFontId, ScriptFontSource>
> = {
  arabic: noto("Arabic", "arabic", "0.4.3", WHOLE),
  hebrew: noto("Hebrew", "hebrew", "0.4.1", WHOLE),
  devanagari: noto("Devanagari", "devanagari", "0.4.1", WHOLE),
  bengali: noto("Bengali", "bengali", "0.4.4", WHOLE),
  tamil: noto("Tamil", "tamil", "0.4.3", WHOLE),
  thai: noto("Thai", "thai", "0.4.2", WHOLE),
  armenian: noto("Armenian", "armenian", "0.4.2", WHOLE),
  georgian: noto("Georgian", "georgian", "0.4.3", WHOLE),
  sc: noto(
    "SC",
    "sc",
    "0.4.3",
    "GB 2312 (6,763 hanzi, levels 1 and 2, and its symbols), CJK " +
      "punctuation, kana, full- and half-width forms",
  ),
  tc: noto(
    "TC",
    "tc",
    "0.4.3",
    "Big5 (13,053 hanzi, levels 1 and 2, and its symbols), CJK " +
      "punctuation, kana, full- and half-width forms",
  ),
  jp: noto(
    "JP",
    "jp",
    "0.4.3",
    "JIS X 0208 (6,355 kanji, levels 1 and 2, kana and symbols), CJK " +
      "punctuation, full- and half-width forms",
  ),
  kr: noto(
    "KR",
    "kr",
    "0.4.3",
    "all 11,172 modern hangul syllables, hangul jamo, KS X 1001 " +
      "(4,888 hanja and symbols), CJK punctuation, full- and half-width forms",
  ),
};

/** Unicode blocks routed to each non-Han script font (start, end inclusive). */
const SCRIPT_BLOCKS: readonly [number, number, ScriptFontId][] = [
  [0x0530, 0x058f, "armenian"],
  [0x0590, 0x05ff, "hebrew"],
  [0x0600, 0x06ff, "arabic"],
  [0x0750, 0x077f, "arabic"],
  [0x0870, 0x08ff, "arabic"],
  [0x0900, 0x097f, "devanagari"],
  [0x0980, 0x09ff, "bengali"],
  [0x0b80, 0x0bff, "tamil"],
  [0x0e00, 0x0e7f, "thai"],
  [0x10a0, 0x10ff, "georgian"],
  [0x1100, 0x11ff, "kr"],
  [0x1c90, 0x1cbf, "georgian"],
  [0x1cd0, 0x1cff, "devanagari"],
  [0x2d00, 0x2d2f, "georgian"],
  [0x3040, 0x30ff, "jp"],
  [0x3130, 0x318f, "kr"],
  [0x31f0, 0x31ff, "jp"],
  [0xa8e0, 0xa8ff, "devanagari"],
  [0xa960, 0xa97f, "kr"],
  [0xac00, 0xd7ff, "kr"],
  [0xfb13, 0xfb17, "armenian"],
  [0xfb1d, 0xfb4f, "hebrew"],
  [0xfb50, 0xfdff, "arabic"],
  [0xfe70, 0xfeff, "arabic"],
  [0xff65, 0xff9f, "jp"],
  [0xffa0, 0xffdc, "kr"],
];

/** Whether `cp` is a Han ideograph or CJK symbol any CJK font may draw. */
export function is_han_or_cjk_symbol(cp: number): boolean {
  return (cp >= 0x2e80 && cp <= 0x2fdf) || (cp >= 0x3000 && cp <= 0x303f) ||
    (cp >= 0x3190 && cp <= 0x31ef) || (cp >= 0x3200 && cp <= 0x9fff) ||
    (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xffef) || (cp >= 0x20000 && cp <= 0x3134f);
}

/** The script font whose Unicode blocks hold `cp` (not for Han), if any. */
export function script_font_for_block(cp: number): ScriptFontId | undefined {
  let low = 0;
  let high = SCRIPT_BLOCKS.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const [start, end, id] = SCRIPT_BLOCKS[mid];
    if (cp < start) high = mid - 1;
    else if (cp > end) low = mid + 1;
    else return id;
  }
  return undefined;
}

/**
 * Order in which the CJK fonts are tried for Han characters. A locale
 * (`ja…`, `ko…`, `zh-TW`/`zh-HK`/`zh-Hant…`, `zh…`) puts its own regional
 * glyph forms first; without one, Simplified Chinese.
 */
export function han_font_order(locale?: string): readonly HanFontId[] {
  const tag = (locale ?? "").toLowerCase();
  if (tag.startsWith("ja")) return ["jp", "tc", "sc", "kr"];
  if (tag.startsWith("ko")) return ["kr", "tc", "jp", "sc"];
  if (/^zh-(tw|hk|mo|hant)/.test(tag)) return ["tc", "sc", "jp", "kr"];
  return ["sc", "tc", "jp", "kr"];
}

/** A script font ready for shaping and PDF output. */
export interface ScriptFont {
  readonly id: ScriptFontId;
  readonly prepared: PreparedFont;
  /** The font file, as HarfBuzz is given it. */
  readonly bytes: Uint8Array;
}

const loaded = new Map<ScriptFontId, ScriptFont>();

/**
 * The script font `id`, read and parsed on first use in this process
 * (worker) and kept afterwards.
 */
export function load_script_font(id: ScriptFontId): ScriptFont {
  let font = loaded.get(id);
  if (font === undefined) {
    const source = SCRIPT_FONT_SOURCES[id];
    const bytes = Deno.readFileSync(
      new URL(`./fonts/${source.file}`, import.meta.url),
    );
    font = {
      id,
      bytes,
      prepared: prepare_font(bytes, {
        style: id,
        postscript: source.postscript,
      }),
    };
    loaded.set(id, font);
  }
  return font;
}

/** Whether script font `id` is loaded in this process already. */
export function is_script_font_loaded(id: ScriptFontId): boolean {
  return loaded.has(id);
}

/** Every script font id. */
export const SCRIPT_FONT_IDS: readonly ScriptFontId[] = Object.keys(
  SCRIPT_FONT_SOURCES,
) as ScriptFontId[];

/**
 * The script font that draws `cp`, or undefined when none does (then the
 * character is unsupported). Han characters go to the first CJK font of
 * `han_order` that has them.
 */
export function script_font_for(
  cp: number,
  han_order: readonly HanFontId[],
): ScriptFontId | undefined {
  const id = script_font_for_block(cp);
  if (id !== undefined) {
    return has_glyph(load_script_font(id), cp) ? id : undefined;
  }
  if (!is_han_or_cjk_symbol(cp)) return undefined;
  for (const han of han_order) {
    if (has_glyph(load_script_font(han), cp)) return han;
  }
  return undefined;
}

function has_glyph(font: ScriptFont, cp: number): boolean {
  return cp < 0x10000
    ? font.prepared.code_map[cp] !== 0
    : font.prepared.ttf.cmap.has(cp);
}
