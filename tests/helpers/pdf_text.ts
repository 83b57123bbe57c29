/**
 * Reads PDFs the way a person's tools would, for tests: text through
 * poppler's `pdftotext`, document information through `pdfinfo`, structure
 * through `qpdf --check`. Needs the Debian packages `poppler-utils` and
 * `qpdf`, and `--allow-run --allow-write --allow-read` for the temp file.
 *
 * @module
 */

/** How `pdftotext` lays out the text. */
export type TextMode = "raw" | "layout" | "reading";

/** Options of {@link pdf_text}. */
export interface PdfTextOptions {
  /**
   * "raw" (default): content-stream order, one table row per line.
   * "layout": physical layout, columns padded with spaces.
   * "reading": pdftotext's default reading order (bidi-aware: right-to-left
   * text comes out in logical order).
   */
  mode?: TextMode;
  /** Only this page (1-based). */
  page?: number;
}

/** Writes `bytes` to a temporary `.pdf` file for `use`, then removes it. */
export async function with_temp_pdf<T>(
  bytes: Uint8Array,
  use: (path: string) => Promise<T>,
): Promise<T> {
  const path = await Deno.makeTempFile({
    prefix: "invoice-test-",
    suffix: ".pdf",
  });
  try {
    await Deno.writeFile(path, bytes);
    return await use(path);
  } finally {
    await Deno.remove(path).catch(() => {});
  }
}

/** Result of running a command to completion. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(command: string, args: string[]): Promise<RunResult> {
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command(command, {
      args,
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Error(
        `${command} is not installed: apt-get install poppler-utils qpdf (.ci/run does this)`,
      );
    }
    throw error;
  }
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

async function run_ok(command: string, args: string[]): Promise<string> {
  const result = await run(command, args);
  if (result.code !== 0) {
    throw new Error(`${command} failed (${result.code}): ${result.stderr}`);
  }
  return result.stdout;
}

/** The first file attached to a PDF, as text (`pdfdetach -save 1`). */
export function pdf_attachment_text(bytes: Uint8Array): Promise<string> {
  return with_temp_pdf(bytes, async (path) => {
    const out = `${path}.attachment`;
    try {
      await run_ok("pdfdetach", ["-save", "1", "-o", out, path]);
      return await Deno.readTextFile(out);
    } finally {
      await Deno.remove(out).catch(() => {});
    }
  });
}

/** Extracts the text of a PDF with `pdftotext` (UTF-8); pages end with "\f". */
export function pdf_text(
  bytes: Uint8Array,
  options: PdfTextOptions = {},
): Promise<string> {
  return with_temp_pdf(bytes, (path) => {
    const args = [
      "-enc",
      "UTF-8",
    ];
    if (options.mode === "layout") args.push("-layout");
    else if (options.mode !== "reading") args.push("-raw");
    if (options.page !== undefined) {
      args.push("-f", String(options.page), "-l", String(options.page));
    }
    return run_ok("pdftotext", [...args, path, "-"]);
  });
}

/** Text of each page, in order (raw mode). */
export async function pdf_page_texts(bytes: Uint8Array): Promise<string[]> {
  const text = await pdf_text(bytes);
  const pages = text.split("\f");
  // pdftotext ends the last page with "\f" too.
  if (pages.length > 0 && pages[pages.length - 1].trim() === "") pages.pop();
  return pages;
}

/** The fields `pdfinfo` prints ("Title", "Author", "Pages", …), UTF-8. */
export function pdf_info(bytes: Uint8Array): Promise<Record<string, string>> {
  return with_temp_pdf(bytes, async (path) => {
    const out = await run_ok("pdfinfo", ["-enc", "UTF-8", path]);
    const info: Record<string, string> = {};
    for (const line of out.split("\n")) {
      const match = /^([^:]+):\s*(.*)$/.exec(line);
      if (match) info[match[1].trim()] = match[2];
    }
    return info;
  });
}

/** The images of a PDF (`pdfimages -list`): page, type, width, height. */
export function pdf_images(
  bytes: Uint8Array,
): Promise<{ page: number; type: string; width: number; height: number }[]> {
  return with_temp_pdf(bytes, async (path) => {
    const out = await run_ok("pdfimages", ["-list", path]);
    return out.split("\n").slice(2).filter((line) => line.trim() !== "").map(
      (line) => {
        const columns = line.trim().split(/\s+/);
        return {
          page: Number(columns[0]),
          type: columns[2],
          width: Number(columns[3]),
          height: Number(columns[4]),
        };
      },
    );
  });
}

/** Number of pages according to `pdfinfo`. */
export async function pdf_page_count(bytes: Uint8Array): Promise<number> {
  const pages = Number((await pdf_info(bytes))["Pages"]);
  if (!Number.isInteger(pages)) {
    throw new Error("pdfinfo printed no page count");
  }
  return pages;
}

/** One word with its box (points, origin top-left), from `pdftotext -bbox`. */
export interface PdfWord {
  page: number;
  x_min: number;
  y_min: number;
  x_max: number;
  y_max: number;
  text: string;
}

/** Page size and words with their bounding boxes. */
export function pdf_words(
  bytes: Uint8Array,
): Promise<{ pages: { width: number; height: number }[]; words: PdfWord[] }> {
  return with_temp_pdf(bytes, async (path) => {
    const html = await run_ok("pdftotext", [
      "-enc",
      "UTF-8",
      "-bbox",
      path,
      "-",
    ]);
    const pages: { width: number; height: number }[] = [];
    const words: PdfWord[] = [];
    const tag =
      /<page width="([\d.]+)" height="([\d.]+)">|<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">([^<]*)<\/word>/g;
    for (const m of html.matchAll(tag)) {
      if (m[1] !== undefined) {
        pages.push({ width: Number(m[1]), height: Number(m[2]) });
      } else {
        words.push({
          page: pages.length,
          x_min: Number(m[3]),
          y_min: Number(m[4]),
          x_max: Number(m[5]),
          y_max: Number(m[6]),
          text: m[7],
        });
      }
    }
    return { pages, words };
  });
}

/** Runs `qpdf --check`; `ok` is true only for a clean structure (exit 0). */
export function qpdf_check(
  bytes: Uint8Array,
): Promise<RunResult & { ok: boolean }> {
  return with_temp_pdf(bytes, async (path) => {
    const result = await run("qpdf", ["--check", path]);
    return { ...result, ok: result.code === 0 };
  });
}

/** Names of the fonts a PDF uses (pdffonts' first column). */
export function pdf_fonts_of(bytes: Uint8Array): Promise<string[]> {
  return with_temp_pdf(bytes, async (path) => {
    const out = await run_ok("pdffonts", [path]);
    return out.split("\n").slice(2).map((l) => l.split(/\s+/)[0])
      .filter((name) => name !== "");
  });
}
