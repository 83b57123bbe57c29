/**
 * Logo images from requests: `data:` URLs of PNG or JPEG files, checked to
 * be decodable and within size limits before anything is rendered, so a bad
 * image is a 400 naming `logo`, never a failed render.
 */
import { createHash } from "node:crypto";
import { inflateSync } from "node:zlib";

/** Limits on a logo. */
export const LOGO_LIMITS = {
  /** Decoded file size. */
  max_bytes: 256 * 1024,
  /** Width and height, each. */
  max_side: 4000,
  /**
   * Width × height, read from the header before any pixel is decoded: what
   * a logo costs to draw grows with its pixels, not its file size (a 46 KB
   * PNG can hold 16 megapixels).
   */
  max_pixels: 4_000_000,
} as const;

/** A validated logo: the file as base64 with its type, size and hash. */
export interface ValidatedLogo {
  mime: "image/png" | "image/jpeg";
  base64: string;
  width: number;
  height: number;
  /** SHA-256 of the file bytes (hex), the renderer's cache key. */
  sha256: string;
}

/** Thrown with a message that says what is wrong with the image. */
export class ImageError extends Error {
  /** The error code of the answer: `logo_too_large` for too many pixels. */
  readonly code: "invalid_request" | "logo_too_large";

  /** An image problem; `code` defaults to `invalid_request`. */
  constructor(
    message: string,
    code: "invalid_request" | "logo_too_large" = "invalid_request",
  ) {
    super(message);
    this.code = code;
  }
}

const DATA_URL =
  /^data:(image\/(?:png|jpeg|jpg));base64,([A-Za-z0-9+/\s]*={0,2})$/;

function decode_base64(text: string): Uint8Array {
  const binary = atob(text.replace(/\s+/g, ""));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) {
    bytes[index] = binary.charCodeAt(index);
  }
  return bytes;
}

function uint32(bytes: Uint8Array, offset: number): number {
  return ((bytes[offset] << 24) >>> 0) + (bytes[offset + 1] << 16) +
    (bytes[offset + 2] << 8) + bytes[offset + 3];
}

const PNG_SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];
/** Valid bit depths per PNG colour type. */
const PNG_DEPTHS: Record<number, number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};
const PNG_CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/** Checks a PNG down to its pixel data; returns its size. */
function check_png(bytes: Uint8Array): { width: number; height: number } {
  if (!PNG_SIGNATURE.every((value, index) => bytes[index] === value)) {
    throw new ImageError("is not a PNG file (bad signature)");
  }
  let offset = 8;
  let header: {
    width: number;
    height: number;
    depth: number;
    type: number;
    interlace: number;
  } | undefined;
  const data: Uint8Array[] = [];
  let ended = false;
  let has_palette = false;
  while (offset + 8 <= bytes.length) {
    const length = uint32(bytes, offset);
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
    const body_start = offset + 8;
    const body_end = body_start + length;
    if (body_end + 4 > bytes.length) {
      throw new ImageError(`is a truncated PNG (chunk ${type} is cut off)`);
    }
    const body = bytes.subarray(body_start, body_end);
    if (type === "IHDR") {
      if (length !== 13) throw new ImageError("has a malformed PNG header");
      header = {
        width: uint32(body, 0),
        height: uint32(body, 4),
        depth: body[8],
        type: body[9],
        interlace: body[12],
      };
    } else if (type === "PLTE") {
      has_palette = true;
    } else if (type === "IDAT") {
      data.push(body);
    } else if (type === "IEND") {
      ended = true;
      break;
    }
    offset = body_end + 4; // skip the CRC
  }
  if (!header) throw new ImageError("is a PNG without a header (IHDR)");
  const { width, height, depth, type, interlace } = header;
  if (!PNG_DEPTHS[type]?.includes(depth) || interlace > 1) {
    throw new ImageError("is a PNG with an invalid colour type or bit depth");
  }
  if (type === 3 && !has_palette) {
    throw new ImageError("is a palette PNG without a palette (PLTE)");
  }
  check_size(width, height);
  if (data.length === 0 || !ended) {
    throw new ImageError("is a truncated PNG (no image data or no end)");
  }
  let pixels: Uint8Array;
  try {
    pixels = inflateSync(concat(data));
  } catch {
    throw new ImageError("is a PNG whose image data cannot be decompressed");
  }
  // Non-interlaced rows: one filter byte plus the packed samples.
  if (interlace === 0) {
    const row = 1 + Math.ceil(width * PNG_CHANNELS[type] * depth / 8);
    if (pixels.length < row * height) {
      throw new ImageError("is a PNG with less image data than its size");
    }
  }
  return { width, height };
}

function concat(parts: Uint8Array[]): Uint8Array {
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  const joined = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

/** Start-of-frame markers (baseline, extended, progressive, lossless). */
const JPEG_SOF = new Set([
  0xc0,
  0xc1,
  0xc2,
  0xc3,
  0xc5,
  0xc6,
  0xc7,
  0xc9,
  0xca,
  0xcb,
  0xcd,
  0xce,
  0xcf,
]);

/** Checks a JPEG's structure up to its frame header; returns its size. */
function check_jpeg(bytes: Uint8Array): { width: number; height: number } {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) {
    throw new ImageError("is not a JPEG file (no start marker)");
  }
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) {
      throw new ImageError("is a malformed JPEG (bad marker)");
    }
    const marker = bytes[offset + 1];
    if (marker === 0xff) {
      offset += 1; // fill byte
      continue;
    }
    const length = (bytes[offset + 2] << 8) + bytes[offset + 3];
    if (length < 2 || offset + 2 + length > bytes.length) {
      throw new ImageError("is a truncated JPEG");
    }
    if (JPEG_SOF.has(marker)) {
      if (length < 8) throw new ImageError("has a malformed JPEG frame header");
      const height = (bytes[offset + 5] << 8) + bytes[offset + 6];
      const width = (bytes[offset + 7] << 8) + bytes[offset + 8];
      const components = bytes[offset + 9];
      if (![1, 3, 4].includes(components)) {
        throw new ImageError("is a JPEG with an unsupported colour layout");
      }
      check_size(width, height);
      if (
        bytes[bytes.length - 2] !== 0xff || bytes[bytes.length - 1] !== 0xd9
      ) {
        throw new ImageError("is a truncated JPEG (no end marker)");
      }
      return { width, height };
    }
    if (marker === 0xda) break; // scan data before any frame header
    offset += 2 + length;
  }
  throw new ImageError("is a JPEG without a frame header");
}

function check_size(width: number, height: number): void {
  if (width < 1 || height < 1) {
    throw new ImageError("has no pixels (width or height is 0)");
  }
  if (width > LOGO_LIMITS.max_side || height > LOGO_LIMITS.max_side) {
    throw new ImageError(
      `is ${width} × ${height} px; at most ${LOGO_LIMITS.max_side} px a side`,
    );
  }
  if (width * height > LOGO_LIMITS.max_pixels) {
    throw new ImageError(
      `is ${width} × ${height} px (${
        (width * height / 1e6).toFixed(1)
      } megapixels); at most ${LOGO_LIMITS.max_pixels / 1e6} megapixels`,
      "logo_too_large",
    );
  }
}

/**
 * Validates a logo `data:` URL (PNG or JPEG, base64). Throws an
 * {@link ImageError} saying what is wrong.
 */
export function validate_logo(data_url: string): ValidatedLogo {
  const match = DATA_URL.exec(data_url);
  if (!match) {
    throw new ImageError(
      'must be a data: URL of a PNG or JPEG, e.g. "data:image/png;base64,iVBOR…" (URLs are never fetched)',
    );
  }
  let bytes: Uint8Array;
  try {
    bytes = decode_base64(match[2]);
  } catch {
    throw new ImageError("has invalid base64 data");
  }
  if (bytes.length > LOGO_LIMITS.max_bytes) {
    throw new ImageError(
      `is ${Math.ceil(bytes.length / 1024)} KB; at most ${
        LOGO_LIMITS.max_bytes / 1024
      } KB decoded`,
    );
  }
  const is_png = bytes[0] === 0x89;
  if (!is_png && bytes[0] !== 0xff) {
    throw new ImageError("is not a PNG or JPEG file");
  }
  const { width, height } = is_png ? check_png(bytes) : check_jpeg(bytes);
  return {
    mime: is_png ? "image/png" : "image/jpeg",
    base64: match[2].replace(/\s+/g, ""),
    width,
    height,
    sha256: createHash("sha256").update(bytes).digest("hex"),
  };
}
