/**
 * Invoice PDF renderer: turns a validated {@link Invoice} into PDF bytes.
 *
 * @example
 * ```ts
 * import { render_invoice_pdf } from "./server/pdf/mod.ts";
 * const pdf: Uint8Array = render_invoice_pdf(invoice);
 * ```
 *
 * Importing this module loads the text layout (HarfBuzz's WebAssembly and
 * bidi-js) before it resolves, so `render_invoice_pdf` draws every script
 * synchronously. The render worker imports `render_invoice_pdf.ts` itself
 * instead and loads the text layout on first use (`load_text_layout`).
 *
 * @module
 */
import { load_text_layout } from "./text_layout.ts";

await load_text_layout();

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
  load_text_layout,
  text_layout_loaded,
  TextLayoutNotLoadedError,
} from "./text_layout.ts";
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
