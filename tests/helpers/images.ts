/**
 * Small image files for tests and benchmarks, made in code (PNG) so no
 * binary fixture is needed, and the normalized `logo` object the contract
 * produces from them.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { deflateSync } from "node:zlib";

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** An RGBA PNG of `width` × `height` whose pixels `pixel(x, y)` gives. */
export function png_bytes(
  width: number,
  height: number,
  pixel: (x: number, y: number) => [number, number, number, number],
): Uint8Array {
  const raw = new Uint8Array(height * (1 + 4 * width));
  let at = 0;
  for (let y = 0; y < height; y++) {
    raw[at++] = 0; // filter: none
    for (let x = 0; x < width; x++) {
      const [r, g, b, a] = pixel(x, y);
      raw[at++] = r;
      raw[at++] = g;
      raw[at++] = b;
      raw[at++] = a;
    }
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 6, 0, 0, 0], 8); // 8 bit, RGBA, deflate, no filter, no interlace
  const parts = [
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", header),
    chunk("IDAT", new Uint8Array(deflateSync(raw))),
    chunk("IEND", new Uint8Array(0)),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** The normalized logo object of the contract for these image bytes. */
export interface TestLogo {
  mime: "image/png" | "image/jpeg";
  base64: string;
  width: number;
  height: number;
  sha256: string;
}

/** Base64 of bytes. */
export function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** Wraps image bytes as the contract's normalized `logo`. */
export function logo_of(
  bytes: Uint8Array,
  { mime, width, height }: {
    mime: TestLogo["mime"];
    width: number;
    height: number;
  },
): TestLogo {
  return {
    mime,
    base64: base64(bytes),
    width,
    height,
    sha256: createHash("sha256").update(bytes).digest("hex"),
  };
}

/**
 * A 240×80 brand-like logo: a dark rounded badge with a coloured stripe on
 * a transparent background.
 */
export function sample_png_logo(): TestLogo {
  const width = 240;
  const height = 80;
  const bytes = png_bytes(width, height, (x, y) => {
    const inside_badge = x >= 4 && x < 76 && y >= 4 && y < 76 &&
      (Math.min(x - 4, 75 - x) + Math.min(y - 4, 75 - y) > 6);
    if (inside_badge) {
      return (x - 4 + y) % 24 < 8 ? [37, 99, 235, 255] : [26, 31, 54, 255];
    }
    if (x >= 92 && y >= 30 && y < 50 && x < 236) return [26, 31, 54, 255];
    if (x >= 92 && y >= 56 && y < 62 && x < 180) return [37, 99, 235, 255];
    return [255, 255, 255, 0];
  });
  return logo_of(bytes, { mime: "image/png", width, height });
}

/**
 * A PNG of about `target_bytes` (noise compresses badly): for the bench's
 * "40 KB logo".
 */
export function noisy_png_logo(target_bytes: number): TestLogo {
  const width = 200;
  const height = Math.max(8, Math.round(target_bytes / (width * 3)));
  let seed = 42;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return (seed >>> 16) & 0xff;
  };
  const bytes = png_bytes(
    width,
    height,
    () => [random(), random(), random(), 255],
  );
  return logo_of(bytes, { mime: "image/png", width, height });
}

/** A PNG colour type with its bit depth, as {@link png_variant} writes it. */
export interface PngVariant {
  /** 0 grey, 2 RGB, 3 palette, 4 grey + alpha, 6 RGBA. */
  type: 0 | 2 | 3 | 4 | 6;
  depth: 1 | 2 | 4 | 8 | 16;
  /** Adam7 interlacing. */
  interlaced?: boolean;
  /** PLTE entries (RGB) and their alpha (tRNS), for type 3. */
  palette?: [number, number, number, number][];
  /** A colour key (tRNS) of grey or RGB images, in sample values. */
  key?: number[];
}

const PNG_CHANNELS = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as const;

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Packs and filters (each row with the next of the five filters) one pass. */
function png_pass_bytes(
  width: number,
  height: number,
  samples: (x: number, y: number) => number[],
  variant: PngVariant,
): Uint8Array {
  const channels = PNG_CHANNELS[variant.type];
  const bits = channels * variant.depth;
  const row_bytes = Math.ceil(width * bits / 8);
  const bpp = Math.max(1, bits >> 3);
  const out = new Uint8Array(height * (row_bytes + 1));
  let previous = new Uint8Array(row_bytes);
  for (let y = 0; y < height; y++) {
    const row = new Uint8Array(row_bytes);
    for (let x = 0; x < width; x++) {
      const values = samples(x, y);
      for (let c = 0; c < channels; c++) {
        const value = values[c];
        if (variant.depth === 16) {
          row[(x * channels + c) * 2] = value >> 8;
          row[(x * channels + c) * 2 + 1] = value & 0xff;
        } else if (variant.depth === 8) {
          row[x * channels + c] = value;
        } else {
          const bit = (x * channels + c) * variant.depth;
          row[bit >> 3] |= value << (8 - variant.depth - (bit & 7));
        }
      }
    }
    const filter = y % 5;
    const line = y * (row_bytes + 1);
    out[line] = filter;
    for (let i = 0; i < row_bytes; i++) {
      const left = i >= bpp ? row[i - bpp] : 0;
      const up = previous[i];
      const corner = i >= bpp ? previous[i - bpp] : 0;
      const predicted =
        [0, left, up, (left + up) >> 1, paeth(left, up, corner)][
          filter
        ];
      out[line + 1 + i] = (row[i] - predicted) & 0xff;
    }
    previous = row;
  }
  return out;
}

const ADAM7_PASSES = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/**
 * A PNG of any colour type, bit depth and interlacing, every row with a
 * different filter: `samples(x, y)` gives a pixel's channel values in the
 * image's depth (palette indices for type 3).
 */
export function png_variant(
  width: number,
  height: number,
  samples: (x: number, y: number) => number[],
  variant: PngVariant,
): Uint8Array {
  const passes: Uint8Array[] = [];
  for (
    const [x0, y0, dx, dy] of variant.interlaced
      ? ADAM7_PASSES
      : [[0, 0, 1, 1] as const]
  ) {
    const w = Math.ceil((width - x0) / dx);
    const h = Math.ceil((height - y0) / dy);
    if (w <= 0 || h <= 0) continue;
    passes.push(
      png_pass_bytes(
        w,
        h,
        (x, y) => samples(x0 + x * dx, y0 + y * dy),
        variant,
      ),
    );
  }
  const raw = concat_bytes(passes);
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([
    variant.depth,
    variant.type,
    0,
    0,
    variant.interlaced ? 1 : 0,
  ], 8);
  const parts = [
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", header),
  ];
  if (variant.palette) {
    parts.push(
      chunk(
        "PLTE",
        new Uint8Array(variant.palette.flatMap((c) => c.slice(0, 3))),
      ),
      chunk("tRNS", new Uint8Array(variant.palette.map((c) => c[3]))),
    );
  }
  if (variant.key) {
    parts.push(
      chunk(
        "tRNS",
        new Uint8Array(variant.key.flatMap((v) => [v >> 8, v & 0xff])),
      ),
    );
  }
  parts.push(
    chunk("IDAT", new Uint8Array(deflateSync(raw))),
    chunk("IEND", new Uint8Array(0)),
  );
  return concat_bytes(parts);
}

function concat_bytes(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * A one-colour RGB PNG of `width` × `height`, unfiltered and deflated as far
 * as zlib goes: black, 4000 × 4000 pixels is about 46 KB (all zeros).
 */
export function solid_png(
  width: number,
  height: number,
  [r, g, b]: [number, number, number] = [0, 0, 0],
): Uint8Array {
  const stride = 1 + 3 * width;
  const raw = new Uint8Array(height * stride);
  if (r !== 0 || g !== 0 || b !== 0) {
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        raw.set([r, g, b], y * stride + 1 + 3 * x);
      }
    }
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 2, 0, 0, 0], 8);
  return concat_bytes([
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", header),
    chunk("IDAT", new Uint8Array(deflateSync(raw, { level: 9 }))),
    chunk("IEND", new Uint8Array(0)),
  ]);
}
