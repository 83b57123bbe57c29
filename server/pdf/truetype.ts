/**
 * A small TrueType (glyf-flavoured sfnt) reader; `truetype_writer.ts`
 * writes the subsets.
 *
 * Two users:
 * - the build step (`build_fonts.ts`) cuts Noto Sans down to the code points
 *   the invoices support, drops hinting and layout tables and renumbers the
 *   glyphs in code-point order;
 * - the renderer embeds, per document, only the glyphs that document uses
 *   ({@link encode_glyph_subset}). Glyph ids are kept as they are because the
 *   PDF refers to glyphs by id (`/CIDToGIDMap /Identity`), so unused glyphs
 *   become empty entries rather than being removed.
 *
 * Only what those two jobs need is implemented; anything else in a font is
 * dropped, never copied blindly.
 *
 * @module
 */

/** Flags of a composite glyph component (OpenType `glyf` spec). */
const ARG_1_AND_2_ARE_WORDS = 0x0001;
const WE_HAVE_A_SCALE = 0x0008;
export const MORE_COMPONENTS = 0x0020;
const WE_HAVE_AN_X_AND_Y_SCALE = 0x0040;
const WE_HAVE_A_TWO_BY_TWO = 0x0080;
export const WE_HAVE_INSTRUCTIONS = 0x0100;

/** A parsed font: raw tables plus the few decoded structures we need. */
export interface TrueTypeFont {
  /** Raw bytes of each table, keyed by tag. */
  tables: Map<string, Uint8Array>;
  num_glyphs: number;
  units_per_em: number;
  /** Advance width of each glyph in font units. */
  advances: Uint16Array;
  /** Left side bearing of each glyph in font units. */
  lsbs: Int16Array;
  /** Byte range of each glyph in the `glyf` table; empty glyphs have start === end. */
  glyph_starts: Uint32Array;
  glyph_ends: Uint32Array;
  /** Unicode code point to glyph id, from the best Unicode `cmap` subtable. */
  cmap: Map<number, number>;
}

function tag_at(data: Uint8Array, offset: number): string {
  return String.fromCharCode(
    data[offset],
    data[offset + 1],
    data[offset + 2],
    data[offset + 3],
  );
}

export function view_of(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function required_table(
  tables: Map<string, Uint8Array>,
  tag: string,
): Uint8Array {
  const table = tables.get(tag);
  if (table === undefined) {
    throw new Error(`TrueType font has no '${tag}' table`);
  }
  return table;
}

/**
 * Parses the parts of a TrueType font that subsetting needs.
 *
 * @throws if the data is not a TrueType-outline font with a Unicode cmap.
 */
export function parse_truetype(data: Uint8Array): TrueTypeFont {
  const dv = view_of(data);
  const version = dv.getUint32(0);
  if (version !== 0x00010000 && version !== 0x74727565) {
    throw new Error(
      "Not a TrueType font (CFF and collections are not supported)",
    );
  }
  const num_tables = dv.getUint16(4);
  const tables = new Map<string, Uint8Array>();
  for (let i = 0; i < num_tables; i++) {
    const record = 12 + i * 16;
    const offset = dv.getUint32(record + 8);
    const length = dv.getUint32(record + 12);
    tables.set(tag_at(data, record), data.subarray(offset, offset + length));
  }
  const head = view_of(required_table(tables, "head"));
  const units_per_em = head.getUint16(18);
  const long_loca = head.getInt16(50) === 1;
  const num_glyphs = view_of(required_table(tables, "maxp")).getUint16(4);
  const num_h_metrics = view_of(required_table(tables, "hhea")).getUint16(34);

  const hmtx = view_of(required_table(tables, "hmtx"));
  const advances = new Uint16Array(num_glyphs);
  const lsbs = new Int16Array(num_glyphs);
  for (let g = 0; g < num_glyphs; g++) {
    if (g < num_h_metrics) {
      advances[g] = hmtx.getUint16(g * 4);
      lsbs[g] = hmtx.getInt16(g * 4 + 2);
    } else {
      // Glyphs past numberOfHMetrics repeat the last advance (monospaced tail).
      advances[g] = advances[num_h_metrics - 1];
      lsbs[g] = hmtx.getInt16(num_h_metrics * 4 + (g - num_h_metrics) * 2);
    }
  }

  const loca = view_of(required_table(tables, "loca"));
  const glyph_starts = new Uint32Array(num_glyphs);
  const glyph_ends = new Uint32Array(num_glyphs);
  for (let g = 0; g < num_glyphs; g++) {
    glyph_starts[g] = long_loca
      ? loca.getUint32(g * 4)
      : loca.getUint16(g * 2) * 2;
    glyph_ends[g] = long_loca
      ? loca.getUint32(g * 4 + 4)
      : loca.getUint16(g * 2 + 2) * 2;
  }

  return {
    tables,
    num_glyphs,
    units_per_em,
    advances,
    lsbs,
    glyph_starts,
    glyph_ends,
    cmap: parse_unicode_cmap(required_table(tables, "cmap")),
  };
}

/** Reads the (3,10) format 12 subtable if present, else the (3,1)/(0,x) format 4 one. */
function parse_unicode_cmap(cmap: Uint8Array): Map<number, number> {
  const dv = view_of(cmap);
  const count = dv.getUint16(2);
  let best_offset = -1;
  let best_rank = 0;
  for (let i = 0; i < count; i++) {
    const platform = dv.getUint16(4 + i * 8);
    const encoding = dv.getUint16(6 + i * 8);
    const offset = dv.getUint32(8 + i * 8);
    const format = dv.getUint16(offset);
    let rank = 0;
    if (
      format === 12 && (platform === 3 && encoding === 10 || platform === 0)
    ) rank = 3;
    else if (format === 4 && platform === 3 && encoding === 1) rank = 2;
    else if (format === 4 && platform === 0) rank = 1;
    if (rank > best_rank) {
      best_rank = rank;
      best_offset = offset;
    }
  }
  if (best_offset < 0) throw new Error("TrueType font has no Unicode cmap");
  const map = new Map<number, number>();
  if (dv.getUint16(best_offset) === 12) {
    const groups = dv.getUint32(best_offset + 12);
    for (let i = 0; i < groups; i++) {
      const group = best_offset + 16 + i * 12;
      const start = dv.getUint32(group);
      const end = dv.getUint32(group + 4);
      const gid = dv.getUint32(group + 8);
      for (let cp = start; cp <= end; cp++) map.set(cp, gid + cp - start);
    }
    return map;
  }
  const seg_count = dv.getUint16(best_offset + 6) / 2;
  const ends = best_offset + 14;
  const starts = ends + seg_count * 2 + 2;
  const deltas = starts + seg_count * 2;
  const range_offsets = deltas + seg_count * 2;
  for (let s = 0; s < seg_count; s++) {
    const end = dv.getUint16(ends + s * 2);
    const start = dv.getUint16(starts + s * 2);
    const delta = dv.getInt16(deltas + s * 2);
    const range_offset = dv.getUint16(range_offsets + s * 2);
    for (let cp = start; cp <= end && cp !== 0xffff; cp++) {
      let gid: number;
      if (range_offset === 0) {
        gid = (cp + delta) & 0xffff;
      } else {
        const at = range_offsets + s * 2 + range_offset + (cp - start) * 2;
        gid = dv.getUint16(at);
        if (gid !== 0) gid = (gid + delta) & 0xffff;
      }
      if (gid !== 0) map.set(cp, gid);
    }
  }
  return map;
}

/** Glyph ids referenced by a composite glyph (empty for simple glyphs). */
export function component_glyph_ids(font: TrueTypeFont, gid: number): number[] {
  const glyph = glyph_bytes(font, gid);
  if (glyph.length === 0) return [];
  const dv = view_of(glyph);
  if (dv.getInt16(0) >= 0) return [];
  const ids: number[] = [];
  let pos = 10;
  for (;;) {
    const flags = dv.getUint16(pos);
    ids.push(dv.getUint16(pos + 2));
    pos += 4 + component_tail_size(flags);
    if ((flags & MORE_COMPONENTS) === 0) return ids;
  }
}

export function component_tail_size(flags: number): number {
  let size = flags & ARG_1_AND_2_ARE_WORDS ? 4 : 2;
  if (flags & WE_HAVE_A_SCALE) size += 2;
  else if (flags & WE_HAVE_AN_X_AND_Y_SCALE) size += 4;
  else if (flags & WE_HAVE_A_TWO_BY_TWO) size += 8;
  return size;
}

export function glyph_bytes(font: TrueTypeFont, gid: number): Uint8Array {
  const glyf = required_table(font.tables, "glyf");
  return glyf.subarray(font.glyph_starts[gid], font.glyph_ends[gid]);
}

/**
 * Copies a glyph without its TrueType hinting instructions, renumbering the
 * components of a composite glyph through `new_id`.
 *
 * Hinting only matters for low-resolution rasterisers; PDF viewers and
 * printers render these sizes fine without it, and it is a large share of
 * Noto's `glyf` data.
 */
/** Reads a `name` record (Windows Unicode, English) as a string, if present. */
export function read_name(
  font: TrueTypeFont,
  name_id: number,
): string | undefined {
  const table = required_table(font.tables, "name");
  const dv = view_of(table);
  const count = dv.getUint16(2);
  const storage = dv.getUint16(4);
  for (let i = 0; i < count; i++) {
    const r = 6 + i * 12;
    if (
      dv.getUint16(r) === 3 && dv.getUint16(r + 2) === 1 &&
      dv.getUint16(r + 4) === 0x409 && dv.getUint16(r + 6) === name_id
    ) {
      const length = dv.getUint16(r + 8);
      const offset = storage + dv.getUint16(r + 10);
      let text = "";
      for (let j = 0; j < length; j += 2) {
        text += String.fromCharCode(dv.getUint16(offset + j));
      }
      return text;
    }
  }
  return undefined;
}
