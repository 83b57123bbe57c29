/**
 * The pdfkit row of the peers benchmark: the invoice's text lines
 * (`invoice_text_lines.ts`) drawn by pdfkit with the renderer's own fonts,
 * Noto Sans Regular and Bold (the committed subsets under
 * `server/pdf/fonts/`), embedded and subset by pdfkit (fontkit) per
 * document, pdfkit's other settings at their defaults (content streams
 * compressed).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import PDFDocument from "pdfkit";
import type { Invoice } from "../../contract/invoice_types.ts";
import { A4, invoice_text_lines } from "./invoice_text_lines.ts";

/** The parts of pdfkit's document this module uses (pdfkit ships no types). */
interface PdfKitDocument {
  registerFont(name: string, source: Buffer): PdfKitDocument;
  font(name: string): PdfKitDocument;
  fontSize(size: number): PdfKitDocument;
  text(
    text: string,
    x: number,
    y: number,
    options: { lineBreak: boolean; baseline: string },
  ): PdfKitDocument;
  on(event: "data", listener: (chunk: Uint8Array) => void): PdfKitDocument;
  on(event: "end", listener: () => void): PdfKitDocument;
  on(event: "error", listener: (error: Error) => void): PdfKitDocument;
  end(): void;
}

type PdfKitConstructor = new (options: {
  size: string;
  font: null;
  info: Record<string, string>;
}) => PdfKitDocument;

/** The renderer's Latin fonts, read once. */
export interface NotoSans {
  regular: Buffer;
  bold: Buffer;
}

function font_file(name: string): Buffer {
  const url = new URL(`../../server/pdf/fonts/${name}`, import.meta.url);
  return Buffer.from(Deno.readFileSync(url));
}

/** Reads Noto Sans Regular and Bold as the renderer has them. */
export function load_noto_sans(): NotoSans {
  return {
    regular: font_file("NotoSans-Regular.subset.ttf"),
    bold: font_file("NotoSans-Bold.subset.ttf"),
  };
}

/** The PDF pdfkit writes for `invoice`. */
export function pdfkit_pdf(
  invoice: Invoice,
  fonts: NotoSans,
): Promise<Uint8Array> {
  // No default font: pdfkit would otherwise parse Helvetica's metrics.
  const doc = new (PDFDocument as unknown as PdfKitConstructor)({
    size: "A4",
    font: null,
    info: { Title: `Invoice ${invoice.invoice_number}` },
  });
  const chunks: Uint8Array[] = [];
  const done = new Promise<Uint8Array>((resolve, reject) => {
    doc.on("data", (chunk) => chunks.push(chunk));
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
  });
  doc.registerFont("regular", fonts.regular);
  doc.registerFont("bold", fonts.bold);
  for (const line of invoice_text_lines(invoice)) {
    doc.font(line.bold ? "bold" : "regular").fontSize(line.size);
    for (const cell of line.cells) {
      // pdfkit measures from the top edge; the lines are placed from the bottom.
      doc.text(cell.text, cell.x, A4.height - line.y, {
        lineBreak: false,
        baseline: "alphabetic",
      });
    }
  }
  doc.end();
  return done;
}
