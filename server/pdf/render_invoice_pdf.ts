/**
 * Renders a validated invoice to a PDF: one standardized layout on A4 or
 * Letter paper.
 *
 * Pure and synchronous: no I/O except reading the bundled fonts once per
 * process, no clock, no randomness. Identical invoices give byte-identical
 * PDFs.
 *
 * The document is a sequence of sections (`sections/`: header, details,
 * parties, items with totals, tax breakdown, payment with QR code, notes,
 * attachments, footer, marks), each a small function over one {@link Layout} state
 * (`layout.ts`) drawing through `draw.ts` in the styles of `styles.ts`.
 *
 * @module
 */

import type { Invoice } from "../../contract/invoice_types.ts";
import {
  create_document_with_fonts,
  INVOICE_FONT_FAMILY,
  output_document_with_fonts,
} from "./fonts.ts";
import { mirror_pages } from "./jspdf_fence.ts";
import {
  is_credit_note,
  type Layout,
  layout_state,
  paper_of,
} from "./layout.ts";
import { locale_texts } from "./locales.ts";
import {
  document_id,
  marked_id,
  metadata_text,
  pdf_date,
} from "./document_id.ts";
import { make_pdfa3, type PdfA3Options } from "./pdfa.ts";
import { type PageMark, PREVIEW_MARK, TEST_MARK } from "./page_marks.ts";
import { LINE_HEIGHT_FACTOR, SECTION_GAPS } from "./styles.ts";
import { draw_header } from "./sections/header.ts";
import { draw_details } from "./sections/details.ts";
import { draw_parties } from "./sections/parties.ts";
import { draw_items } from "./sections/items.ts";
import { draw_payment, has_payment_block } from "./sections/payment.ts";
import { draw_notes, has_notes } from "./sections/notes.ts";
import { draw_attachments, has_attachments } from "./sections/attachments.ts";
import { draw_footers } from "./sections/footer.ts";
import { start_marks } from "./sections/marks.ts";

/** Options of {@link render_invoice_pdf}. */
export interface RenderPdfOptions {
  /** Make the file PDF/A-3b with this embedded file (Factur-X). */
  pdfa3?: PdfA3Options;
  /** Mark every page as not valid for accounting (previews, test keys). */
  mark?: PageMark;
}

export { type PageMark, PREVIEW_MARK, TEST_MARK };

/** A section of the flowing content, in the order they are drawn. */
interface Section {
  /** Space above it. */
  gap: number;
  /** Whether the invoice has it. */
  shown(layout: Layout): boolean;
  /** Draws it from `top`; returns the y below it. */
  draw(layout: Layout, top: number): number;
}

/** The sections after the header, the parties and the details. */
const SECTIONS: readonly Section[] = [
  { gap: SECTION_GAPS.items, shown: () => true, draw: draw_items },
  {
    gap: SECTION_GAPS.payment,
    shown: ({ invoice }) => has_payment_block(invoice),
    draw: draw_payment,
  },
  {
    gap: SECTION_GAPS.notes,
    shown: (layout) => has_notes(layout) && !layout.beside_totals.notes,
    draw: draw_notes,
  },
  { gap: SECTION_GAPS.notes, shown: has_attachments, draw: draw_attachments },
];

/**
 * Renders `invoice` as a PDF on its paper (`page_size`, else the locale's).
 *
 * Layout: the title and the logo on one row over a rule; the parties in two
 * columns beside the amount due and the invoice's details; the items table
 * whose header repeats on every page, with the totals and the tax
 * breakdown kept together with the last row; the "How to pay" box (bank
 * details, terms, early-payment discounts, EPC QR code); notes; the list
 * of supporting documents; the legal
 * footer and "Page X of Y" on every page, a running header on every page
 * after the first. Sections and columns appear only when the invoice has
 * their data; the brand colour takes the title, the rule and the amount
 * due.
 *
 * Words, number and date formats and the direction are the locale's
 * (`locales.ts`); an invoice without `locale` takes the default entry.
 *
 * Text is shown in Noto Sans; characters it cannot draw (see
 * `SUPPORTED_UNICODE_RANGES`) appear as "�".
 *
 * The output is deterministic: the creation date is the invoice date and the
 * document /ID a hash of the invoice content. Document title is
 * "Invoice <number>" (in the locale's words), author the sender's name.
 *
 * @param invoice A validated invoice (see `contract/invoice_types.ts`).
 * @param options `pdfa3`: a PDF/A-3b file with an embedded file (same pages);
 *   `mark`: the marks of a preview or test document.
 * @returns The PDF file bytes.
 */
export function render_invoice_pdf(
  invoice: Invoice,
  options: RenderPdfOptions = {},
): Uint8Array {
  const texts = locale_texts(invoice.locale);
  const doc = create_document_with_fonts({
    unit: "pt",
    format: paper_of(invoice).format,
    compress: true,
  }, {
    locale: texts.text_language,
    context: () => JSON.stringify(invoice),
    mirrored: texts.direction === "rtl",
  });
  doc.setFont(INVOICE_FONT_FAMILY, "normal");
  doc.setLineHeightFactor(LINE_HEIGHT_FACTOR);
  const layout = layout_state(doc, invoice);
  const document_name = is_credit_note(invoice)
    ? layout.labels.credit_note
    : layout.labels.invoice;
  doc.setProperties({
    title: metadata_text(`${document_name} ${invoice.invoice_number}`),
    author: metadata_text(invoice.sender.name),
    creator: "Invoice PDF service",
  });
  doc.setCreationDate(pdf_date(invoice.date));
  const id = document_id(invoice);
  // A marked copy is another document than the real invoice.
  doc.setFileId(options.mark ? marked_id(id, options.mark) : id);
  if (options.pdfa3 !== undefined) make_pdfa3(doc, options.pdfa3);

  const marks = options.mark ? start_marks(layout, options.mark) : undefined;
  const rule = draw_header(layout);
  const top = rule + SECTION_GAPS.parties;
  const details_end = draw_details(layout, top);
  const pages = doc.getNumberOfPages();
  const parties_end = draw_parties(layout, top);
  // Parties that continue on a later page end there.
  let y = doc.getNumberOfPages() === pages
    ? Math.max(details_end, parties_end)
    : parties_end;
  marks?.between_sections();
  for (const section of SECTIONS) {
    if (!section.shown(layout)) continue;
    y = section.draw(layout, y + section.gap);
    marks?.between_sections();
  }
  draw_footers(layout);
  marks?.finish();

  if (layout.mirrored) mirror_pages(doc);
  return output_document_with_fonts(doc);
}
