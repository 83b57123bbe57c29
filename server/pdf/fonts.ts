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
import {
  encode_glyph_subset,
  parse_truetype,
  type TrueTypeFont,
} from "./truetype.ts";
import {
  is_ignorable_format_character,
  UNSUPPORTED_CHARACTER_PLACEHOLDER,
} from "./unicode_coverage.ts";

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

/** A font parsed once per process, shared read-only by all documents. */
interface PreparedFont {
  style: InvoiceFontStyle;
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
    loaded = { normal: prepare_font("normal"), bold: prepare_font("bold") };
  }
  return loaded;
}

function prepare_font(style: InvoiceFontStyle): PreparedFont {
  const { file, postscript } = FONT_FILES[style];
  const url = new URL(`./fonts/${file}`, import.meta.url);
  const ttf = parse_truetype(Deno.readFileSync(url));
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
  if (t === undefined) throw new Error(`invoice font lacks '${tag}'`);
  return new DataView(t.buffer, t.byteOffset, t.byteLength);
}

/** Four upper-case hex digits, as PDF hex strings and CMaps spell ids. */
function hex4(value: number): string {
  return value.toString(16).toUpperCase().padStart(4, "0");
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
  /** Glyph id → UTF-16 code unit it was used for (the ToUnicode map). */
  readonly toUnicode: Record<number, number> = {};

  constructor(prepared: PreparedFont) {
    this.prepared = prepared;
    this.cmap = { unicode: { codeMap: prepared.code_map } };
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
      width += widths[code_map[text.charCodeAt(i)]];
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

/** The handle of an invoice font registered with `doc`. */
export function font_handle(doc: jsPDF, style: InvoiceFontStyle): FontHandle {
  const internal = doc.internal as unknown as JsPdfInternals;
  const entry = internal.getFont(INVOICE_FONT_FAMILY, style);
  if (!(entry.metadata instanceof DocumentFont)) {
    throw new Error("invoice fonts are not registered with this document");
  }
  return { resource: entry.id, font: entry.metadata };
}

const STYLE_BY_POSTSCRIPT = new Map<string, InvoiceFontStyle>(
  (Object.keys(FONT_FILES) as InvoiceFontStyle[]).map((s) => [
    FONT_FILES[s].postscript,
    s,
  ]),
);

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
  api.events.push([
    "addFont",
    function (this: jsPDF, data: { font: JsPdfFont }): void {
      const style = STYLE_BY_POSTSCRIPT.get(data.font.postScriptName);
      if (style === undefined) return;
      data.font.metadata = new DocumentFont(load_invoice_fonts()[style]);
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

/**
 * Creates a jsPDF document with the invoice fonts registered (cheap: no
 * parsing) under {@link INVOICE_FONT_FAMILY}, styles "normal" and "bold".
 *
 * Documents must be created here: jsPDF binds plugin event handlers when a
 * document is constructed, so ours have to be installed first.
 */
export function create_document_with_fonts(options: jsPDFOptions): jsPDF {
  load_invoice_fonts();
  install_plugin();
  const doc = new jsPDF(options);
  for (const style of Object.keys(FONT_FILES) as InvoiceFontStyle[]) {
    const { postscript } = FONT_FILES[style];
    doc.addFont(postscript, INVOICE_FONT_FAMILY, style, "Identity-H");
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
  const font_list = doc.getFontList();
  doc.getFontList = () => font_list;
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
  // Drop the Arabic pre-processing of text output for the same reason.
  const arabic = (jsPDF.API as unknown as JsPdfPlugin).processArabic;
  const subscribers = internal.events.getTopics()["preProcessText"] ?? {};
  for (const [token, [callback]] of Object.entries(subscribers)) {
    if (callback === arabic) internal.events.unsubscribe(token);
  }
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
  const glyphs = Object.keys(font.toUnicode).map(Number).filter((g) => g > 0)
    .sort((a, b) => a - b);
  const cmap = new Map<number, number>();
  for (const gid of glyphs) cmap.set(font.toUnicode[gid], gid);
  const program = encode_glyph_subset(prepared.ttf, { glyphs, cmap });
  // Subset fonts are named with a tag derived from their glyph set (PDF
  // 32000-1 9.6.4); deterministic, so identical documents stay identical.
  const name = `${subset_tag(prepared.style, glyphs)}+${prepared.postscript}`;

  const file_id = newObject();
  // Deflated here, straight from bytes, rather than by jsPDF from a string.
  // Level 1: a quarter of the CPU of the default level (about 0.4 ms less per
  // invoice, the largest single cost left in a small render) for about 1.3 KB
  // more per PDF.
  putStream({
    data: bytes_to_binary_string(deflateSync(program, { level: 1 })),
    filters: [],
    alreadyAppliedFilters: ["/FlateDecode"],
    additionalKeyValues: [{ key: "Length1", value: program.length }],
    objectId: file_id,
  });
  out("endobj");

  const cmap_id = newObject();
  putStream({
    data: to_unicode_cmap(glyphs, font.toUnicode),
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
      `/W ${width_array(glyphs, prepared.widths)}>>`,
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
  to_unicode: Record<number, number>,
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
  for (let i = 0; i < glyphs.length; i += 100) {
    const block = glyphs.slice(i, i + 100);
    lines.push(`${block.length} beginbfchar`);
    for (const g of block) {
      lines.push(`<${hex4(g)}> <${hex4(to_unicode[g])}>`);
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
  for (const { segment } of grapheme_segmenter.segment(unified)) {
    let kept = "";
    let unsupported = false;
    for (const ch of segment) {
      const cp = ch.codePointAt(0)!;
      if (
        cp === 10 || cp === 0x0b || cp === 0x0c || cp === 0x85 ||
        cp === 0x2028 || cp === 0x2029
      ) {
        kept += "\n";
      } else if (cp === 9) {
        kept += " ";
      } else if (is_ignorable_format_character(cp)) {
        continue;
      } else if (cp < 0x10000 && normal.code_map[cp] && bold.code_map[cp]) {
        kept += ch;
      } else {
        unsupported = true;
      }
    }
    out += unsupported ? UNSUPPORTED_CHARACTER_PLACEHOLDER : kept;
  }
  return out;
}
