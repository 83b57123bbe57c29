/**
 * PDF/A-3b with an embedded XML file (Factur-X / ZUGFeRD) and supplementary
 * files, written into a jsPDF document through its output events, as the
 * font code writes fonts.
 *
 * jsPDF has no PDF/A or attachment API. On output this adds: the XML and
 * each supplement as embedded files (`/EmbeddedFiles` name tree, `/AF`,
 * `/AFRelationship`), an
 * sRGB output intent with its ICC profile, and XMP metadata (PDF/A
 * identification, the Factur-X extension schema and its description, and
 * title, author, producer, creator tool and creation date equal to the
 * document information dictionary). The header says PDF 1.7, the version
 * PDF/A-3 is based on.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { deflateSync } from "node:zlib";
import { jsPDF } from "jspdf";
import { output_hooks, type OutputHooks } from "./jspdf_fence.ts";
import { deflate_stream } from "./pdf_syntax.ts";

/** The file to embed and how it relates to the document. */
export interface PdfAttachment {
  /** File name, e.g. "factur-x.xml". */
  file_name: string;
  /** The file's bytes. */
  bytes: Uint8Array;
  /** MIME type, e.g. "text/xml". */
  mime_type: string;
  /** Short description shown by PDF readers. */
  description: string;
  /** PDF 2.0 / PDF/A-3 association of the file with the document. */
  relationship: "Data" | "Alternative" | "Source" | "Supplement";
}

/** Factur-X XMP extension values (Factur-X 1.0, section on PDF/A-3 metadata). */
export interface FacturXMetadata {
  /** "INVOICE" for invoices and credit notes alike. */
  document_type: "INVOICE";
  /** Name of the embedded XML. */
  document_file_name: string;
  /** "1.0". */
  version: string;
  /** e.g. "EN 16931". */
  conformance_level: string;
}

/** Options of {@link make_pdfa3}. */
export interface PdfA3Options {
  attachment: PdfAttachment;
  factur_x: FacturXMetadata;
  /** Further files, e.g. supporting documents of the invoice (`/Supplement`). */
  supplements?: PdfAttachment[];
}

let icc_stream: string | undefined;

/**
 * The sRGB profile, deflated once per process (at zlib's default level: it
 * is not deflated per document), as a binary string.
 */
function srgb_profile_stream(): string {
  icc_stream ??= binary(
    deflateSync(
      Deno.readFileSync(new URL("./icc/sRGB.icc", import.meta.url)),
    ),
  );
  return icc_stream;
}

function binary(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString("latin1");
}

function utf8_binary(text: string): string {
  return binary(new TextEncoder().encode(text));
}

/** A PDF literal string for ASCII text (file names, descriptions). */
function pdf_ascii(text: string): string {
  const ascii = text.replace(/[^\x20-\x7e]/g, "_");
  return "(" + ascii.replace(/[\\()]/g, (c) => "\\" + c) + ")";
}

/** A PDF text string of any text: PDFDocEncoding-safe ASCII, else UTF-16BE hex. */
function pdf_text(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return pdf_ascii(text);
  let hex = "FEFF";
  for (let i = 0; i < text.length; i++) {
    hex += text.charCodeAt(i).toString(16).toUpperCase().padStart(4, "0");
  }
  return `<${hex}>`;
}

/** The bytes of {@link pdf_text}'s string, as a binary string (for ordering). */
function pdf_text_bytes(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return text;
  let bytes = "\xfe\xff";
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    bytes += String.fromCharCode(unit >> 8, unit & 0xff);
  }
  return bytes;
}

function xml_text(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

/** "D:20261101000000+00'00'" → "2026-11-01T00:00:00+00:00". */
export function pdf_date_to_xmp(date: string): string {
  const m =
    /^D:(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})([+-])(\d{2})'(\d{2})'?$/
      .exec(date);
  if (m === null) throw new Error(`unexpected PDF date: ${date}`);
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${m[7]}${m[8]}:${
    m[9]
  }`;
}

/**
 * jsPDF writes a document-information string as PDFDocEncoding when it
 * can and as UTF-16 otherwise; either way a reader sees the JavaScript
 * string given to `setProperties`, which is what XMP must repeat.
 */
function xmp_packet(
  info: { title?: string; author?: string; creator?: string },
  { producer, created, factur_x }: {
    producer: string;
    created: string;
    factur_x: FacturXMetadata;
  },
): string {
  const fx_ns = "urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#";
  const property = (name: string, description: string): string =>
    `<rdf:li rdf:parseType="Resource"><pdfaProperty:name>${name}</pdfaProperty:name>` +
    `<pdfaProperty:valueType>Text</pdfaProperty:valueType>` +
    `<pdfaProperty:category>external</pdfaProperty:category>` +
    `<pdfaProperty:description>${description}</pdfaProperty:description></rdf:li>`;
  const parts = [
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>',
    '<x:xmpmeta xmlns:x="adobe:ns:meta/">',
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
    '<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/">' +
    "<pdfaid:part>3</pdfaid:part><pdfaid:conformance>B</pdfaid:conformance>" +
    "</rdf:Description>",
    '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">' +
    "<dc:format>application/pdf</dc:format>" +
    (info.title
      ? `<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${
        xml_text(info.title)
      }</rdf:li></rdf:Alt></dc:title>`
      : "") +
    (info.author
      ? `<dc:creator><rdf:Seq><rdf:li>${
        xml_text(info.author)
      }</rdf:li></rdf:Seq></dc:creator>`
      : "") +
    "</rdf:Description>",
    '<rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/">' +
    `<pdf:Producer>${xml_text(producer)}</pdf:Producer></rdf:Description>`,
    '<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/">' +
    (info.creator
      ? `<xmp:CreatorTool>${xml_text(info.creator)}</xmp:CreatorTool>`
      : "") +
    `<xmp:CreateDate>${created}</xmp:CreateDate></rdf:Description>`,
    `<rdf:Description rdf:about="" xmlns:fx="${fx_ns}">` +
    `<fx:DocumentType>${factur_x.document_type}</fx:DocumentType>` +
    `<fx:DocumentFileName>${
      xml_text(factur_x.document_file_name)
    }</fx:DocumentFileName>` +
    `<fx:Version>${xml_text(factur_x.version)}</fx:Version>` +
    `<fx:ConformanceLevel>${
      xml_text(factur_x.conformance_level)
    }</fx:ConformanceLevel></rdf:Description>`,
    '<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/"' +
    ' xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#"' +
    ' xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">' +
    '<pdfaExtension:schemas><rdf:Bag><rdf:li rdf:parseType="Resource">' +
    "<pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>" +
    `<pdfaSchema:namespaceURI>${fx_ns}</pdfaSchema:namespaceURI>` +
    "<pdfaSchema:prefix>fx</pdfaSchema:prefix>" +
    "<pdfaSchema:property><rdf:Seq>" +
    property("DocumentFileName", "The name of the embedded XML document") +
    property(
      "DocumentType",
      "The type of the hybrid document in capital letters, e.g. INVOICE or ORDER",
    ) +
    property(
      "Version",
      "The actual version of the standard applying to the embedded XML document",
    ) +
    property(
      "ConformanceLevel",
      "The conformance level of the embedded XML document",
    ) +
    "</rdf:Seq></pdfaSchema:property></rdf:li></rdf:Bag></pdfaExtension:schemas>" +
    "</rdf:Description>",
    "</rdf:RDF>",
    "</x:xmpmeta>",
    '<?xpacket end="w"?>',
  ];
  return parts.join("\n");
}

/**
 * Makes `doc` a PDF/A-3b file carrying `options.attachment` when it is
 * output. Call after `setProperties` / `setCreationDate`, before `output`.
 */
export function make_pdfa3(doc: jsPDF, options: PdfA3Options): void {
  const internal = output_hooks(doc);
  internal.set_pdf_version("1.7");
  const ids = { metadata: 0, intent: 0, filespecs: [] as number[] };
  const files = [options.attachment, ...options.supplements ?? []];

  // PDF/A: every annotation is printable (flag 4) — jsPDF writes links
  // (the payment link) without /F. Only this document's output is changed.
  internal.edit_output((text) =>
    text.includes(LINK_ANNOTATION)
      ? text.replaceAll(LINK_ANNOTATION, `${LINK_ANNOTATION}/F 4 `)
      : text
  );

  internal.after_resources(() => {
    const created = internal.creation_date();
    const info = internal.document_properties();

    const icc_id = internal.newObject();
    internal.putStream({
      data: srgb_profile_stream(),
      alreadyAppliedFilters: ["/FlateDecode"],
      filters: [],
      additionalKeyValues: [{ key: "N", value: 3 }],
      objectId: icc_id,
    });
    internal.out("endobj");
    ids.intent = internal.newObject();
    internal.out(
      "<</Type/OutputIntent/S/GTS_PDFA1/OutputConditionIdentifier(sRGB IEC61966-2.1)" +
        `/Info(sRGB IEC61966-2.1)/DestOutputProfile ${icc_id} 0 R>>`,
    );
    internal.out("endobj");

    for (const file of files) {
      ids.filespecs.push(embed_file(internal, file, created));
    }

    ids.metadata = internal.newObject();
    // PDF/A: the metadata stream is not filtered, so tools can read it.
    internal.putStream({
      data: utf8_binary(
        xmp_packet(info, {
          producer: `jsPDF ${jsPDF.version}`,
          created: pdf_date_to_xmp(created),
          factur_x: options.factur_x,
        }),
      ),
      filters: [],
      additionalKeyValues: [
        { key: "Type", value: "/Metadata" },
        { key: "Subtype", value: "/XML" },
      ],
      objectId: ids.metadata,
    });
    internal.out("endobj");
  });

  internal.in_catalog(() => {
    internal.out(`/Metadata ${ids.metadata} 0 R`);
    internal.out(`/OutputIntents[${ids.intent} 0 R]`);
    internal.out(`/AF[${ids.filespecs.map((id) => `${id} 0 R`).join(" ")}]`);
    // A name tree lists its keys in the order of their bytes.
    const names = files.map((file, i) => ({
      key: file.file_name,
      bytes: pdf_text_bytes(file.file_name),
      id: ids.filespecs[i],
    })).sort((a, b) => (a.bytes < b.bytes ? -1 : a.bytes > b.bytes ? 1 : 0));
    internal.out(
      `/Names<</EmbeddedFiles<</Names[${
        names.map(({ key, id }) => `${pdf_text(key)} ${id} 0 R`).join(" ")
      }]>>>>`,
    );
  });
}

/** Writes one embedded file and its file specification; returns the specification's id. */
function embed_file(
  internal: OutputHooks,
  file: PdfAttachment,
  created: string,
): number {
  const file_id = internal.newObject();
  const packed = deflate_stream(file.bytes);
  internal.putStream({
    data: binary(packed),
    alreadyAppliedFilters: ["/FlateDecode"],
    filters: [],
    additionalKeyValues: [
      { key: "Type", value: "/EmbeddedFile" },
      { key: "Subtype", value: "/" + pdf_name(file.mime_type) },
      {
        key: "Params",
        value: `<</ModDate${pdf_ascii(created)}/Size ${file.bytes.length}>>`,
      },
    ],
    objectId: file_id,
  });
  internal.out("endobj");
  const filespec_id = internal.newObject();
  internal.out(
    `<</Type/Filespec/F${pdf_ascii(file.file_name)}/UF${
      pdf_text(file.file_name)
    }/Desc${pdf_text(file.description)}` +
      `/AFRelationship/${file.relationship}` +
      `/EF<</F ${file_id} 0 R/UF ${file_id} 0 R>>>>`,
  );
  internal.out("endobj");
  return filespec_id;
}

const LINK_ANNOTATION = "/Type /Annot /Subtype /Link ";

/** A MIME type as a PDF name: "text/xml" → "text#2Fxml". */
function pdf_name(text: string): string {
  return text.replace(
    /[^A-Za-z0-9.+-]/g,
    (c) => "#" + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0"),
  );
}
