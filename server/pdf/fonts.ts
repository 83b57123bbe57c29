/**
 * The invoice font (Noto Sans Regular and Bold) and its jsPDF plumbing.
 *
 * jsPDF's own TrueType support re-parses the whole font for every document
 * (`addFont`) and subsets it with slow array code on output; with Noto Sans
 * that was ~37 ms per font per document. Here instead:
 *
 * - the fonts are subset once, at build time (`build_fonts.ts`), to the
 *   supported characters and committed under `fonts/`;
 * - they are read and parsed once per process ({@link load_invoice_fonts});
 * - each document gets a light {@link DocumentFont} recording only what that
 *   document used, registered through jsPDF's plugin event hooks so jsPDF
 *   never parses a font file itself;
 * - on output the used glyphs are copied into a small font program
 *   ({@link encode_glyph_subset}) written with a complete ToUnicode map, so
 *   all text stays extractable.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { deflateSync } from "node:zlib";
import { jsPDF, type jsPDFOptions } from "jspdf";
import { encode_glyph_subset } from "./truetype.ts";
import { hex4, prepare_font, type PreparedFont } from "./prepared_font.ts";
import {
  is_ignorable_format_character,
  UNSUPPORTED_CHARACTER_PLACEHOLDER,
} from "./unicode_coverage.ts";
import {
  han_font_order,
  load_script_font,
  script_font_for,
  SCRIPT_FONT_IDS,
  SCRIPT_FONT_SOURCES,
  type ScriptFontId,
} from "./script_fonts.ts";
import {
  layout_line,
  measure_line,
  needs_text_layout,
  type TextLayoutOptions,
  without_bidi_marks,
  without_isolates,
} from "./text_layout.ts";
import { type GlyphSink, line_operators } from "./glyph_drawing.ts";
import { wrap_paragraph } from "./line_break.ts";

/** jsPDF font family name under which the invoice fonts are registered. */
export const INVOICE_FONT_FAMILY = "NotoSans";

/** Font styles the renderer uses. */
export type InvoiceFontStyle = "normal" | "bold";

const FONT_FILES: Record<
  InvoiceFontStyle,
  { file: string; postscript: string }
> = {
  normal: {
    file: "NotoSans-Regular.subset.ttf",
    postscript: "NotoSans-Regular",
  },
  bold: { file: "NotoSans-Bold.subset.ttf", postscript: "NotoSans-Bold" },
};

/** Both invoice fonts, ready to register with documents. */
export interface InvoiceFonts {
  normal: PreparedFont;
  bold: PreparedFont;
}

let loaded: InvoiceFonts | undefined;

/**
 * Reads and parses the invoice fonts; later calls return the same objects.
 *
 * Rendering calls it lazily; call it at process (worker) start-up to keep
 * the few milliseconds of loading out of the first request. Needs read
 * access to `server/pdf/fonts/`.
 */
export function load_invoice_fonts(): InvoiceFonts {
  if (loaded === undefined) {
    loaded = {
      normal: prepare_latin_font("normal"),
      bold: prepare_latin_font("bold"),
    };
  }
  return loaded;
}

function prepare_latin_font(style: InvoiceFontStyle): PreparedFont {
  const { file, postscript } = FONT_FILES[style];
  const url = new URL(`./fonts/${file}`, import.meta.url);
  return prepare_font(Deno.readFileSync(url), { style, postscript });
}

/**
 * The per-document face of a font, shaped like the `font.metadata` object
 * jsPDF's Unicode text path (`pdfEscape16`, `getStringUnitWidth`…) expects.
 * It records which glyphs the document uses and for which characters.
 *
 * It is deliberately *not* a `jsPDF.API.TTFFont`, so jsPDF's own (slow)
 * font writer skips it and {@link put_document_font} writes it instead.
 */
export class DocumentFont {
  readonly prepared: PreparedFont;
  /** Must be an own property: jsPDF checks `metadata.hasOwnProperty("cmap")`. */
  readonly cmap: { unicode: { codeMap: Uint16Array } };
  /** jsPDF appends `[glyph, [width]]` pairs here (we write /W ourselves). */
  readonly Unicode = { encoding: {}, kerning: {}, widths: [] as unknown[] };
  /** jsPDF appends every glyph id it encodes (unused by us). */
  readonly glyIdsUsed: number[] = [0];
  /**
   * Glyph id → the UTF-16 code unit (Latin text) or the text (shaped
   * clusters, e.g. a lam-alef ligature) it was used for: the ToUnicode map.
   */
  readonly toUnicode: Record<number, number | string> = {};
  /**
   * Script fonts only: the document's CIDs. Shaped glyphs are shared
   * between characters (Noto Sans Arabic draws the dotless base of ب ت ث ن
   * ي once and adds the dots as marks), so one glyph can stand for
   * different text. Each distinct (glyph, text) pair gets a CID of its own;
   * `/CIDToGIDMap` maps CIDs to the font's glyph ids, which stay as the
   * shaper gave them, and ToUnicode maps each CID to its exact text.
   */
  readonly cids: Map<string, number> = new Map();
  /** CID → glyph id (index 0: .notdef). */
  readonly cid_gids: number[] = [0];
  /** CID → text it stands for ("" for marks of a cluster already told). */
  readonly cid_texts: string[] = [""];

  /** The CID showing glyph `gid` for `text` (script fonts). */
  cid_for(gid: number, text: string): number {
    const key = `${gid}\u0000${text}`;
    let cid = this.cids.get(key);
    if (cid === undefined) {
      cid = this.cid_gids.length;
      this.cids.set(key, cid);
      this.cid_gids.push(gid);
      this.cid_texts.push(text);
    }
    return cid;
  }
  /** Settings of the document's text layout (shared by its fonts). */
  readonly text_settings: DocumentTextSettings;

  constructor(prepared: PreparedFont, settings: DocumentTextSettings = {}) {
    this.prepared = prepared;
    this.cmap = { unicode: { codeMap: prepared.code_map } };
    this.text_settings = settings;
  }

  #han_hint: string | undefined | null = null;

  /** "ja" or "ko" when the document's text has kana or hangul. */
  han_hint(): string | undefined {
    if (this.#han_hint === null) {
      const text = this.text_settings.context?.() ?? "";
      this.#han_hint = /[\u3040-\u30ff\u31f0-\u31ff]/.test(text)
        ? "ja"
        : /[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]/.test(text)
        ? "ko"
        : undefined;
    }
    return this.#han_hint;
  }

  /** Layout options for text in this (Latin) font. */
  layout_options(): TextLayoutOptions {
    return {
      latin: this.prepared,
      bold: this.prepared.style === "bold",
      locale: this.text_settings.locale ?? this.han_hint(),
      direction: this.text_settings.direction,
    };
  }

  characterToGlyph(code: number): number {
    return this.prepared.code_map[code] ?? 0;
  }

  widthOfGlyph(glyph: number): number {
    return this.prepared.widths[glyph] ?? 0;
  }

  /** Width of `text` at font size `size`, in points. */
  widthOfString(text: string, size: number, char_space = 0): number {
    const { code_map, widths } = this.prepared;
    let width = 0;
    for (let i = 0; i < text.length; i++) {
      const gid = code_map[text.charCodeAt(i)];
      if (gid === 0) {
        // Not Latin-font text: shaped and measured by the text layout.
        width = measure_line(text, this.layout_options());
        break;
      }
      width += widths[gid];
    }
    if (char_space) width += text.length * char_space * (1000 / size);
    return (width * size) / 1000;
  }

  /**
   * Encodes sanitized text as Identity-H glyph ids in hex, recording the
   * glyphs for the font subset and the ToUnicode map.
   */
  encode_hex(text: string): string {
    const { code_map, gid_hex } = this.prepared;
    const to_unicode = this.toUnicode;
    let hex = "";
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      const gid = code_map[code];
      to_unicode[gid] = code;
      hex += gid_hex[gid];
    }
    return hex;
  }
}

/** Options of {@link wrap_text}. */
export interface WrapOptions {
  /** Font the text is set in. */
  font: DocumentFont;
  /** Font size in points. */
  size: number;
  /** Longest line, in points. */
  max_width: number;
}

/**
 * Splits text into lines no wider than `max_width` points: at "\n", then at
 * spaces; a word wider than a line (e.g. 1,500 "A"s, a long URL) is cut
 * between characters so it wraps instead of running off the page. Lines
 * joined in order give back the text, minus the spaces and newlines they
 * were broken at.
 */
export function wrap_text(
  text: string | string[],
  { font, size, max_width }: WrapOptions,
): string[] {
  const paragraphs = Array.isArray(text)
    ? text.flatMap((t) => t.split("\n"))
    : text.split("\n");
  const out: string[] = [];
  const space = font.widthOfString(" ", size);
  for (const paragraph of paragraphs) {
    if (font.widthOfString(paragraph, size) <= max_width) {
      out.push(paragraph);
      continue;
    }
    if (needs_text_layout(paragraph, font.prepared)) {
      out.push(...wrap_paragraph(paragraph, {
        measure: (t) => font.widthOfString(t, size),
        max_width,
      }));
      continue;
    }
    let line: string | null = null;
    let line_width = 0;
    for (const word of paragraph.split(" ")) {
      const word_width = font.widthOfString(word, size);
      if (line !== null && line_width + space + word_width <= max_width) {
        line += " " + word;
        line_width += space + word_width;
        continue;
      }
      if (line !== null) out.push(line);
      if (word_width <= max_width) {
        line = word;
        line_width = word_width;
        continue;
      }
      let chunk = "";
      let chunk_width = 0;
      for (let i = 0; i < word.length; i++) {
        const ch = word[i];
        const w = font.widthOfString(ch, size);
        if (chunk !== "" && chunk_width + w > max_width) {
          out.push(chunk);
          chunk = "";
          chunk_width = 0;
        }
        chunk += ch;
        chunk_width += w;
      }
      line = chunk;
      line_width = chunk_width;
    }
    if (line !== null) out.push(line);
  }
  return out;
}

/** A registered invoice font of one document, for direct text output. */
export interface FontHandle {
  /** Resource name of the font in page content streams, e.g. "F15". */
  readonly resource: string;
  readonly font: DocumentFont;
}

const font_handles = new WeakMap<
  jsPDF,
  Partial<Record<InvoiceFontStyle, FontHandle>>
>();

/**
 * The handle of an invoice font registered with `doc`, for text written
 * directly into the page content. The font is marked as used, so jsPDF
 * embeds it even when its own `text()` never draws with it.
 */
export function font_handle(doc: jsPDF, style: InvoiceFontStyle): FontHandle {
  let handles = font_handles.get(doc);
  if (handles === undefined) {
    handles = {};
    font_handles.set(doc, handles);
  }
  const known = handles[style];
  if (known !== undefined) return known;
  const internal = doc.internal as unknown as JsPdfInternals;
  const entry = internal.getFont(INVOICE_FONT_FAMILY, style);
  if (!(entry.metadata instanceof DocumentFont)) {
    throw new Error("invoice fonts are not registered with this document");
  }
  const handle = { resource: entry.id, font: entry.metadata };
  handles[style] = handle;
  return handle;
}

const STYLE_BY_POSTSCRIPT = new Map<string, InvoiceFontStyle>(
  (Object.keys(FONT_FILES) as InvoiceFontStyle[]).map((s) => [
    FONT_FILES[s].postscript,
    s,
  ]),
);

const SCRIPT_BY_POSTSCRIPT = new Map<string, ScriptFontId>(
  SCRIPT_FONT_IDS.map((id) => [SCRIPT_FONT_SOURCES[id].postscript, id]),
);

/** Per-document text layout settings (locale, paragraph direction). */
export interface DocumentTextSettings {
  /** Invoice locale (BCP 47): regional Han glyphs. */
  locale?: string;
  /** Paragraph direction of the layout; by default per line. */
  direction?: "ltr" | "rtl";
  /**
   * All of the document's text, asked for only when Han characters need a
   * font and there is no locale: kana anywhere makes them Japanese, hangul
   * Korean.
   */
  context?: () => string;
  /**
   * Right-to-left layout: every page is drawn mirrored (see
   * {@link finish_mirrored_pages}) and all text, Latin included, goes
   * through the text layout so it reads normally.
   */
  mirrored?: boolean;
}

const document_text_settings = new WeakMap<jsPDF, DocumentTextSettings>();

/** jsPDF's font table of each document (id → font), from its "addFonts" event. */
const document_font_tables = new WeakMap<jsPDF, Record<string, JsPdfFont>>();

/** Errors raised inside jsPDF event handlers, which jsPDF itself only logs. */
const handler_errors = new WeakMap<object, unknown>();

interface JsPdfFont {
  id: string;
  postScriptName: string;
  fontName: string;
  encoding: string;
  isStandardFont: boolean;
  isAlreadyPutted?: boolean;
  objectNumber?: number;
  metadata: unknown;
}

interface PutFontArgs {
  font: JsPdfFont;
  out: (line: string) => void;
  newObject: () => number;
  putStream: (options: {
    data: string;
    objectId: number;
    filters?: string[];
    alreadyAppliedFilters?: string[];
    additionalKeyValues?: { key: string; value: string | number }[];
  }) => void;
}

interface JsPdfPlugin {
  events: [string, (this: jsPDF, data: never) => void][];
  processDataByFilters: (
    data: string,
    chain?: string | string[],
  ) => { data: string; reverseChain: string };
  processArabic?: unknown;
}

interface JsPdfInternals {
  getFont(family?: string, style?: string): JsPdfFont;
  getFontSize(): number;
  scaleFactor: number;
  events: {
    getTopics(): Record<string, Record<string, [unknown, boolean]>>;
    unsubscribe(token: string): boolean;
  };
}

let plugin_installed = false;

/**
 * Installs our jsPDF plugin hooks (once per process). jsPDF subscribes
 * plugin handlers in reverse order of registration, so these run before its
 * built-in TrueType handlers.
 */
function install_plugin(): void {
  if (plugin_installed) return;
  plugin_installed = true;
  const api = jsPDF.API as unknown as JsPdfPlugin;
  // jsPDF deflates streams with fflate and then rebuilds the output string
  // one byte at a time by concatenation: the largest single cost of a small
  // invoice. Same filter and zlib format, native zlib, for every document.
  const original_filters = api.processDataByFilters;
  api.processDataByFilters = (data, chain) => {
    const only = Array.isArray(chain) && chain.length === 1 ? chain[0] : chain;
    if (only !== "FlateEncode" && only !== "/FlateEncode") {
      return original_filters(data, chain);
    }
    const packed = deflateSync(binary_string_to_bytes(data ?? ""));
    return {
      data: bytes_to_binary_string(packed),
      reverseChain: "/FlateDecode",
    };
  };
  // Per-document set-up of jsPDF plugins the renderer never uses (canvas,
  // context2d, outline) and the Arabic pre-pass of text output (our text is
  // shaped by the text layout): a good part of creating each document.
  for (let i = api.events.length - 1; i >= 0; i--) {
    const [name, handler] = api.events[i];
    if (is_unused_plugin_event(name, handler, api)) api.events.splice(i, 1);
  }
  api.events.push([
    "addFonts",
    function (this: jsPDF, data: { fonts: Record<string, JsPdfFont> }): void {
      document_font_tables.set(this, data.fonts);
    },
  ]);
  api.events.push([
    "addFont",
    function (this: jsPDF, data: { font: JsPdfFont }): void {
      const style = STYLE_BY_POSTSCRIPT.get(data.font.postScriptName);
      const script = SCRIPT_BY_POSTSCRIPT.get(data.font.postScriptName);
      if (style === undefined && script === undefined) return;
      data.font.metadata = new DocumentFont(
        style !== undefined
          ? load_invoice_fonts()[style]
          : load_script_font(script!).prepared,
        document_text_settings.get(this),
      );
      // jsPDF's TrueType loader skips "standard" fonts; without this it would
      // look for a font file in its virtual file system. The flag is read
      // nowhere else.
      data.font.isStandardFont = true;
    },
  ]);
  api.events.push([
    "putFont",
    function (this: jsPDF, args: PutFontArgs): void {
      if (!(args.font.metadata instanceof DocumentFont)) return;
      try {
        put_document_font(args, args.font.metadata);
      } catch (error) {
        handler_errors.set(this, error);
      }
    },
  ]);
}

/** Whether a jsPDF plugin event handler belongs to a plugin we never use. */
function is_unused_plugin_event(
  name: string,
  handler: unknown,
  api: JsPdfPlugin,
): boolean {
  if (name === "preProcessText") return handler === api.processArabic;
  if (
    name !== "initialized" && name !== "postPutResources" &&
    name !== "putCatalog"
  ) return false;
  const source = String(handler);
  return source.includes("this.canvas=new") ||
    source.includes("this.context2d=new") || source.includes(".outline");
}

/**
 * Creates a jsPDF document with the invoice fonts registered (cheap: no
 * parsing) under {@link INVOICE_FONT_FAMILY}, styles "normal" and "bold".
 *
 * Documents must be created here: jsPDF binds plugin event handlers when a
 * document is constructed, so ours have to be installed first.
 */
export function create_document_with_fonts(
  options: jsPDFOptions,
  text_settings: DocumentTextSettings = {},
): jsPDF {
  load_invoice_fonts();
  install_plugin();
  // Every font left in the document's font table is written, so no font
  // has to be marked as used by a call of jsPDF's costly text() (the only
  // way it marks them): the 14 standard fonts are removed from the table
  // below, both invoice styles are drawn in every invoice, and script
  // fonts are added on first use.
  const doc = new jsPDF({ ...options, putOnlyUsedFonts: false });
  document_text_settings.set(doc, text_settings);
  for (const style of Object.keys(FONT_FILES) as InvoiceFontStyle[]) {
    const { postscript } = FONT_FILES[style];
    doc.addFont(postscript, INVOICE_FONT_FAMILY, style, "Identity-H");
  }
  const table = document_font_tables.get(doc);
  if (table === undefined) throw new Error("jsPDF font table not found");
  for (const [id, font] of Object.entries(table)) {
    if (!(font.metadata instanceof DocumentFont)) delete table[id];
  }
  install_fast_paths(doc);
  return doc;
}

/**
 * Per-document shortcuts around jsPDF hot spots that autotable hits for
 * every cell. They only change *this* document and give jsPDF's results for
 * our fonts (whose text is sanitized before it gets here); anything else
 * falls through to jsPDF.
 */
function install_fast_paths(doc: jsPDF): void {
  const internal = doc.internal as unknown as JsPdfInternals;
  const original = {
    getTextWidth: doc.getTextWidth.bind(doc),
    getStringUnitWidth: doc.getStringUnitWidth.bind(doc),
    splitTextToSize: doc.splitTextToSize.bind(doc),
  };
  const current = (): DocumentFont | undefined => {
    const metadata = internal.getFont().metadata;
    return metadata instanceof DocumentFont ? metadata : undefined;
  };
  // autotable asks for the font list on every style change and jsPDF
  // rebuilds it each time; it does not change after registration.
  const font_list_of = doc.getFontList.bind(doc);
  let font_list: ReturnType<jsPDF["getFontList"]> | undefined;
  doc.getFontList = () => (font_list ??= font_list_of());
  // jsPDF runs every measured string through its Arabic shaper first; our
  // text has no Arabic (it became the placeholder), so measure directly.
  doc.getStringUnitWidth = (text: string, options?: unknown): number => {
    const font = current();
    if (options !== undefined || font === undefined) {
      return original.getStringUnitWidth(text, options as never);
    }
    return font.widthOfString(text, 1000) / 1000;
  };
  doc.getTextWidth = (text: string): number => {
    const font = current();
    if (font === undefined) return original.getTextWidth(text);
    return font.widthOfString(text, internal.getFontSize()) /
      internal.scaleFactor;
  };
  // jsPDF measures each word character by character through several layers.
  doc.splitTextToSize = (
    text: string | string[],
    max_width: number,
    options?: { fontSize?: number },
  ): string[] => {
    const font = current();
    const size = internal.getFontSize();
    const keys = options === undefined ? [] : Object.keys(options);
    const plain = keys.every((k) =>
      k === "fontSize" && options?.fontSize === size
    );
    if (font === undefined || !plain) {
      return original.splitTextToSize(text as string, max_width, options);
    }
    return wrap_text(text, {
      font,
      size,
      max_width: max_width * internal.scaleFactor,
    });
  };
  // Text jsPDF cannot draw (other scripts: shaping, bidi, script fonts)
  // goes through our text layout; Latin-font text takes jsPDF's path as
  // before.
  const original_text = doc.text.bind(doc);
  const page_internal = internal as unknown as {
    write(ops: string): void;
    pageSize: { getHeight(): number };
  };
  doc.text = ((
    text: string | string[],
    x: number,
    y: number,
    options?: { align?: string },
    transform?: unknown,
  ): jsPDF => {
    const font = current();
    if (font === undefined || transform !== undefined) {
      return original_text(text, x, y, options as never, transform as never);
    }
    const lines = Array.isArray(text) ? text : text.split("\n");
    let layout = font.text_settings.mirrored === true;
    for (let i = 0; !layout && i < lines.length; i++) {
      layout = needs_text_layout(lines[i], font.prepared);
    }
    // Anything but plain, aligned lines (a rotated watermark) is jsPDF's.
    if (!layout && !plain_text_options(options)) {
      return original_text(text, x, y, options as never, transform as never);
    }
    const size = internal.getFontSize();
    const k = internal.scaleFactor;
    const line_height = (size * doc.getLineHeightFactor()) / k;
    const align = options?.align ?? "left";
    const fill = hex_to_fill(doc.getTextColor());
    const page_height = page_internal.pageSize.getHeight() * k;
    let ops = "";
    let baseline = y;
    for (const line of lines) {
      if (line !== "") {
        const width = font.widthOfString(line, size) / k;
        const left = align === "right"
          ? x - width
          : align === "center"
          ? x - width / 2
          : x;
        if (layout) {
          draw_text_line(doc, line, { x: left * k, y: baseline * k, fill });
        } else {
          // Latin text, written as the items-table cells are: one text
          // matrix and one hex string of glyph ids per line.
          ops += `1 0 0 1 ${pdf_number(left * k)} ${
            pdf_number(page_height - baseline * k)
          } Tm <${font.encode_hex(line)}> Tj\n`;
        }
      }
      baseline += line_height;
    }
    if (ops !== "") {
      const id = internal.getFont().id;
      page_internal.write(
        `BT /${id} ${pdf_number(size)} Tf ${fill}\n${ops}ET`,
      );
    }
    return doc;
  }) as typeof doc.text;
}

/** `text()` options our direct path draws exactly: none, or an alignment. */
function plain_text_options(options: unknown): boolean {
  if (options === undefined) return true;
  if (typeof options !== "object" || options === null) return false;
  for (const [key, value] of Object.entries(options)) {
    if (
      key !== "align" ||
      (value !== undefined && value !== "left" && value !== "right" &&
        value !== "center")
    ) return false;
  }
  return true;
}

/**
 * PDF number: at most six decimals (jsPDF wrote full precision), no
 * exponent, no "-0".
 */
function pdf_number(value: number): string {
  const rounded = Math.round(value * 1e6) / 1e6;
  return rounded === 0 ? "0" : String(rounded);
}

const fills_by_color = new Map<string, string>();

function hex_to_fill(color: string): string {
  let fill = fills_by_color.get(color);
  if (fill === undefined) {
    fill = hex_to_fill_uncached(color);
    fills_by_color.set(color, fill);
  }
  return fill;
}

function hex_to_fill_uncached(color: string): string {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
  if (m === null) return "0 g";
  const part = (h: string): string => {
    const v = Math.round((parseInt(h, 16) / 255) * 1000) / 1000;
    return v === 0 ? "0" : String(v);
  };
  return `${part(m[1])} ${part(m[2])} ${part(m[3])} rg`;
}

/** Options of {@link draw_text_line}. */
export interface DrawTextLineOptions {
  /** Left end and baseline, in points from the page's top-left corner. */
  x: number;
  y: number;
  /** Fill colour operator, e.g. `"0.1 0.12 0.21 rg"`. */
  fill: string;
}

/**
 * Draws one line that needs the text layout (see `needs_text_layout`) in
 * the current font style and size: shaped, bidi-ordered glyph runs in the
 * script fonts it needs (registered with `doc` on first use), wrapped in
 * ActualText so extraction returns `line` as written.
 */
export function draw_text_line(
  doc: jsPDF,
  line: string,
  { x, y, fill }: DrawTextLineOptions,
): void {
  const internal = doc.internal as unknown as JsPdfInternals & {
    write(ops: string): void;
    pageSize: { getHeight(): number };
  };
  const font = internal.getFont().metadata;
  if (!(font instanceof DocumentFont)) {
    throw new Error("draw_text_line needs an invoice font");
  }
  const size = internal.getFontSize();
  line = without_bidi_marks(line);
  const layout = layout_line(line, font.layout_options());
  const page_height = internal.pageSize.getHeight() * internal.scaleFactor;
  internal.write(line_operators(layout, {
    x,
    y: page_height - y,
    size,
    fill,
    text: without_isolates(line),
    sink: document_glyph_sink(doc),
    mirrored: font.text_settings.mirrored,
  }));
}

/**
 * Right-to-left layouts: wraps every page's content in a horizontal mirror
 * (`-1 0 0 1 W 0 cm`), so the whole left-to-right layout — title, party
 * blocks, table columns, rules — appears right to left. Text was drawn
 * mirrored back already ({@link draw_text_line}); images are flipped back
 * here. Call once, after the last drawing and before output.
 */
export function finish_mirrored_pages(doc: jsPDF): void {
  const internal = doc.internal as unknown as {
    pages: (string[] | null)[];
    pageSize: { getWidth(): number };
  };
  const width = internal.pageSize.getWidth();
  for (const page of internal.pages) {
    if (!Array.isArray(page)) continue;
    for (let i = 0; i + 1 < page.length; i++) {
      // jsPDF places an image as "w 0 0 h x y cm" followed by "/Ix Do".
      const m = /^(-?[\d.]+) 0 0 (-?[\d.]+) (-?[\d.]+) (-?[\d.]+) cm$/.exec(
        page[i],
      );
      if (m !== null && /^\/\S+ Do$/.test(page[i + 1])) {
        const w = Number(m[1]);
        page[i] = `${-w} 0 0 ${m[2]} ${
          Math.round((Number(m[3]) + w) * 1000) / 1000
        } ${m[4]} cm`;
      }
    }
    page.unshift(`q -1 0 0 1 ${width} 0 cm`);
    page.push("Q");
  }
}

/** Whether the document's pages are mirrored (right-to-left layout). */
export function is_mirrored(doc: jsPDF): boolean {
  return document_text_settings.get(doc)?.mirrored === true;
}

const glyph_sinks = new WeakMap<jsPDF, GlyphSink>();

/**
 * The document's font resources for drawn glyph runs. Script fonts are
 * registered with the document the first time one of its lines needs them,
 * so a PDF embeds only the scripts it uses.
 */
function document_glyph_sink(doc: jsPDF): GlyphSink {
  let sink = glyph_sinks.get(doc);
  if (sink !== undefined) return sink;
  const internal = doc.internal as unknown as JsPdfInternals;
  const by_font = new Map<
    PreparedFont,
    { resource: string; record(gid: number, text: string): number }
  >();
  sink = {
    font_resource(prepared) {
      let entry = by_font.get(prepared);
      if (entry !== undefined) return entry;
      const script = SCRIPT_BY_POSTSCRIPT.get(prepared.postscript);
      const family = script === undefined
        ? INVOICE_FONT_FAMILY
        : prepared.postscript;
      const style = script === undefined ? prepared.style : "normal";
      if (script !== undefined) {
        doc.addFont(prepared.postscript, family, "normal", "Identity-H");
      }
      const jsfont = internal.getFont(family, style);
      const metadata = jsfont.metadata as DocumentFont;
      entry = {
        resource: jsfont.id,
        record(gid: number, text: string): number {
          if (script !== undefined) return metadata.cid_for(gid, text);
          // Latin font: one glyph per character, CID = glyph id.
          if (text.length === 1) metadata.toUnicode[gid] = text.charCodeAt(0);
          else if (text !== "") metadata.toUnicode[gid] ??= text;
          return gid;
        },
      };
      by_font.set(prepared, entry);
      return entry;
    },
  };
  glyph_sinks.set(doc, sink);
  return sink;
}

/** Throws an error that a font handler met while jsPDF was writing `doc`. */
export function rethrow_font_errors(doc: jsPDF): void {
  const error = handler_errors.get(doc);
  if (error !== undefined) {
    handler_errors.delete(doc);
    throw error;
  }
}

/** Writes a used font as Type0 / CIDFontType2 with Identity-H encoding. */
function put_document_font(args: PutFontArgs, font: DocumentFont): void {
  const { out, newObject, putStream } = args;
  const prepared = font.prepared;
  // Sorted distinct glyph ids, each with the character it stands for.
  if (font.cid_gids.length > 1) {
    put_script_document_font(args, font);
    return;
  }
  const glyphs = Object.keys(font.toUnicode).map(Number).filter((g) => g > 0)
    .sort((a, b) => a - b);
  const embedded = embedded_latin_font(font, glyphs);
  const name = embedded.name;

  const file_id = newObject();
  putStream({
    data: embedded.program,
    filters: [],
    alreadyAppliedFilters: ["/FlateDecode"],
    additionalKeyValues: [{ key: "Length1", value: embedded.program_length }],
    objectId: file_id,
  });
  out("endobj");

  const cmap_id = newObject();
  putStream({
    data: embedded.to_unicode,
    filters: [],
    alreadyAppliedFilters: ["/FlateDecode"],
    objectId: cmap_id,
  });
  out("endobj");

  const descriptor_id = newObject();
  out(
    `<</Type/FontDescriptor/FontName/${name}${prepared.descriptor}` +
      `/FontFile2 ${file_id} 0 R>>`,
  );
  out("endobj");

  const cid_font_id = newObject();
  out(
    `<</Type/Font/Subtype/CIDFontType2/BaseFont/${name}` +
      `/CIDSystemInfo<</Registry(Adobe)/Ordering(Identity)/Supplement 0>>` +
      `/FontDescriptor ${descriptor_id} 0 R/CIDToGIDMap/Identity` +
      `/W ${embedded.widths}>>`,
  );
  out("endobj");

  args.font.objectNumber = newObject();
  out(
    `<</Type/Font/Subtype/Type0/BaseFont/${name}/Encoding/Identity-H` +
      `/DescendantFonts[${cid_font_id} 0 R]/ToUnicode ${cmap_id} 0 R>>`,
  );
  out("endobj");
  args.font.isAlreadyPutted = true;
}

/** The parts of an embedded font subset that depend on its glyphs only. */
interface EmbeddedFont {
  /** Glyph id and its text, in turn: what the subset was built from. */
  entries: (number | string)[];
  /** Subset name, e.g. "ABCDEF+NotoSans-Regular". */
  name: string;
  /** The deflated font program (binary string) and its inflated length. */
  program: string;
  program_length: number;
  /** The deflated ToUnicode CMap (binary string). */
  to_unicode: string;
  /** The `/W` array. */
  widths: string;
  /** Script fonts: the deflated `/CIDToGIDMap` stream (binary string). */
  cid_to_gid?: string;
}

/**
 * Embedded subsets by font and glyph set (with the text each glyph stands
 * for), least recently used first. Invoices of one sender repeat their
 * glyph set, and building a subset (copying the glyphs, deflating the
 * program) is the largest single cost of a small invoice.
 */
const embedded_fonts = new Map<string, EmbeddedFont>();
let embedded_fonts_bytes = 0;
/** Bound of {@link embedded_fonts}, per process (render worker). */
const EMBEDDED_FONT_CACHE_BYTES = 4 * 1024 * 1024;

function embedded_latin_font(
  font: DocumentFont,
  glyphs: readonly number[],
): EmbeddedFont {
  const prepared = font.prepared;
  const entries: (number | string)[] = [];
  for (const gid of glyphs) entries.push(gid, font.toUnicode[gid]);
  const cached = cached_font(prepared.postscript, entries);
  if (cached.found !== undefined) return cached.found;
  const cmap = new Map<number, number>();
  for (const gid of glyphs) {
    const value = font.toUnicode[gid];
    const cp = typeof value === "string" ? value.codePointAt(0) : value;
    // Only one-character entries: the font program's own cmap is not used
    // for text extraction (ToUnicode and ActualText are).
    if (
      cp !== undefined && cp <= 0xffff &&
      (typeof value === "number" || value.length === 1)
    ) cmap.set(cp, gid);
  }
  const program = encode_glyph_subset(prepared.ttf, { glyphs, cmap });
  const embedded: EmbeddedFont = {
    entries,
    ...subset_streams(prepared, {
      glyphs,
      program,
      to_unicode: to_unicode_cmap(glyphs, font.toUnicode),
    }),
    widths: width_array(glyphs, prepared.widths),
  };
  store_font(cached.key, embedded);
  return embedded;
}

/**
 * Looks up the cached subset of font `postscript` built from `entries`
 * (glyph ids or CIDs with the text each stands for, in order). The key is
 * a hash of the entries; a hit is confirmed by comparing them (building a
 * string key per document cost more than the lookup saves).
 */
function cached_font(
  postscript: string,
  entries: (number | string)[],
): { key: string; found?: EmbeddedFont } {
  let hash = 0x811c9dc5;
  for (const value of entries) {
    if (typeof value === "number") {
      hash = Math.imul(hash ^ value, 0x01000193);
    } else {
      for (let i = 0; i < value.length; i++) {
        hash = Math.imul(hash ^ value.charCodeAt(i), 0x01000193);
      }
      hash = Math.imul(hash ^ 0x10000, 0x01000193);
    }
  }
  const key = `${postscript} ${entries.length} ${hash >>> 0}`;
  const known = embedded_fonts.get(key);
  if (known === undefined || !same_entries(known.entries, entries)) {
    return { key };
  }
  embedded_fonts.delete(key);
  embedded_fonts.set(key, known);
  return { key, found: known };
}

/** Caches `embedded` under `key`, evicting the least recently used. */
function store_font(key: string, embedded: EmbeddedFont): void {
  const replaced = embedded_fonts.get(key);
  if (replaced !== undefined) {
    embedded_fonts.delete(key);
    embedded_fonts_bytes -= cached_size(replaced);
  }
  embedded_fonts.set(key, embedded);
  embedded_fonts_bytes += cached_size(embedded);
  for (const [old_key, old] of embedded_fonts) {
    if (embedded_fonts_bytes <= EMBEDDED_FONT_CACHE_BYTES) break;
    embedded_fonts.delete(old_key);
    embedded_fonts_bytes -= cached_size(old);
  }
}

/** Approximate bytes a cached subset holds (strings count 2 bytes a char). */
function cached_size(embedded: EmbeddedFont): number {
  return 16 * embedded.entries.length + 2 * (embedded.program.length +
        embedded.to_unicode.length + embedded.widths.length);
}

function same_entries(
  a: readonly (number | string)[],
  b: readonly (number | string)[],
): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Writes a script font: like {@link put_document_font}, but text is shown
 * in document-allocated CIDs (see `DocumentFont.cids`) with a
 * `/CIDToGIDMap` stream.
 */
function put_script_document_font(
  args: PutFontArgs,
  font: DocumentFont,
): void {
  const { out, newObject, putStream } = args;
  const prepared = font.prepared;
  const embedded = embedded_script_font(font);
  const name = embedded.name;

  const file_id = newObject();
  putStream({
    data: embedded.program,
    filters: [],
    alreadyAppliedFilters: ["/FlateDecode"],
    additionalKeyValues: [{ key: "Length1", value: embedded.program_length }],
    objectId: file_id,
  });
  out("endobj");

  const cmap_id = newObject();
  putStream({
    data: embedded.to_unicode,
    filters: [],
    alreadyAppliedFilters: ["/FlateDecode"],
    objectId: cmap_id,
  });
  out("endobj");

  const map_id = newObject();
  putStream({
    data: embedded.cid_to_gid!,
    filters: [],
    alreadyAppliedFilters: ["/FlateDecode"],
    objectId: map_id,
  });
  out("endobj");

  const descriptor_id = newObject();
  out(
    `<</Type/FontDescriptor/FontName/${name}${prepared.descriptor}` +
      `/FontFile2 ${file_id} 0 R>>`,
  );
  out("endobj");

  const cid_font_id = newObject();
  out(
    `<</Type/Font/Subtype/CIDFontType2/BaseFont/${name}` +
      `/CIDSystemInfo<</Registry(Adobe)/Ordering(Identity)/Supplement 0>>` +
      `/FontDescriptor ${descriptor_id} 0 R/CIDToGIDMap ${map_id} 0 R` +
      `/W ${embedded.widths}>>`,
  );
  out("endobj");

  args.font.objectNumber = newObject();
  out(
    `<</Type/Font/Subtype/Type0/BaseFont/${name}/Encoding/Identity-H` +
      `/DescendantFonts[${cid_font_id} 0 R]/ToUnicode ${cmap_id} 0 R>>`,
  );
  out("endobj");
  args.font.isAlreadyPutted = true;
}

/** The subset of a script font, cached like {@link embedded_latin_font}. */
function embedded_script_font(font: DocumentFont): EmbeddedFont {
  const prepared = font.prepared;
  const entries: (number | string)[] = [];
  for (let cid = 1; cid < font.cid_gids.length; cid++) {
    entries.push(font.cid_gids[cid], font.cid_texts[cid]);
  }
  const cached = cached_font(prepared.postscript, entries);
  if (cached.found !== undefined) return cached.found;
  const glyphs = [...new Set(font.cid_gids)].filter((g) => g > 0)
    .sort((a, b) => a - b);
  const cmap = new Map<number, number>();
  font.cid_texts.forEach((text, cid) => {
    const cp = text.codePointAt(0);
    if (cp !== undefined && cp <= 0xffff && text.length === 1) {
      cmap.set(cp, font.cid_gids[cid]);
    }
  });
  const program = encode_glyph_subset(prepared.ttf, { glyphs, cmap });
  const cids = font.cid_gids.map((_, cid) => cid).slice(1);
  const texts: Record<number, string> = {};
  for (const cid of cids) {
    if (font.cid_texts[cid] !== "") texts[cid] = font.cid_texts[cid];
  }
  const map = new Uint8Array(font.cid_gids.length * 2);
  font.cid_gids.forEach((gid, cid) => {
    map[cid * 2] = gid >> 8;
    map[cid * 2 + 1] = gid & 0xff;
  });
  const cid_widths = Float64Array.from(
    font.cid_gids,
    (gid) => prepared.widths[gid],
  );
  const embedded: EmbeddedFont = {
    entries,
    ...subset_streams(prepared, {
      glyphs,
      program,
      to_unicode: to_unicode_cmap(cids, texts),
    }),
    widths: width_array(cids, cid_widths),
    cid_to_gid: bytes_to_binary_string(deflateSync(map, { level: 1 })),
  };
  store_font(cached.key, embedded);
  return embedded;
}

// The parts every embedded subset shares, for Latin and script fonts alike.
function subset_streams(
  prepared: PreparedFont,
  subset: {
    glyphs: readonly number[];
    program: Uint8Array;
    to_unicode: string;
  },
): Pick<EmbeddedFont, "name" | "program" | "program_length" | "to_unicode"> {
  return {
    // Subset fonts are named with a tag derived from their glyph set (PDF
    // 32000-1 9.6.4); deterministic, so identical documents stay identical.
    name: `${subset_tag(prepared.style, subset.glyphs)}+${prepared.postscript}`,
    // Deflated here, straight from bytes, rather than by jsPDF from a
    // string. Level 1: a quarter of the CPU of the default level for about
    // 1.3 KB more per PDF.
    program: bytes_to_binary_string(
      deflateSync(subset.program, { level: 1 }),
    ),
    program_length: subset.program.length,
    // The default level, as jsPDF's filter (ours) would deflate it.
    to_unicode: bytes_to_binary_string(
      deflateSync(binary_string_to_bytes(subset.to_unicode)),
    ),
  };
}

function subset_tag(style: string, glyphs: readonly number[]): string {
  // FNV-1a over the style and glyph ids, spelled as six capital letters.
  let h = 0x811c9dc5;
  const mix = (v: number): void => {
    h = Math.imul(h ^ v, 0x01000193) >>> 0;
  };
  for (let i = 0; i < style.length; i++) mix(style.charCodeAt(i));
  for (const g of glyphs) mix(g);
  let tag = "";
  for (let i = 0; i < 6; i++) {
    mix(i);
    tag += String.fromCharCode(65 + (h % 26));
  }
  return tag;
}

/** `/W` array grouping consecutive glyph ids: `[g [w w …] g [w …] …]`. */
function width_array(
  glyphs: readonly number[],
  widths: Float64Array,
): string {
  const parts: string[] = [];
  let run: number[] = [];
  let run_start = -1;
  for (const g of glyphs) {
    if (run_start >= 0 && g === run_start + run.length) {
      run.push(Math.round(widths[g]));
      continue;
    }
    if (run_start >= 0) parts.push(`${run_start}[${run.join(" ")}]`);
    run_start = g;
    run = [Math.round(widths[g])];
  }
  if (run_start >= 0) parts.push(`${run_start}[${run.join(" ")}]`);
  return `[${parts.join(" ")}]`;
}

/** ToUnicode CMap mapping each used glyph id (= CID) to its character. */
function to_unicode_cmap(
  glyphs: readonly number[],
  to_unicode: Record<number, number | string>,
): string {
  const lines = [
    "/CIDInit /ProcSet findresource begin",
    "12 dict begin",
    "begincmap",
    "/CIDSystemInfo <</Registry (Adobe) /Ordering (UCS) /Supplement 0>> def",
    "/CMapName /Adobe-Identity-UCS def",
    "/CMapType 2 def",
    "1 begincodespacerange",
    "<0000> <FFFF>",
    "endcodespacerange",
  ];
  // At most 100 entries per bfchar block (Adobe CMap specification).
  const mapped = glyphs.filter((g) => to_unicode[g] !== undefined);
  for (let i = 0; i < mapped.length; i += 100) {
    const block = mapped.slice(i, i + 100);
    lines.push(`${block.length} beginbfchar`);
    for (const g of block) {
      const value = to_unicode[g];
      const target = typeof value === "number" ? hex4(value) : utf16_hex(value);
      lines.push(`<${hex4(g)}> <${target}>`);
    }
    lines.push("endbfchar");
  }
  lines.push(
    "endcmap",
    "CMapName currentdict /CMap defineresource pop",
    "end",
    "end",
  );
  return lines.join("\n");
}

function utf16_hex(text: string): string {
  let hex = "";
  for (let i = 0; i < text.length; i++) hex += hex4(text.charCodeAt(i));
  return hex;
}

function binary_string_to_bytes(data: string): Uint8Array {
  // A plain loop: several times faster here than Buffer.from(data, "latin1").
  const bytes = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) bytes[i] = data.charCodeAt(i);
  return bytes;
}

function bytes_to_binary_string(bytes: Uint8Array): string {
  // jsPDF assembles the file as a "binary string" (one char per byte).
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString("latin1");
}

let grapheme_segmenter: Intl.Segmenter | undefined;

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
  if (clean) return nfc;

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
