/**
 * Invoice PDF renderer: turns a validated {@link Invoice} into PDF bytes.
 *
 * @example
 * ```ts
 * import { render_invoice_pdf } from "./server/pdf/mod.ts";
 * const pdf: Uint8Array = render_invoice_pdf(invoice);
 * ```
 *
 * @module
 */

export {
  type PageMark,
  PREVIEW_MARK,
  render_invoice_pdf,
  type RenderPdfOptions,
  TEST_MARK,
} from "./render_invoice_pdf.ts";
export type { FacturXMetadata, PdfA3Options, PdfAttachment } from "./pdfa.ts";
export { load_invoice_fonts } from "./fonts.ts";
export {
  check_page_budget,
  estimate_min_pages,
  MAX_PAGES,
  PageLimitError,
} from "./page_budget.ts";
export {
  SUPPORTED_CHARACTERS_DESCRIPTION,
  SUPPORTED_UNICODE_RANGES,
  type UnicodeRange,
  UNSUPPORTED_CHARACTER_PLACEHOLDER,
} from "./unicode_coverage.ts";
export type { Invoice } from "../../contract/invoice_types.ts";
