/**
 * Renders one normalized invoice in one output format (see `mod.ts`).
 *
 * Imports the renderer's own module, not its entry (`../pdf/mod.ts`), so
 * that the text layout (HarfBuzz, bidi-js) is not loaded with it: the
 * render worker imports this module and renders with
 * {@link render_invoice_document_lazily}, which loads the text layout only
 * when an invoice first needs it. Everyone else imports `mod.ts`, which
 * loads it, and renders synchronously.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import {
  type DocumentContentType,
  FACTUR_X_XML_NAME,
  INVOICE_FORMAT_TABLE,
  type InvoiceFormat,
} from "../../contract/formats.ts";
import type { Invoice } from "../../contract/invoice_types.ts";
import {
  PREVIEW_MARK,
  render_invoice_pdf,
  TEST_MARK,
} from "../pdf/render_invoice_pdf.ts";
import {
  load_text_layout,
  text_layout_loaded,
  TextLayoutNotLoadedError,
} from "../pdf/text_layout.ts";
import { write_cii } from "./cii.ts";
import { attached_file } from "./common.ts";
import { write_ubl } from "./ubl.ts";

/** Output formats of `POST /generate`: the contract's `format` values. */
export type DocumentFormat = InvoiceFormat;

/** Options of {@link render_invoice_document}. */
export interface DocumentOptions {
  format: DocumentFormat;
  /**
   * Output of a test key: e-invoices are marked TEST in the note (BT-22), the
   * invoice number (BT-1) and the seller name (BT-27); PDFs carry the TEST
   * marks.
   */
  test?: boolean;
  /**
   * A free dashboard preview: PDFs carry a PREVIEW mark on every page, and
   * the XML (of an XML format, or inside Factur-X) is marked as test output
   * is, so that no preview is a usable e-invoice.
   */
  preview?: boolean;
}

/** A rendered document. */
export interface RenderedDocument {
  bytes: Uint8Array;
  content_type: DocumentContentType;
}

/** Name of the XML inside a Factur-X PDF. */
export const FACTUR_X_FILE_NAME = FACTUR_X_XML_NAME;

/** The XML of an XML format (and of the XML inside Factur-X). */
export function invoice_xml(
  invoice: Invoice,
  options: DocumentOptions,
): string {
  const test = options.test === true || options.preview === true;
  const format = INVOICE_FORMAT_TABLE[options.format];
  if (format.syntax === "cii") {
    return write_cii(invoice, { profile: format.profile, test });
  }
  if (format.syntax === "ubl") {
    return write_ubl(invoice, { profile: format.profile, test });
  }
  throw new Error(`the ${options.format} format has no XML`);
}

/** Renders `invoice` in `options.format`. */
export function render_invoice_document(
  invoice: Invoice,
  options: DocumentOptions,
): RenderedDocument {
  const mark = options.preview
    ? PREVIEW_MARK
    : options.test
    ? TEST_MARK
    : undefined;
  const format = INVOICE_FORMAT_TABLE[options.format];
  if (format.syntax === null) {
    return {
      bytes: render_invoice_pdf(invoice, { mark }),
      content_type: format.content_type,
    };
  }
  const xml = new TextEncoder().encode(invoice_xml(invoice, options));
  if (!format.pdf) return { bytes: xml, content_type: format.content_type };
  const bytes = render_invoice_pdf(invoice, {
    mark,
    pdfa3: {
      attachment: {
        file_name: FACTUR_X_FILE_NAME,
        bytes: xml,
        mime_type: "text/xml",
        description: "Factur-X / ZUGFeRD invoice (EN 16931)",
        // The XML says everything the pages say (profile EN 16931): it is
        // an alternative representation, as ZUGFeRD asks in Germany.
        relationship: "Alternative",
      },
      factur_x: {
        document_type: "INVOICE",
        document_file_name: FACTUR_X_FILE_NAME,
        version: "1.0",
        conformance_level: "EN 16931",
      },
      // Supporting documents (BG-24) are associated files of their own too,
      // so PDF readers list them beside the invoice.
      supplements: (invoice.attachments ?? []).flatMap((attachment) => {
        const file = attached_file(attachment);
        return file === undefined ? [] : [{
          file_name: file.filename,
          bytes: Buffer.from(file.data, "base64"),
          mime_type: file.mime_type,
          description: attachment.description ?? attachment.id,
          relationship: "Supplement" as const,
        }];
      }),
    },
  });
  return { bytes, content_type: format.content_type };
}

/**
 * {@link render_invoice_document} for importers of this module that have
 * not loaded the text layout (the render worker): when the invoice needs
 * it (a script beyond the Latin font, a right-to-left locale) and it is not
 * loaded yet, loads it once and renders again from the start (the renderer
 * is pure: the abandoned attempt leaves nothing behind). Invoices that do
 * not need it render synchronously, as with `render_invoice_document`.
 */
export async function render_invoice_document_lazily(
  invoice: Invoice,
  options: DocumentOptions,
): Promise<RenderedDocument> {
  try {
    return render_invoice_document(invoice, options);
  } catch (error) {
    if (!(error instanceof TextLayoutNotLoadedError) || text_layout_loaded()) {
      throw error;
    }
  }
  await load_text_layout();
  return render_invoice_document(invoice, options);
}
