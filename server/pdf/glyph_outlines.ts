/**
 * Glyph outlines of a TrueType font as PDF path operators: words drawn as
 * shapes (`m`, `l`, `c`, `h`) rather than text, for the page marks of
 * previews and test documents, which must not come off with the text.
 *
 * Quadratic TrueType contours become cubic Béziers; coordinates stay in font
 * units, so one path serves every size and angle through a `cm` matrix.
 *
 * @module
 */

import type { TrueTypeFont } from "./truetype.ts";

/** Point flags of a simple glyph (OpenType `glyf` spec). */
const ON_CURVE = 0x01;
const X_SHORT = 0x02;
const Y_SHORT = 0x04;
const REPEAT = 0x08;
const X_SAME_OR_POSITIVE = 0x10;
const Y_SAME_OR_POSITIVE = 0x20;

/** Component flags of a composite glyph. */
const ARG_1_AND_2_ARE_WORDS = 0x0001;
const ARGS_ARE_XY_VALUES = 0x0002;
const SCALED = 0x0008 | 0x0040 | 0x0080;
const MORE_COMPONENTS = 0x0020;

interface Point {
  x: number;
  y: number;
  on: boolean;
}

/** A word's outline: path operators in font units, and its metrics. */
export interface WordOutline {
  /** Path construction operators of each letter (no painting operator). */
  letters: string[];
  /** All letters' operators together. */
  path: string;
  /** Sum of the glyphs' advances, font units. */
  advance: number;
  /** Height of capitals above the baseline, font units. */
  cap_height: number;
  /** Units per em of the font, to scale the path to a size. */
  units_per_em: number;
}

const outlines = new WeakMap<TrueTypeFont, Map<string, WordOutline>>();

/**
 * The outline of `word` set in `font` on one baseline from x = 0, glyph
 * after glyph by advance width (no kerning; the marks are capitals).
 * Cached per font and word for the process.
 *
 * @throws if the font lacks a character of `word`.
 */
export function word_outline(font: TrueTypeFont, word: string): WordOutline {
  let cache = outlines.get(font);
  if (cache === undefined) {
    cache = new Map();
    outlines.set(font, cache);
  }
  let outline = cache.get(word);
  if (outline === undefined) {
    outline = build_word_outline(font, word);
    cache.set(word, outline);
  }
  return outline;
}

function build_word_outline(font: TrueTypeFont, word: string): WordOutline {
  const letters: string[] = [];
  let x = 0;
  for (const char of word) {
    const gid = font.cmap.get(char.codePointAt(0)!);
    if (gid === undefined) {
      throw new Error(`the font has no glyph for ${JSON.stringify(char)}`);
    }
    letters.push(
      glyph_contours(font, gid, x, 0).map(contour_operators).join(""),
    );
    x += font.advances[gid];
  }
  return {
    letters,
    path: letters.join(""),
    advance: x,
    cap_height: cap_height_of(font),
    units_per_em: font.units_per_em,
  };
}

/** OS/2 sCapHeight (version 2 and later), else 70 % of the em. */
function cap_height_of(font: TrueTypeFont): number {
  const os2 = font.tables.get("OS/2");
  if (os2 !== undefined && os2.byteLength >= 90) {
    const view = new DataView(os2.buffer, os2.byteOffset, os2.byteLength);
    if (view.getUint16(0) >= 2) return view.getInt16(88);
  }
  return Math.round(font.units_per_em * 0.7);
}

function glyph_bytes(font: TrueTypeFont, gid: number): DataView {
  const glyf = font.tables.get("glyf");
  if (glyf === undefined) throw new Error("TrueType font has no 'glyf' table");
  const start = font.glyph_starts[gid];
  const end = font.glyph_ends[gid];
  return new DataView(glyf.buffer, glyf.byteOffset + start, end - start);
}

/** The contours of glyph `gid`, moved by (dx, dy). */
function glyph_contours(
  font: TrueTypeFont,
  gid: number,
  dx: number,
  dy: number,
): Point[][] {
  const glyph = glyph_bytes(font, gid);
  if (glyph.byteLength === 0) return [];
  const contours = glyph.getInt16(0);
  return contours >= 0
    ? simple_contours(glyph, contours, dx, dy)
    : composite_contours(font, glyph, dx, dy);
}

function simple_contours(
  glyph: DataView,
  contours: number,
  dx: number,
  dy: number,
): Point[][] {
  const ends: number[] = [];
  for (let c = 0; c < contours; c++) ends.push(glyph.getUint16(10 + c * 2));
  const count = contours === 0 ? 0 : ends[contours - 1] + 1;
  let pos = 10 + contours * 2;
  pos += 2 + glyph.getUint16(pos); // instructions
  const flags = new Uint8Array(count);
  for (let i = 0; i < count;) {
    const flag = glyph.getUint8(pos++);
    flags[i++] = flag;
    if (flag & REPEAT) {
      for (let r = glyph.getUint8(pos++); r > 0; r--) flags[i++] = flag;
    }
  }
  const read = (short: number, same: number): number[] => {
    const values: number[] = [];
    let value = 0;
    for (let i = 0; i < count; i++) {
      const flag = flags[i];
      if (flag & short) {
        const delta = glyph.getUint8(pos++);
        value += flag & same ? delta : -delta;
      } else if (!(flag & same)) {
        value += glyph.getInt16(pos);
        pos += 2;
      }
      values.push(value);
    }
    return values;
  };
  const xs = read(X_SHORT, X_SAME_OR_POSITIVE);
  const ys = read(Y_SHORT, Y_SAME_OR_POSITIVE);
  const result: Point[][] = [];
  let first = 0;
  for (const end of ends) {
    const contour: Point[] = [];
    for (let i = first; i <= end; i++) {
      contour.push({
        x: xs[i] + dx,
        y: ys[i] + dy,
        on: (flags[i] & ON_CURVE) !== 0,
      });
    }
    if (contour.length > 0) result.push(contour);
    first = end + 1;
  }
  return result;
}

function composite_contours(
  font: TrueTypeFont,
  glyph: DataView,
  dx: number,
  dy: number,
): Point[][] {
  const result: Point[][] = [];
  let pos = 10;
  for (;;) {
    const flags = glyph.getUint16(pos);
    const component = glyph.getUint16(pos + 2);
    pos += 4;
    const words = (flags & ARG_1_AND_2_ARE_WORDS) !== 0;
    const arg1 = words ? glyph.getInt16(pos) : glyph.getInt8(pos);
    const arg2 = words ? glyph.getInt16(pos + 2) : glyph.getInt8(pos + 1);
    pos += words ? 4 : 2;
    // Only offset components occur in the marks' capitals; anything else
    // would be drawn wrongly, so it is refused.
    if (!(flags & ARGS_ARE_XY_VALUES) || (flags & SCALED)) {
      throw new Error("scaled or point-matched composite glyphs are not drawn");
    }
    result.push(...glyph_contours(font, component, dx + arg1, dy + arg2));
    if (!(flags & MORE_COMPONENTS)) return result;
  }
}

/** PDF number in font units: whole units (1/1000 em) are fine enough. */
function num(value: number): string {
  const rounded = Math.round(value);
  return rounded === 0 ? "0" : String(rounded);
}

function midpoint(a: Point, b: Point): Point {
  return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, on: true };
}

/** One closed contour: lines, and quadratic arcs as cubic curves. */
function contour_operators(contour: Point[]): string {
  // Start on an on-curve point (or the midpoint of two off-curve ones).
  const start_index = contour.findIndex((point) => point.on);
  const points = start_index < 0
    ? [midpoint(contour[contour.length - 1], contour[0]), ...contour]
    : [...contour.slice(start_index), ...contour.slice(0, start_index)];
  const start = points[0];
  let ops = `${num(start.x)} ${num(start.y)} m\n`;
  let current = start;
  let control: Point | undefined;
  const quad_to = (c: Point, end: Point): void => {
    // A quadratic Bézier as a cubic: controls two thirds toward c.
    const c1x = current.x + (2 / 3) * (c.x - current.x);
    const c1y = current.y + (2 / 3) * (c.y - current.y);
    const c2x = end.x + (2 / 3) * (c.x - end.x);
    const c2y = end.y + (2 / 3) * (c.y - end.y);
    ops += `${num(c1x)} ${num(c1y)} ${num(c2x)} ${num(c2y)} ${num(end.x)} ${
      num(end.y)
    } c\n`;
    current = end;
  };
  for (let i = 1; i <= points.length; i++) {
    const point = i < points.length ? points[i] : start;
    if (point.on) {
      if (control) quad_to(control, point);
      else if (i < points.length) {
        ops += `${num(point.x)} ${num(point.y)} l\n`;
        current = point;
      }
      control = undefined;
    } else {
      if (control) quad_to(control, midpoint(control, point));
      control = point;
    }
  }
  return ops + "h\n";
}
