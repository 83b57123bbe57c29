/**
 * The TrueType writer: font subsets for the build step
 * ({@link build_font_subset}) and for each document
 * ({@link encode_glyph_subset}), written from the tables `truetype.ts`
 * reads.
 *
 * @module
 */
import {
  component_glyph_ids,
  component_tail_size,
  glyph_bytes,
  MORE_COMPONENTS,
  required_table,
  type TrueTypeFont,
  view_of,
  WE_HAVE_INSTRUCTIONS,
} from "./truetype.ts";

function strip_glyph(
  glyph: Uint8Array,
  new_id: (old: number) => number,
): Uint8Array {
  if (glyph.length === 0) return glyph;
  const dv = view_of(glyph);
  const contours = dv.getInt16(0);
  if (contours >= 0) {
    const instr_len_at = 10 + contours * 2;
    const instr_len = dv.getUint16(instr_len_at);
    const rest = glyph.subarray(instr_len_at + 2 + instr_len);
    const out = new Uint8Array(instr_len_at + 2 + rest.length);
    out.set(glyph.subarray(0, instr_len_at), 0);
    // instruction length stays 0 (the new buffer is zero-filled)
    out.set(rest, instr_len_at + 2);
    return out;
  }
  // Composite: copy the component records, drop the trailing instructions.
  let pos = 10;
  for (;;) {
    const flags = dv.getUint16(pos);
    pos += 4 + component_tail_size(flags);
    if ((flags & MORE_COMPONENTS) === 0) break;
  }
  const out = glyph.slice(0, pos);
  const odv = view_of(out);
  let at = 10;
  for (;;) {
    const flags = odv.getUint16(at);
    odv.setUint16(at, flags & ~WE_HAVE_INSTRUCTIONS);
    odv.setUint16(at + 2, new_id(odv.getUint16(at + 2)));
    at += 4 + component_tail_size(flags);
    if ((flags & MORE_COMPONENTS) === 0) break;
  }
  return out;
}

/** Options of {@link build_font_subset}. */
export interface BuildSubsetOptions {
  /** Records (platform 3, encoding 1, language 0x409) for the new `name` table. */
  names: Map<number, string>;
}

/**
 * Build-time subset: keeps the glyphs of `code_points` (and their composite
 * components), strips hinting, renumbers glyphs and drops every table a PDF
 * renderer does not use (GSUB/GPOS/GDEF/STAT/gasp/prep…).
 *
 * Glyphs are numbered in the order of `code_points`, each composite followed
 * by its components, so listing common characters first keeps the glyph ids
 * of a typical invoice small; the per-document font then stays short (its
 * `loca`/`hmtx` cover ids up to the largest one used).
 */
export function build_font_subset(
  font: TrueTypeFont,
  code_points: readonly number[],
  options: BuildSubsetOptions,
): Uint8Array {
  const new_ids = new Map<number, number>([[0, 0]]);
  const order: number[] = [0];
  const assign = (old: number): void => {
    if (new_ids.has(old)) return;
    new_ids.set(old, order.length);
    order.push(old);
    for (const component of component_glyph_ids(font, old)) assign(component);
  };
  const cmap = new Map<number, number>();
  for (const cp of code_points) {
    const old = font.cmap.get(cp);
    if (old === undefined) continue;
    assign(old);
    cmap.set(cp, new_ids.get(old)!);
  }
  for (const component of component_glyph_ids(font, 0)) assign(component);

  const map_id = (old: number): number => {
    const id = new_ids.get(old);
    if (id === undefined) {
      throw new Error(`component glyph ${old} was not kept`);
    }
    return id;
  };
  const glyphs = order.map((old) =>
    strip_glyph(glyph_bytes(font, old), map_id)
  );
  const advances = order.map((old) => font.advances[old]);
  const lsbs = order.map((old) => font.lsbs[old]);
  const os2 = required_table(font.tables, "OS/2").slice();
  const cps = [...cmap.keys()];
  const os2_view = view_of(os2);
  os2_view.setUint16(64, Math.min(Math.min(...cps), 0xffff)); // usFirstCharIndex
  os2_view.setUint16(66, Math.min(Math.max(...cps), 0xffff)); // usLastCharIndex
  if (os2_view.getUint16(0) >= 2) os2_view.setUint16(94, 0); // usMaxContext: no GSUB/GPOS left

  return write_font(font, {
    glyphs,
    advances,
    lsbs,
    cmap,
    name: encode_name_table(options.names),
    os2,
    post: encode_post_v3(required_table(font.tables, "post")),
  });
}

/** Options of {@link encode_glyph_subset}. */
export interface GlyphSubsetOptions {
  /** Glyph ids to keep (composite components are added automatically). */
  glyphs: Iterable<number>;
  /** Code point → glyph id for the characters used, for the font's cmap. */
  cmap: Map<number, number>;
}

/**
 * Per-document subset of a font produced by {@link build_font_subset}: only
 * the glyphs in `used` (plus composite components and .notdef) keep their
 * outlines; glyph ids are unchanged. `cmap` maps the code points the document
 * uses to their glyph ids (kept so the font program itself stays meaningful).
 */
export function encode_glyph_subset(
  font: TrueTypeFont,
  { glyphs: used, cmap }: GlyphSubsetOptions,
): Uint8Array {
  const keep = new Set<number>([0]);
  const add = (gid: number): void => {
    if (keep.has(gid) || gid >= font.num_glyphs) return;
    keep.add(gid);
    for (const component of component_glyph_ids(font, gid)) add(component);
  };
  for (const gid of used) add(gid);
  let max = 0;
  for (const gid of keep) if (gid > max) max = gid;
  const count = max + 1;
  const glyphs: Uint8Array[] = new Array(count);
  const advances: number[] = new Array(count);
  const lsbs: number[] = new Array(count);
  const empty = new Uint8Array(0);
  for (let gid = 0; gid < count; gid++) {
    if (keep.has(gid)) {
      glyphs[gid] = glyph_bytes(font, gid);
      advances[gid] = font.advances[gid];
      lsbs[gid] = font.lsbs[gid];
    } else {
      // Unused glyphs: no outline and zero metrics, which compress to almost
      // nothing; PDF viewers take advances from the /W array anyway.
      glyphs[gid] = empty;
      advances[gid] = 0;
      lsbs[gid] = 0;
    }
  }
  return write_font(font, {
    glyphs,
    advances,
    lsbs,
    cmap,
    name: required_table(font.tables, "name"),
    os2: required_table(font.tables, "OS/2"),
    post: required_table(font.tables, "post"),
  });
}

interface FontParts {
  glyphs: Uint8Array[];
  advances: number[];
  lsbs: number[];
  cmap: Map<number, number>;
  name: Uint8Array;
  os2: Uint8Array;
  post: Uint8Array;
}

function write_font(source: TrueTypeFont, parts: FontParts): Uint8Array {
  const count = parts.glyphs.length;
  // Glyphs are padded to even lengths so the short loca format can address them.
  let glyf_size = 0;
  for (const g of parts.glyphs) glyf_size += (g.length + 1) & ~1;
  const long_loca = glyf_size > 0x1fffe;
  const glyf = new Uint8Array(glyf_size);
  const loca = new Uint8Array((count + 1) * (long_loca ? 4 : 2));
  const loca_view = view_of(loca);
  let pos = 0;
  for (let g = 0; g <= count; g++) {
    if (long_loca) loca_view.setUint32(g * 4, pos);
    else loca_view.setUint16(g * 2, pos / 2);
    if (g === count) break;
    glyf.set(parts.glyphs[g], pos);
    pos += (parts.glyphs[g].length + 1) & ~1;
  }

  const hmtx = new Uint8Array(count * 4);
  const hmtx_view = view_of(hmtx);
  for (let g = 0; g < count; g++) {
    hmtx_view.setUint16(g * 4, parts.advances[g]);
    hmtx_view.setInt16(g * 4 + 2, parts.lsbs[g]);
  }

  const head = required_table(source.tables, "head").slice();
  const head_view = view_of(head);
  head_view.setUint32(8, 0); // checkSumAdjustment, filled in at the end
  head_view.setInt16(50, long_loca ? 1 : 0);
  const hhea = required_table(source.tables, "hhea").slice();
  view_of(hhea).setUint16(34, count);
  const maxp = required_table(source.tables, "maxp").slice();
  view_of(maxp).setUint16(4, count);
  if (maxp.length >= 32) {
    // No glyph carries instructions any more.
    view_of(maxp).setUint16(26, 0); // maxSizeOfInstructions
  }

  const tables = new Map<string, Uint8Array>([
    ["OS/2", parts.os2],
    ["cmap", encode_cmap_format4(parts.cmap)],
    ["glyf", glyf],
    ["head", head],
    ["hhea", hhea],
    ["hmtx", hmtx],
    ["loca", loca],
    ["maxp", maxp],
    ["name", parts.name],
    ["post", parts.post],
  ]);
  return write_sfnt(tables);
}

function checksum(data: Uint8Array): number {
  const dv = view_of(data);
  let sum = 0;
  const whole = data.length & ~3;
  for (let i = 0; i < whole; i += 4) sum = (sum + dv.getUint32(i)) >>> 0;
  if (whole < data.length) {
    let last = 0;
    for (let i = whole; i < whole + 4; i++) {
      last = (last << 8) | (i < data.length ? data[i] : 0);
    }
    sum = (sum + (last >>> 0)) >>> 0;
  }
  return sum;
}

/** Assembles tables (sorted by tag, 4-byte aligned) with correct checksums. */
function write_sfnt(tables: Map<string, Uint8Array>): Uint8Array {
  const tags = [...tables.keys()].sort();
  const n = tags.length;
  let search_range = 1;
  let entry_selector = 0;
  while (search_range * 2 <= n) {
    search_range *= 2;
    entry_selector++;
  }
  let size = 12 + n * 16;
  for (const tag of tags) size += (tables.get(tag)!.length + 3) & ~3;
  const out = new Uint8Array(size);
  const dv = view_of(out);
  dv.setUint32(0, 0x00010000);
  dv.setUint16(4, n);
  dv.setUint16(6, search_range * 16);
  dv.setUint16(8, entry_selector);
  dv.setUint16(10, n * 16 - search_range * 16);
  let offset = 12 + n * 16;
  let head_offset = -1;
  tags.forEach((tag, i) => {
    const table = tables.get(tag)!;
    const record = 12 + i * 16;
    for (let c = 0; c < 4; c++) out[record + c] = tag.charCodeAt(c);
    dv.setUint32(record + 4, checksum(table));
    dv.setUint32(record + 8, offset);
    dv.setUint32(record + 12, table.length);
    out.set(table, offset);
    if (tag === "head") head_offset = offset;
    offset += (table.length + 3) & ~3;
  });
  if (head_offset >= 0) {
    dv.setUint32(head_offset + 8, (0xb1b0afba - checksum(out)) >>> 0);
  }
  return out;
}

/** A (3,1) + (0,3) format 4 cmap for BMP code points. */
function encode_cmap_format4(cmap: Map<number, number>): Uint8Array {
  const cps = [...cmap.keys()].filter((cp) => cp < 0xffff).sort((a, b) =>
    a - b
  );
  // Segments of consecutive code points with consecutive glyph ids (idDelta only).
  const segments: { start: number; end: number; delta: number }[] = [];
  for (const cp of cps) {
    const gid = cmap.get(cp)!;
    const last = segments[segments.length - 1];
    if (
      last && last.end === cp - 1 &&
      ((last.start + last.delta) & 0xffff) + (cp - last.start) === gid
    ) {
      last.end = cp;
    } else {
      segments.push({ start: cp, end: cp, delta: (gid - cp) & 0xffff });
    }
  }
  segments.push({ start: 0xffff, end: 0xffff, delta: 1 });
  const seg_count = segments.length;
  const sub_length = 16 + seg_count * 8;
  const out = new Uint8Array(4 + 16 + sub_length);
  const dv = view_of(out);
  dv.setUint16(0, 0); // version
  dv.setUint16(2, 2); // two encoding records sharing one subtable
  dv.setUint16(4, 0);
  dv.setUint16(6, 3);
  dv.setUint32(8, 20);
  dv.setUint16(12, 3);
  dv.setUint16(14, 1);
  dv.setUint32(16, 20);
  const t = 20;
  let search = 1;
  let selector = 0;
  while (search * 2 <= seg_count) {
    search *= 2;
    selector++;
  }
  dv.setUint16(t, 4);
  dv.setUint16(t + 2, sub_length);
  dv.setUint16(t + 4, 0);
  dv.setUint16(t + 6, seg_count * 2);
  dv.setUint16(t + 8, search * 2);
  dv.setUint16(t + 10, selector);
  dv.setUint16(t + 12, seg_count * 2 - search * 2);
  const ends = t + 14;
  const starts = ends + seg_count * 2 + 2;
  const deltas = starts + seg_count * 2;
  segments.forEach((s, i) => {
    dv.setUint16(ends + i * 2, s.end);
    dv.setUint16(starts + i * 2, s.start);
    dv.setUint16(deltas + i * 2, s.delta);
    // idRangeOffset stays 0
  });
  return out;
}

/** Builds a `name` table with Windows Unicode English records only. */
function encode_name_table(names: Map<number, string>): Uint8Array {
  const ids = [...names.keys()].sort((a, b) => a - b);
  const strings = ids.map((id) => {
    const text = names.get(id)!;
    const bytes = new Uint8Array(text.length * 2);
    for (let i = 0; i < text.length; i++) {
      bytes[i * 2] = text.charCodeAt(i) >> 8;
      bytes[i * 2 + 1] = text.charCodeAt(i) & 0xff;
    }
    return bytes;
  });
  const header = 6 + ids.length * 12;
  const total = header + strings.reduce((n, s) => n + s.length, 0);
  const out = new Uint8Array(total);
  const dv = view_of(out);
  dv.setUint16(0, 0);
  dv.setUint16(2, ids.length);
  dv.setUint16(4, header);
  let offset = 0;
  ids.forEach((id, i) => {
    const record = 6 + i * 12;
    dv.setUint16(record, 3);
    dv.setUint16(record + 2, 1);
    dv.setUint16(record + 4, 0x409);
    dv.setUint16(record + 6, id);
    dv.setUint16(record + 8, strings[i].length);
    dv.setUint16(record + 10, offset);
    out.set(strings[i], header + offset);
    offset += strings[i].length;
  });
  return out;
}

/** `post` version 3: the metrics of the original without glyph names. */
function encode_post_v3(post: Uint8Array): Uint8Array {
  const out = post.slice(0, 32);
  const dv = view_of(out);
  dv.setUint32(0, 0x00030000);
  // minMemType42 … maxMemType1 describe the old font; zero means "unknown".
  for (let i = 16; i < 32; i += 4) dv.setUint32(i, 0);
  return out;
}
