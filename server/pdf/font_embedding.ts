/**
 * Writes a document's fonts into its file: the glyphs the document used,
 * copied into a small TrueType program, with `/W` widths and a ToUnicode
 * CMap we write ourselves (every glyph maps back to its exact text). Script
 * fonts show document-allocated CIDs through a `/CIDToGIDMap` stream.
 *
 * Subsets are cached per process by glyph set: invoices of one sender
 * repeat theirs.
 *
 * @module
 */

import { deflateSync } from "node:zlib";
import type { JsPdfWriter } from "./jspdf_fence.ts";
import type { DocumentFont } from "./document_font.ts";
import { hex4, type PreparedFont } from "./prepared_font.ts";
import { encode_glyph_subset } from "./truetype_writer.ts";
import {
  binary_string_to_bytes,
  bytes_to_binary_string,
  deflate_stream,
} from "./pdf_syntax.ts";

/**
 * Writes a document's font as Type0 / CIDFontType2 with Identity-H
 * encoding; returns the object number of its Type0 font dictionary.
 */
export function put_document_font(
  writer: JsPdfWriter,
  font: DocumentFont,
): number {
  const { out, newObject } = writer;
  const prepared = font.prepared;
  // Sorted distinct glyph ids, each with the character it stands for.
  if (font.cid_gids.length > 1) return put_script_document_font(writer, font);
  const glyphs = Object.keys(font.to_unicode).map(Number).filter((g) => g > 0)
    .sort((a, b) => a - b);
  const embedded = embedded_latin_font(font, glyphs);
  const name = embedded.name;

  const { file_id, cmap_id } = put_program_and_cmap(writer, embedded);

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

  const font_id = newObject();
  out(
    `<</Type/Font/Subtype/Type0/BaseFont/${name}/Encoding/Identity-H` +
      `/DescendantFonts[${cid_font_id} 0 R]/ToUnicode ${cmap_id} 0 R>>`,
  );
  out("endobj");
  return font_id;
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
/**
 * Writes a font's compressed program and its ToUnicode CMap as two stream
 * objects; returns their object numbers.
 */
function put_program_and_cmap(
  writer: JsPdfWriter,
  embedded: EmbeddedFont,
): { file_id: number; cmap_id: number } {
  const { out, newObject, putStream } = writer;
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
  return { file_id, cmap_id };
}

/** Bound of {@link embedded_fonts}, per process (render worker). */
const EMBEDDED_FONT_CACHE_BYTES = 4 * 1024 * 1024;

function embedded_latin_font(
  font: DocumentFont,
  glyphs: readonly number[],
): EmbeddedFont {
  const prepared = font.prepared;
  const entries: (number | string)[] = [];
  for (const gid of glyphs) entries.push(gid, font.to_unicode[gid]);
  const cached = cached_font(prepared.postscript, entries);
  if (cached.found !== undefined) return cached.found;
  const cmap = new Map<number, number>();
  for (const gid of glyphs) {
    const value = font.to_unicode[gid];
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
      to_unicode: to_unicode_cmap(glyphs, font.to_unicode),
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
  writer: JsPdfWriter,
  font: DocumentFont,
): number {
  const { out, newObject, putStream } = writer;
  const prepared = font.prepared;
  const embedded = embedded_script_font(font);
  const name = embedded.name;

  const { file_id, cmap_id } = put_program_and_cmap(writer, embedded);

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

  const font_id = newObject();
  out(
    `<</Type/Font/Subtype/Type0/BaseFont/${name}/Encoding/Identity-H` +
      `/DescendantFonts[${cid_font_id} 0 R]/ToUnicode ${cmap_id} 0 R>>`,
  );
  out("endobj");
  return font_id;
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
    // At the level of every other stream of the document.
    to_unicode: bytes_to_binary_string(
      deflate_stream(binary_string_to_bytes(subset.to_unicode)),
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
