/**
 * Logos scaled to their print size: the decoder reads every PNG colour
 * type, bit depth, palette, transparency chunk and Adam7 interlacing the
 * contract accepts (each gives the same pixels as the plain RGBA file of
 * the same picture), and averages the pixels down.
 */
import { inflateSync } from "node:zlib";
import { assert, assertEquals } from "../assert.ts";
import {
  base64,
  png_bytes,
  png_variant,
  type PngVariant,
} from "../helpers/images.ts";
import {
  downscale_png,
  needs_downscaling,
  print_pixels,
} from "../../server/pdf/logo_scaling.ts";
import { validate_logo } from "../../contract/images.ts";

const WIDTH = 64;
const HEIGHT = 48;
// A quarter size: every target pixel averages 4 × 4 source pixels, and
// all of them are read (no sampling below a factor of 8).
const TARGET = { width: 16, height: 12 };

/** Which of four colours a pixel is: stripes, checks and a diagonal. */
function shade(x: number, y: number): number {
  if (x + y < 20) return 3;
  return ((x >> 3) + (y >> 2)) % 3;
}

const PALETTE: [number, number, number, number][] = [
  [255, 255, 255, 255],
  [0, 0, 0, 255],
  [37, 99, 235, 255],
  [200, 30, 30, 0],
];

/** `bytes` scaled to TARGET, as RGBA pixels. */
function decoded(bytes: Uint8Array): Uint8Array {
  const out = downscale_png(bytes, TARGET);
  assertEquals([out.width, out.height], [TARGET.width, TARGET.height]);
  return unfiltered_pixels(out.bytes, out);
}

/** Raw pixels of an 8-bit RGB/RGBA PNG with unfiltered rows, as RGBA. */
function unfiltered_pixels(
  bytes: Uint8Array,
  { width, height }: { width: number; height: number },
): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  let at = 8;
  let channels = 0;
  const data: number[] = [];
  while (at < bytes.length) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (type === "IHDR") channels = body[9] === 6 ? 4 : 3;
    if (type === "IDAT") data.push(...body);
    at += 12 + length;
  }
  const raw = new Uint8Array(inflateSync(new Uint8Array(data)));
  const out = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    assertEquals(raw[y * (1 + width * channels)], 0);
    for (let x = 0; x < width; x++) {
      const i = y * (1 + width * channels) + 1 + x * channels;
      out.set(
        [raw[i], raw[i + 1], raw[i + 2], channels === 4 ? raw[i + 3] : 255],
        (y * width + x) * 4,
      );
    }
  }
  return out;
}

Deno.test("logo scaling: every PNG colour type, depth and interlacing gives the same pixels", () => {
  const rgba = (x: number, y: number) => PALETTE[shade(x, y)];
  const reference = decoded(png_bytes(WIDTH, HEIGHT, rgba));
  // The reference itself: each target pixel is the alpha-weighted mean of
  // its 4 × 4 source pixels.
  for (let ty = 0; ty < TARGET.height; ty++) {
    for (let tx = 0; tx < TARGET.width; tx++) {
      let r = 0, a = 0;
      for (let y = ty * 4; y < ty * 4 + 4; y++) {
        for (let x = tx * 4; x < tx * 4 + 4; x++) {
          const [pr, , , pa] = rgba(x, y);
          r += pr * pa;
          a += pa;
        }
      }
      const o = (ty * TARGET.width + tx) * 4;
      assertEquals(reference[o + 3], Math.round(a / 16), `alpha ${tx},${ty}`);
      if (a > 0) {
        assertEquals(reference[o], Math.round(r / a), `red ${tx},${ty}`);
      }
    }
  }
  // Four colours: at least 2 bits an index (1-bit unpacking: grey below).
  const palette_variants: PngVariant[] = [2, 4, 8].flatMap((depth) =>
    [false, true].map((interlaced) => ({
      type: 3 as const,
      depth: depth as PngVariant["depth"],
      interlaced,
      palette: PALETTE,
    }))
  );
  for (const variant of palette_variants) {
    const bytes = png_variant(WIDTH, HEIGHT, (x, y) => [shade(x, y)], variant);
    assertEquals(decoded(bytes), reference, JSON.stringify(variant));
  }
  // RGBA at 8 and 16 bits, RGB with a colour key for the transparent one.
  const to16 = (v: number) => v * 257;
  for (const interlaced of [false, true]) {
    for (const depth of [8, 16] as const) {
      const scale = depth === 16 ? to16 : (v: number) => v;
      const rgba_bytes = png_variant(
        WIDTH,
        HEIGHT,
        (x, y) => PALETTE[shade(x, y)].map(scale),
        { type: 6, depth, interlaced },
      );
      assertEquals(decoded(rgba_bytes), reference, `RGBA ${depth}`);
      const keyed = png_variant(
        WIDTH,
        HEIGHT,
        (x, y) => PALETTE[shade(x, y)].slice(0, 3).map(scale),
        { type: 2, depth, interlaced, key: PALETTE[3].slice(0, 3).map(scale) },
      );
      assertEquals(decoded(keyed), reference, `RGB + key ${depth}`);
    }
  }
});

Deno.test("logo scaling: grey images at every depth, with alpha or a grey key", () => {
  // Black and white stripes, the white ones transparent.
  const white = (x: number, y: number) => ((x >> 2) + y) % 2 === 0;
  const reference = decoded(
    png_bytes(
      WIDTH,
      HEIGHT,
      (x, y) => white(x, y) ? [255, 255, 255, 0] : [0, 0, 0, 255],
    ),
  );
  for (const depth of [1, 2, 4, 8, 16] as const) {
    const max = (1 << depth) - 1;
    for (const interlaced of [false, true]) {
      const keyed = png_variant(
        WIDTH,
        HEIGHT,
        (x, y) => [white(x, y) ? max : 0],
        { type: 0, depth, interlaced, key: [max] },
      );
      assertEquals(decoded(keyed), reference, `grey ${depth}`);
      if (depth >= 8) {
        const alpha = png_variant(
          WIDTH,
          HEIGHT,
          (x, y) => white(x, y) ? [max, 0] : [0, max],
          { type: 4, depth, interlaced },
        );
        assertEquals(decoded(alpha), reference, `grey + alpha ${depth}`);
      }
    }
  }
});

Deno.test("logo scaling: a logo is scaled only when it has more than twice its print size", () => {
  // The 160 × 52 pt logo box at 300 dpi.
  const box = print_pixels(160, 52);
  assertEquals(box, { width: 667, height: 217 });
  assert(!needs_downscaling({ width: 240, height: 80 }, box));
  assert(!needs_downscaling({ width: 1334, height: 434 }, box));
  assert(
    needs_downscaling({ width: 2000, height: 2000 }, {
      width: 217,
      height: 217,
    }),
  );
  // A large opaque logo comes back small and RGB, a valid PNG for the
  // contract's own checks.
  const big = png_bytes(1200, 900, (x, y) => [x & 255, y & 255, 128, 255]);
  const small = downscale_png(big, { width: 200, height: 200 });
  assertEquals([small.width, small.height], [200, 150]);
  const checked = validate_logo(`data:image/png;base64,${base64(small.bytes)}`);
  assertEquals([checked.width, checked.height], [200, 150]);
});
