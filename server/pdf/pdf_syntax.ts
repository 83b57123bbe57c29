/**
 * Small pieces of PDF syntax the renderer writes itself: numbers, colour
 * operators and the "binary strings" (one character per byte) jsPDF
 * assembles files from.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { deflateSync } from "node:zlib";

/** An RGB colour, 0–255 per channel. */
export type Rgb = readonly [number, number, number];

const SCALES = { 2: 100, 3: 1000, 6: 1e6 } as const;

/**
 * A PDF number with at most `decimals` decimals, no exponent, no "-0".
 * Items-table rows are written with two, page marks and glyph runs with
 * three, everything else with six.
 */
export function pdf_number(value: number, decimals: 2 | 3 | 6): string {
  const scale = SCALES[decimals];
  const rounded = Math.round(value * scale) / scale;
  return rounded === 0 ? "0" : String(rounded);
}

/** The colour as DeviceRGB operands with three decimals, as jsPDF writes them. */
export function rgb_operands(color: readonly number[]): string {
  return color.map((part) => pdf_number(part / 255, 3)).join(" ");
}

// Weak: the palette stays cached, a brand colour goes with its invoice.
const fills = new WeakMap<Rgb, string>();
const strokes = new WeakMap<Rgb, string>();

/** Fill colour operator (`r g b rg`). */
export function fill_operator(color: Rgb): string {
  let op = fills.get(color);
  if (op === undefined) {
    op = `${rgb_operands(color)} rg`;
    fills.set(color, op);
  }
  return op;
}

/** Stroke colour operator (`r g b RG`). */
export function stroke_operator(color: Rgb): string {
  let op = strokes.get(color);
  if (op === undefined) {
    op = `${rgb_operands(color)} RG`;
    strokes.set(color, op);
  }
  return op;
}

const text_fills = new WeakMap<Rgb, string>();

/**
 * Fill colour operator of text drawn outside tables. It carries jsPDF's
 * text colour quantization, which that text was always written with: a
 * channel is kept as three decimals and read back floored to 0–255, so it
 * can come out one lower (134 → 133).
 */
export function text_fill_operator(color: Rgb): string {
  let op = text_fills.get(color);
  if (op === undefined) {
    const quantize = (part: number): number =>
      Math.floor(Number((part / 255).toFixed(3)) * 255);
    op = `${rgb_operands(color.map(quantize))} rg`;
    text_fills.set(color, op);
  }
  return op;
}

const ascii_encoder = new TextEncoder();

/**
 * Below this length a plain loop beats the native paths, whose calls cost
 * about a microsecond each.
 */
const NATIVE_CONVERSION_LENGTH = 64;

/**
 * Bytes from a binary string (one character per byte; a character above
 * 0xFF keeps its low byte).
 *
 * A JavaScript loop over `charCodeAt` costs about 10 ns a character, the
 * largest single cost of a Factur-X or CJK invoice's output. ASCII text
 * (page content) is the same bytes in UTF-8, so `encodeInto` writes it
 * natively: it consumes the whole string only when every character takes
 * one byte. Other binary strings (deflated streams, whole files) go through
 * `btoa`, which reads one byte per character natively, and back from
 * base64: 10× the loop's speed.
 */
export function binary_string_to_bytes(
  data: string,
  { binary = false }: {
    /**
     * Known to hold bytes above 0x7F (a whole PDF file: its header's
     * comment line has them), so the ASCII attempt is skipped: `encodeInto`
     * writes two bytes per such character and only stops when its buffer is
     * full, near the end of the string.
     */
    binary?: boolean;
  } = {},
): Uint8Array {
  const bytes = new Uint8Array(data.length);
  if (data.length >= NATIVE_CONVERSION_LENGTH) {
    if (
      !binary && ascii_encoder.encodeInto(data, bytes).read === data.length
    ) {
      return bytes;
    }
    try {
      return Uint8Array.fromBase64(btoa(data));
    } catch {
      // A character above 0xFF, which `btoa` refuses: the loop below.
    }
  }
  for (let i = 0; i < data.length; i++) bytes[i] = data.charCodeAt(i);
  return bytes;
}

/** A binary string (one character per byte), as jsPDF assembles files. */
export function bytes_to_binary_string(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString("latin1");
}

/**
 * zlib level of the streams deflated for each document (page content,
 * ToUnicode maps, embedded files). Level 2 deflates a 10-item Factur-X
 * invoice's page content in about a third of the default level's time for
 * about 15 % more bytes of that stream (see tests/bench/README.md).
 */
export const STREAM_DEFLATE_LEVEL = 2;

/** `bytes` deflated in the zlib format of PDF's `/FlateDecode`. */
export function deflate_stream(bytes: Uint8Array): Uint8Array {
  return deflateSync(bytes, { level: STREAM_DEFLATE_LEVEL });
}
