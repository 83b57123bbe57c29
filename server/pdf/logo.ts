/**
 * The sender's logo: decoded once per process (render worker) and kept by
 * content hash, so a customer's logo costs its decoding once, not per
 * invoice.
 *
 * jsPDF turns a PNG into PDF image data (inflate, un-filter, split colour
 * and alpha, deflate again) in `processPNG`; a JPEG is embedded as is
 * (DCTDecode). The result is plain data, so it is cached here (LRU, bounded
 * by bytes) and handed to later documents through a per-document
 * `processPNG`/`processJPEG` that returns the cached result, leaving the
 * rest of jsPDF's image path (object numbering, XObject dictionary, soft
 * mask, palette) unchanged. A PNG with far more pixels than it prints at is
 * scaled down first (`logo_scaling.ts`), and the cache keeps the result.
 *
 * @module
 */

import type { jsPDF } from "jspdf";
import type { InvoiceLogo } from "../../contract/invoice_types.ts";
import { type JsPdfImage, with_image_processor } from "./jspdf_fence.ts";
import {
  downscale_png,
  needs_downscaling,
  print_pixels,
} from "./logo_scaling.ts";

/** Upper bound of the cache, in bytes of processed image data. */
export const LOGO_CACHE_BYTES = 8 * 1024 * 1024;

const cache = new Map<string, { image: JsPdfImage; bytes: number }>();
let cached_bytes = 0;

/** Number and total bytes of cached logos, for tests and metrics. */
export function logo_cache_stats(): { entries: number; bytes: number } {
  return { entries: cache.size, bytes: cached_bytes };
}

/** Empties the logo cache (tests). */
export function clear_logo_cache(): void {
  cache.clear();
  cached_bytes = 0;
}

function remember(key: string, image: JsPdfImage): void {
  const bytes = image.data.length + (image.sMask?.length ?? 0);
  if (bytes > LOGO_CACHE_BYTES) return;
  cache.set(key, { image, bytes });
  cached_bytes += bytes;
  for (const [old, entry] of cache) {
    if (cached_bytes <= LOGO_CACHE_BYTES) break;
    cache.delete(old);
    cached_bytes -= entry.bytes;
  }
}

function recall(key: string): JsPdfImage | undefined {
  const entry = cache.get(key);
  if (entry === undefined) return undefined;
  // Most recently used last.
  cache.delete(key);
  cache.set(key, entry);
  return entry.image;
}

function decode_base64(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Draws `logo` into the box (`x`, `y`, `width`, `height`; jsPDF
 * coordinates, y down) on the current page, as large as fits with its
 * aspect ratio kept, top-left aligned (`align: "right"` aligns it to the
 * right edge). Returns the drawn size.
 */
export function draw_logo(
  doc: jsPDF,
  logo: InvoiceLogo,
  box: {
    x: number;
    y: number;
    width: number;
    height: number;
    align?: "left" | "right";
  },
): { width: number; height: number } {
  const format = logo.mime === "image/png" ? "PNG" : "JPEG";
  const scale = Math.min(box.width / logo.width, box.height / logo.height);
  const width = logo.width * scale;
  const height = logo.height * scale;
  const x = box.align === "right" ? box.x + box.width - width : box.x;
  const target = print_pixels(width, height);
  const downscaled = format === "PNG" && needs_downscaling(logo, target);
  const key = downscaled
    ? `${format}:${logo.sha256}:${target.width}x${target.height}`
    : `${format}:${logo.sha256}`;
  // A cached logo needs no decoding; jsPDF only looks at the first bytes.
  let bytes: Uint8Array;
  if (cache.has(key)) {
    bytes = format === "PNG" ? PNG_SIGNATURE : JPEG_SIGNATURE;
  } else {
    bytes = decode_base64(logo.base64);
    if (downscaled) bytes = downscale_png(bytes, target).bytes;
  }
  with_image_processor(
    doc,
    format,
    (original) => (data, index, alias, compression) => {
      const hit = recall(key);
      if (hit !== undefined) return { ...hit, index, alias };
      const image = original(data, index, alias, compression);
      if (image !== undefined) remember(key, image);
      return image;
    },
    () => doc.addImage(bytes, format, x, box.y, width, height, key),
  );
  return { width, height };
}

const PNG_SIGNATURE = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]);
const JPEG_SIGNATURE = new Uint8Array([0xff, 0xd8, 0xff, 0xe0]);
