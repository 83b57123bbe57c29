/**
 * Logos scaled to the resolution they print at. A logo is drawn into a box
 * of about 160 × 52 pt, which at {@link LOGO_DPI} is some 670 × 220 pixels;
 * a 4-megapixel PNG drawn as it is costs jsPDF seconds and hundreds of MB
 * (its PNG path inflates, un-filters, splits the alpha and deflates again,
 * all in JavaScript), and the PDF carries pixels nobody sees. So a PNG much
 * larger than its print size is decoded here, one row at a time, averaged
 * down to the print size as it goes, and handed to jsPDF as a small PNG.
 *
 * The decoder covers what the contract accepts (`contract/images.ts`):
 * every colour type and bit depth, palettes, `tRNS` transparency and Adam7
 * interlacing. It inflates with the runtime's zlib (native), which is what
 * makes it several times faster than a pure JavaScript decoder.
 *
 * JPEGs are not scaled: jsPDF embeds their bytes as they are (DCTDecode,
 * no decoding), so a large JPEG costs no more than its file (≤ 256 KB).
 *
 * @module
 */

import { deflateSync, inflateSync } from "node:zlib";

/** Resolution logos are printed at, in pixels per inch. */
export const LOGO_DPI = 300;

/** Pixel size of a box of `width` × `height` pt printed at {@link LOGO_DPI}. */
export function print_pixels(
  width: number,
  height: number,
): { width: number; height: number } {
  return {
    width: Math.max(1, Math.ceil(width / 72 * LOGO_DPI)),
    height: Math.max(1, Math.ceil(height / 72 * LOGO_DPI)),
  };
}

/**
 * Whether an image of `size` pixels drawn at `target` pixels has enough to
 * spare that scaling it pays: more than twice the print size a side.
 * Smaller logos are drawn as they are.
 */
export function needs_downscaling(
  size: { width: number; height: number },
  target: { width: number; height: number },
): boolean {
  return size.width > 2 * target.width || size.height > 2 * target.height;
}

interface PngHeader {
  width: number;
  height: number;
  depth: number;
  /** PNG colour type: 0 grey, 2 RGB, 3 palette, 4 grey + alpha, 6 RGBA. */
  type: number;
  interlaced: boolean;
}

interface PngParts {
  header: PngHeader;
  /** RGBA per palette index (tRNS applied). */
  palette?: Uint8Array;
  /** Colour-key transparency (`tRNS` of grey and RGB), in sample values. */
  key?: number[];
  data: Uint8Array;
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

function uint32(bytes: Uint8Array, at: number): number {
  return ((bytes[at] << 24) >>> 0) + (bytes[at + 1] << 16) +
    (bytes[at + 2] << 8) + bytes[at + 3];
}

/** The chunks of a PNG the contract has checked: header, palette, data. */
function read_png(bytes: Uint8Array): PngParts {
  let header: PngHeader | undefined;
  let palette: Uint8Array | undefined;
  let transparency: Uint8Array | undefined;
  const data: Uint8Array[] = [];
  let at = 8;
  while (at + 8 <= bytes.length) {
    const length = uint32(bytes, at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (type === "IHDR") {
      header = {
        width: uint32(body, 0),
        height: uint32(body, 4),
        depth: body[8],
        type: body[9],
        interlaced: body[12] === 1,
      };
    } else if (type === "PLTE") {
      palette = new Uint8Array(256 * 4);
      for (let i = 0; i * 3 + 2 < body.length && i < 256; i++) {
        palette.set(
          [body[i * 3], body[i * 3 + 1], body[i * 3 + 2], 255],
          i * 4,
        );
      }
    } else if (type === "tRNS") {
      transparency = body;
    } else if (type === "IDAT") {
      data.push(body);
    } else if (type === "IEND") {
      break;
    }
    at += 12 + length;
  }
  if (header === undefined) throw new Error("PNG without a header");
  let key: number[] | undefined;
  if (transparency !== undefined) {
    if (palette !== undefined && header.type === 3) {
      for (let i = 0; i < transparency.length && i < 256; i++) {
        palette[i * 4 + 3] = transparency[i];
      }
    } else if (header.type === 0 || header.type === 2) {
      key = [];
      for (let i = 0; i + 1 < transparency.length; i += 2) {
        key.push((transparency[i] << 8) | transparency[i + 1]);
      }
    }
  }
  const joined = new Uint8Array(data.reduce((n, part) => n + part.length, 0));
  let offset = 0;
  for (const part of data) {
    joined.set(part, offset);
    offset += part.length;
  }
  return { header, palette, key, data: new Uint8Array(inflateSync(joined)) };
}

/** Adam7 passes: first column and row, and their steps. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Undoes a scanline's filter in place (`row` holds the filtered bytes). */
function unfilter(
  filter: number,
  row: Uint8Array,
  previous: Uint8Array,
  bpp: number,
): void {
  const n = row.length;
  switch (filter) {
    case 0:
      return;
    case 1:
      for (let i = bpp; i < n; i++) row[i] = row[i] + row[i - bpp];
      return;
    case 2:
      for (let i = 0; i < n; i++) row[i] = row[i] + previous[i];
      return;
    case 3:
      for (let i = 0; i < n; i++) {
        const left = i >= bpp ? row[i - bpp] : 0;
        row[i] = row[i] + ((left + previous[i]) >> 1);
      }
      return;
    case 4:
      for (let i = 0; i < n; i++) {
        const left = i >= bpp ? row[i - bpp] : 0;
        const corner = i >= bpp ? previous[i - bpp] : 0;
        row[i] = row[i] + paeth(left, previous[i], corner);
      }
      return;
    default:
      throw new Error(`PNG filter ${filter} is not defined`);
  }
}

/**
 * Converts every `step`-th of the `count` pixels of one unfiltered
 * scanline to straight RGBA (8 bits a channel), packed into `out`.
 */
function row_to_rgba(
  row: Uint8Array,
  count: number,
  step: number,
  parts: PngParts,
  out: Uint8Array,
): void {
  const { depth, type } = parts.header;
  const channels = CHANNELS[type];
  const { palette, key } = parts;
  const max = depth >= 8 ? 255 : (1 << depth) - 1;
  const eight = depth === 16
    ? (v: number): number => v >> 8
    : depth === 8
    ? (v: number): number => v
    : (v: number): number => Math.round(v * 255 / max);
  for (let x = 0, o = 0; x < count; x += step, o += 4) {
    // Samples of this pixel, in the image's own depth.
    let s0: number, s1 = 0, s2 = 0, s3 = 0;
    if (depth === 8) {
      const i = x * channels;
      s0 = row[i];
      if (channels > 1) s1 = row[i + 1];
      if (channels > 2) s2 = row[i + 2];
      if (channels > 3) s3 = row[i + 3];
    } else if (depth === 16) {
      const i = x * channels * 2;
      s0 = (row[i] << 8) | row[i + 1];
      if (channels > 1) s1 = (row[i + 2] << 8) | row[i + 3];
      if (channels > 2) s2 = (row[i + 4] << 8) | row[i + 5];
      if (channels > 3) s3 = (row[i + 6] << 8) | row[i + 7];
    } else {
      const bit = x * depth;
      s0 = (row[bit >> 3] >> (8 - depth - (bit & 7))) & max;
    }
    if (type === 3) {
      const p = s0 * 4;
      out[o] = palette![p];
      out[o + 1] = palette![p + 1];
      out[o + 2] = palette![p + 2];
      out[o + 3] = palette![p + 3];
      continue;
    }
    let alpha = 255;
    if (type === 0 || type === 4) {
      const grey = eight(s0);
      out[o] = grey;
      out[o + 1] = grey;
      out[o + 2] = grey;
      if (type === 4) alpha = eight(s1);
      else if (key !== undefined && s0 === key[0]) alpha = 0;
    } else {
      out[o] = eight(s0);
      out[o + 1] = eight(s1);
      out[o + 2] = eight(s2);
      if (type === 6) alpha = eight(s3);
      else if (
        key !== undefined && s0 === key[0] && s1 === key[1] && s2 === key[2]
      ) {
        alpha = 0;
      }
    }
    out[o + 3] = alpha;
  }
}

/**
 * Sums of the pixels falling into each target pixel: red, green and blue
 * weighted by alpha (so transparent pixels leave no dark fringe), alpha,
 * and the count.
 */
class Averager {
  readonly sums: Float64Array;
  readonly #column_bins: Uint32Array;
  readonly #row_bins: Uint32Array;

  constructor(
    readonly from: { width: number; height: number },
    readonly to: { width: number; height: number },
  ) {
    this.sums = new Float64Array(to.width * to.height * 5);
    this.#column_bins = new Uint32Array(from.width);
    for (let x = 0; x < from.width; x++) {
      this.#column_bins[x] = Math.floor(x * to.width / from.width);
    }
    this.#row_bins = new Uint32Array(from.height);
    for (let y = 0; y < from.height; y++) {
      this.#row_bins[y] = Math.floor(y * to.height / from.height);
    }
  }

  /** Adds `count` RGBA pixels of image row `y`, at columns x0, x0 + dx, … */
  add(rgba: Uint8Array, count: number, y: number, x0: number, dx: number) {
    const row = this.#row_bins[y] * this.to.width;
    const sums = this.sums;
    for (let i = 0, x = x0; i < count; i++, x += dx) {
      const bin = (row + this.#column_bins[x]) * 5;
      const o = i * 4;
      const alpha = rgba[o + 3];
      sums[bin] += rgba[o] * alpha;
      sums[bin + 1] += rgba[o + 1] * alpha;
      sums[bin + 2] += rgba[o + 2] * alpha;
      sums[bin + 3] += alpha;
      sums[bin + 4] += 1;
    }
  }

  /** The averaged pixels: RGB, or RGBA when any is not opaque. */
  result(): { pixels: Uint8Array; channels: 3 | 4 } {
    const sums = this.sums;
    const count = this.to.width * this.to.height;
    let opaque = true;
    for (let i = 0; i < count; i++) {
      if (sums[i * 5 + 3] !== 255 * sums[i * 5 + 4]) {
        opaque = false;
        break;
      }
    }
    const channels = opaque ? 3 : 4;
    const pixels = new Uint8Array(count * channels);
    for (let i = 0; i < count; i++) {
      const s = i * 5;
      const o = i * channels;
      const alpha = sums[s + 3];
      if (alpha > 0) {
        pixels[o] = Math.round(sums[s] / alpha);
        pixels[o + 1] = Math.round(sums[s + 1] / alpha);
        pixels[o + 2] = Math.round(sums[s + 2] / alpha);
      }
      if (!opaque) pixels[o + 3] = Math.round(alpha / sums[s + 4]);
    }
    return { pixels, channels };
  }
}

/**
 * Decodes `parts` row by row (each Adam7 pass in turn) into `averager`.
 * Every row is un-filtered (the next depends on it), but where a target
 * pixel covers many source pixels only every `step`-th row and column is
 * averaged (at least four a side still fall into each target pixel).
 */
function decode_into(parts: PngParts, averager: Averager): void {
  const { width, height, depth, type, interlaced } = parts.header;
  const step = interlaced ? 1 : Math.max(
    1,
    Math.floor(
      Math.min(width / averager.to.width, height / averager.to.height) / 4,
    ),
  );
  const bits_per_pixel = CHANNELS[type] * depth;
  const bpp = Math.max(1, bits_per_pixel >> 3);
  const rgba = new Uint8Array(width * 4);
  const data = parts.data;
  let at = 0;
  for (const [x0, y0, dx, dy] of interlaced ? ADAM7 : [[0, 0, 1, 1]]) {
    const count = Math.ceil((width - x0) / dx);
    const rows = Math.ceil((height - y0) / dy);
    if (count <= 0 || rows <= 0) continue;
    const row_bytes = Math.ceil(count * bits_per_pixel / 8);
    let previous: Uint8Array = new Uint8Array(row_bytes);
    for (let r = 0; r < rows; r++) {
      if (at + 1 + row_bytes > data.length) {
        throw new Error("PNG with less image data than its size");
      }
      const row = data.subarray(at + 1, at + 1 + row_bytes);
      unfilter(data[at], row, previous, bpp);
      if (r % step === 0) {
        row_to_rgba(row, count, step, parts, rgba);
        averager.add(rgba, Math.ceil(count / step), y0 + r * dy, x0, dx * step);
      }
      previous = row;
      at += 1 + row_bytes;
    }
  }
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function chunk(type: string, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + body.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, body.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(body, 8);
  let c = 0xffffffff;
  for (let i = 4; i < 8 + body.length; i++) {
    c = CRC_TABLE[(c ^ out[i]) & 0xff] ^ (c >>> 8);
  }
  view.setUint32(8 + body.length, (c ^ 0xffffffff) >>> 0);
  return out;
}

/** An 8-bit RGB or RGBA PNG of `pixels`, unfiltered. */
function encode_png(
  pixels: Uint8Array,
  { width, height, channels }: {
    width: number;
    height: number;
    channels: 3 | 4;
  },
): Uint8Array {
  const stride = width * channels;
  const raw = new Uint8Array(height * (stride + 1));
  for (let y = 0; y < height; y++) {
    raw.set(
      pixels.subarray(y * stride, (y + 1) * stride),
      y * (stride + 1) + 1,
    );
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, channels === 4 ? 6 : 2, 0, 0, 0], 8);
  const parts = [
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", header),
    chunk("IDAT", new Uint8Array(deflateSync(raw))),
    chunk("IEND", new Uint8Array(0)),
  ];
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * The PNG `bytes` scaled down to fit `target` pixels (aspect ratio kept,
 * so one side may be a pixel short), as a new 8-bit PNG: RGB, or RGBA when
 * any pixel is not opaque.
 */
export function downscale_png(
  bytes: Uint8Array,
  target: { width: number; height: number },
): { bytes: Uint8Array; width: number; height: number } {
  const parts = read_png(bytes);
  const from = parts.header;
  const factor = Math.min(
    target.width / from.width,
    target.height / from.height,
  );
  const to = {
    width: Math.max(1, Math.round(from.width * factor)),
    height: Math.max(1, Math.round(from.height * factor)),
  };
  const averager = new Averager(from, to);
  decode_into(parts, averager);
  const { pixels, channels } = averager.result();
  return { bytes: encode_png(pixels, { ...to, channels }), ...to };
}
