/**
 * E-invoices from one normalized invoice: Factur-X (PDF/A-3 with CII
 * inside), CII, XRechnung (CII and UBL) and Peppol BIS UBL, and the plain
 * PDF. Pure like the renderer: no HTTP, no database.
 *
 * @example
 * ```ts
 * import { render_invoice_document } from "./server/einvoice/mod.ts";
 * const { bytes, content_type } = render_invoice_document(invoice, { format: "ubl" });
 * ```
 *
 * @module
 */
// The renderer's entry: importing it loads the text layout (HarfBuzz,
// bidi-js) before this module resolves, so every script renders
// synchronously through `render_invoice_document`.
import "../pdf/mod.ts";

export {
  type DocumentFormat,
  type DocumentOptions,
  FACTUR_X_FILE_NAME,
  invoice_xml,
  render_invoice_document,
  render_invoice_document_lazily,
  type RenderedDocument,
} from "./document.ts";
export { write_cii } from "./cii.ts";
export { write_ubl } from "./ubl.ts";
export {
  escape_xml_attribute,
  escape_xml_text,
  XmlWriter,
} from "./xml_writer.ts";
