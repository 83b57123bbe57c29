/**
 * What a PDF looks like and how easily its marks come off, for tests:
 * pages rendered by poppler's `pdftoppm` (Debian `poppler-utils`), and the
 * edits someone stripping a "not valid" mark would make with qpdf
 * (`qpdf --qdf --object-streams=disable`, regular expressions over the
 * then readable content streams, `fix-qdf`; Debian `qpdf`).
 *
 * @module
 */
import { with_temp_pdf } from "./pdf_text.ts";

/** An RGB raster: `data` holds 3 bytes a pixel, rows top to bottom. */
export interface Raster {
  width: number;
  height: number;
  data: Uint8Array;
}

async function run_bytes(
  command: string,
  args: string[],
  stdin?: Uint8Array,
): Promise<Uint8Array> {
  const child = new Deno.Command(command, {
    args,
    stdin: stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin) {
    const writer = child.stdin.getWriter();
    await writer.write(stdin);
    await writer.close();
  }
  const output = await child.output();
  // qpdf exits 3 for warnings; the output is still written.
  if (output.code !== 0 && output.code !== 3) {
    throw new Error(
      `${command} failed (${output.code}): ${
        new TextDecoder().decode(output.stderr)
      }`,
    );
  }
  return output.stdout;
}

/** Renders page `page` (1-based) at `dpi` with `pdftoppm`. */
export function render_page(
  pdf: Uint8Array,
  page: number,
  dpi = 40,
): Promise<Raster> {
  return with_temp_pdf(pdf, async (path) => {
    const ppm = await run_bytes("pdftoppm", [
      "-r",
      String(dpi),
      "-f",
      String(page),
      "-l",
      String(page),
      path,
    ]);
    return parse_ppm(ppm);
  });
}

/** Parses a binary PPM (P6, maxval 255) as `pdftoppm` writes it. */
function parse_ppm(ppm: Uint8Array): Raster {
  const header = new TextDecoder().decode(ppm.subarray(0, 64));
  const match = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(header);
  if (!match) throw new Error("pdftoppm wrote no P6 image");
  const width = Number(match[1]);
  const height = Number(match[2]);
  const start = match[0].length;
  return {
    width,
    height,
    data: ppm.subarray(start, start + width * height * 3),
  };
}

/**
 * Pixels of `a` whose colour differs from `b`'s by more than `threshold` in
 * some channel (both rasters of the same page size).
 */
export function differing_pixels(a: Raster, b: Raster, threshold = 16): number {
  if (a.width !== b.width || a.height !== b.height) {
    throw new Error("rasters of different sizes");
  }
  let count = 0;
  for (let i = 0; i < a.data.length; i += 3) {
    if (
      Math.abs(a.data[i] - b.data[i]) > threshold ||
      Math.abs(a.data[i + 1] - b.data[i + 1]) > threshold ||
      Math.abs(a.data[i + 2] - b.data[i + 2]) > threshold
    ) count++;
  }
  return count;
}

/** The file in qpdf's QDF form: content streams uncompressed, readable. */
export async function to_qdf(pdf: Uint8Array): Promise<string> {
  const bytes = await with_temp_pdf(pdf, (path) =>
    run_bytes("qpdf", [
      "--qdf",
      "--object-streams=disable",
      path,
      "-",
    ]));
  // One character per byte (code points 0-255), so the edit round-trips;
  // TextDecoder's "latin1" is windows-1252 and would not.
  let text = "";
  for (let at = 0; at < bytes.length; at += 8192) {
    text += String.fromCharCode(...bytes.subarray(at, at + 8192));
  }
  return text;
}

/** A QDF file back to a PDF with its stream lengths fixed (`fix-qdf`). */
export function from_qdf(qdf: string): Promise<Uint8Array> {
  const bytes = Uint8Array.from(qdf, (char) => char.charCodeAt(0));
  return run_bytes("fix-qdf", [], bytes);
}

/** The page content streams of a QDF file (qpdf labels them per page). */
export function content_streams(qdf: string): string[] {
  return [
    ...qdf.matchAll(
      /%% Contents for page \d+\n(?:%%[^\n]*\n)*\d+ 0 obj\n[\s\S]*?\nstream\n([\s\S]*?)\nendstream/g,
    ),
  ].map((match) => match[1]);
}

/** Replaces each page content stream of a QDF file by `edit(stream)`. */
export function edit_content_streams(
  qdf: string,
  edit: (stream: string) => string,
): string {
  return qdf.replace(
    /(%% Contents for page \d+\n(?:%%[^\n]*\n)*\d+ 0 obj\n[\s\S]*?\nstream\n)([\s\S]*?)(\nendstream)/g,
    (_, head: string, stream: string, tail: string) =>
      head + edit(stream) + tail,
  );
}

const COLOR_OPERATOR = /(-?[\d.]+) (-?[\d.]+) (-?[\d.]+) (rg|RG)\b/g;

/** The DeviceRGB colours (`r g b`) set in the content streams. */
export function colors_of(qdf: string): Set<string> {
  const colors = new Set<string>();
  for (const stream of content_streams(qdf)) {
    for (const match of stream.matchAll(COLOR_OPERATOR)) {
      colors.add(`${match[1]} ${match[2]} ${match[3]}`);
    }
  }
  return colors;
}

/**
 * Text objects (`BT … ET`) of a content stream, in order, with the
 * graphics state block around them when they have one of their own
 * (`q … BT … ET Q`, as shaped lines are written).
 */
export function text_objects(stream: string): string[] {
  return stream.match(/(?:\bq [^\nq]*?)?\bBT\b[\s\S]*?\bET\b(?: Q\b)?/g) ??
    [];
}

/** A regular expression matching colour `color` ("r g b") set by `rg`/`RG`. */
export function color_pattern(color: string): RegExp {
  return new RegExp(`\\b${color.replaceAll(".", "\\.")} (rg|RG)\\b`, "g");
}
