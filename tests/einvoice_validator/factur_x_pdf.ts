/**
 * The invoice XML inside a Factur-X / ZUGFeRD PDF: the embedded file stream
 * (`/Type /EmbeddedFile`, unfiltered or FlateDecode) whose XML root is a CII
 * `CrossIndustryInvoice`. Reads the file's objects directly, so it needs no
 * PDF tool; embedded file streams are never inside object streams, so this
 * works for compressed cross-reference sections too. Encrypted PDFs are not
 * read.
 *
 * @module
 */
import { root_name } from "./document_kind.ts";

/** `%PDF-` at the start. */
export function is_pdf(bytes: Uint8Array): boolean {
  return new TextDecoder("latin1").decode(bytes.subarray(0, 5)) === "%PDF-";
}

const OBJECT = /(\d+)\s+(\d+)\s+obj\b/g;

/** Integer value of a direct object `n 0 obj <int> endobj`. */
function direct_integer(text: string, number: string): number | undefined {
  const match = new RegExp(
    `(?:^|\\s)${number}\\s+\\d+\\s+obj\\s*(\\d+)\\s*endobj`,
  )
    .exec(text);
  return match ? Number(match[1]) : undefined;
}

async function inflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream()
    .pipeThrough(new DecompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Contents of every embedded file stream the PDF holds. */
export async function embedded_files(pdf: Uint8Array): Promise<Uint8Array[]> {
  // One byte per char (windows-1252), so string offsets are byte offsets.
  const text = new TextDecoder("latin1").decode(pdf);
  const files: Uint8Array[] = [];
  for (const object of text.matchAll(OBJECT)) {
    const start = object.index + object[0].length;
    const keyword = /\bstream(\r\n|\n|\r)/.exec(
      text.slice(start, start + 4096),
    );
    if (keyword === null) continue;
    const dictionary = text.slice(start, start + keyword.index);
    if (dictionary.includes("endobj")) continue;
    if (!/\/Type\s*\/EmbeddedFile\b/.test(dictionary)) continue;
    const length_ref = /\/Length\s+(\d+)(?:\s+(\d+)\s+R)?/.exec(dictionary);
    if (length_ref === null) continue;
    const length = length_ref[2] === undefined
      ? Number(length_ref[1])
      : direct_integer(text, length_ref[1]);
    if (length === undefined) continue;
    const data_start = start + keyword.index + keyword[0].length;
    const data = pdf.subarray(data_start, data_start + length);
    const filter = /\/Filter\s*\[?\s*\/(\w+)\s*\]?/.exec(dictionary)?.[1];
    if (filter === undefined) files.push(data);
    else if (filter === "FlateDecode") files.push(await inflate(data));
  }
  return files;
}

/** The CII XML embedded in a Factur-X PDF; throws when there is none. */
export async function factur_x_xml(pdf: Uint8Array): Promise<string> {
  if (/\/Encrypt\b/.test(new TextDecoder("latin1").decode(pdf))) {
    throw new Error("the PDF is encrypted; its embedded files cannot be read");
  }
  for (const file of await embedded_files(pdf)) {
    const xml = new TextDecoder().decode(file);
    if (root_name(xml) === "CrossIndustryInvoice") return xml;
  }
  throw new Error(
    "the PDF holds no embedded CII invoice (factur-x.xml); not a Factur-X PDF",
  );
}
