/**
 * The floor of the peers benchmark: the least a PDF of the invoice can cost.
 * A PDF 1.4 file written as one string: one A4 page, the standard fonts
 * Helvetica and Helvetica-Bold (not embedded, WinAnsi encoding), the
 * invoice's text lines (`invoice_text_lines.ts`) drawn with `Tf`/`Td`/`Tj`
 * in an uncompressed content stream, and a cross-reference table with the
 * objects' byte offsets. Characters that WinAnsi lacks are written as `?`.
 *
 * @module
 */
import type { Invoice } from "../../contract/invoice_types.ts";
import { A4, invoice_text_lines } from "./invoice_text_lines.ts";

/** WinAnsi's codes 0x80–0x9F, which differ from Latin-1. */
const WIN_ANSI_EXTRA = new Map<string, number>([
  ["€", 0x80],
  ["‚", 0x82],
  ["ƒ", 0x83],
  ["„", 0x84],
  ["…", 0x85],
  ["†", 0x86],
  ["‡", 0x87],
  ["ˆ", 0x88],
  ["‰", 0x89],
  ["Š", 0x8a],
  ["‹", 0x8b],
  ["Œ", 0x8c],
  ["Ž", 0x8e],
  ["‘", 0x91],
  ["’", 0x92],
  ["“", 0x93],
  ["”", 0x94],
  ["•", 0x95],
  ["–", 0x96],
  ["—", 0x97],
  ["˜", 0x98],
  ["™", 0x99],
  ["š", 0x9a],
  ["›", 0x9b],
  ["œ", 0x9c],
  ["ž", 0x9e],
  ["Ÿ", 0x9f],
]);

/**
 * `text` as a PDF literal string in WinAnsi: one character per byte (code
 * 0–255), `(`, `)` and `\` escaped, characters outside WinAnsi as `?`.
 */
function win_ansi_literal(text: string): string {
  let out = "(";
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === "(" || char === ")" || char === "\\") out += "\\" + char;
    else if (
      (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff)
    ) out += char;
    else {
      const extra = WIN_ANSI_EXTRA.get(char);
      out += extra === undefined ? "?" : String.fromCharCode(extra);
    }
  }
  return out + ")";
}

/** The page's content stream: every text line, one `BT … ET` block. */
function content_stream(invoice: Invoice): string {
  let out = "BT\n";
  let x = 0;
  let y = 0;
  for (const line of invoice_text_lines(invoice)) {
    out += `/${line.bold ? "F2" : "F1"} ${line.size} Tf\n`;
    for (const cell of line.cells) {
      // Td moves from the start of the previous line of text.
      out += `${cell.x - x} ${line.y - y} Td ${
        win_ansi_literal(cell.text)
      } Tj\n`;
      x = cell.x;
      y = line.y;
    }
  }
  return out + "ET\n";
}

/** Latin-1 bytes of a string whose every character is below 256. */
function single_bytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** The hand-written PDF of `invoice`. */
export function floor_pdf(invoice: Invoice): Uint8Array {
  const content = content_stream(invoice);
  const font = (name: string) =>
    `<< /Type /Font /Subtype /Type1 /BaseFont /${name} /Encoding /WinAnsiEncoding >>`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${A4.width} ${A4.height}] ` +
    "/Resources << /Font << /F1 4 0 R /F2 5 0 R >> >> /Contents 6 0 R >>",
    font("Helvetica"),
    font("Helvetica-Bold"),
    // One byte per character, so the string's length is the stream's.
    `<< /Length ${content.length} >>\nstream\n${content}endstream`,
  ];
  // The binary comment marks the file as binary for transfer tools.
  let pdf = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(pdf.length);
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) {
    pdf += `${String(offset).padStart(10, "0")} 00000 n \n`;
  }
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\n` +
    `startxref\n${xref}\n%%EOF\n`;
  return single_bytes(pdf);
}
