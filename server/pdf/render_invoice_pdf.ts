/**
 * Renders a validated invoice to a PDF: one standardized A4 layout.
 *
 * Pure and synchronous: no I/O except reading the bundled fonts once per
 * process, no clock, no randomness. Identical invoices give byte-identical
 * PDFs.
 *
 * The layout is a sequence of sections (header, parties, items with totals,
 * tax breakdown, payment with QR code, notes, footer), each a small function
 * over one {@link Layout} state. Horizontal positions of the new sections go
 * through `Layout.x`, so a right-to-left layout can mirror them in one place.
 *
 * @module
 */

import { jsPDF } from "jspdf";
import { autoTable, type Styles } from "jspdf-autotable";
import type { Invoice } from "../../contract/invoice_types.ts";
import {
  create_document_with_fonts,
  INVOICE_FONT_FAMILY,
  is_mirrored,
} from "./fonts.ts";
import { sanitize_text } from "./sanitize.ts";
import { mirror_pages, output_document, page_size } from "./jspdf_fence.ts";
import {
  type CellStyle,
  draw_table_rows,
  type Padding,
  rows_height,
  table_cell,
  table_context,
  table_row,
} from "./direct_table.ts";
import { fill } from "./locales.ts";
import {
  fits_on_page as fits_in_layout,
  is_credit_note,
  type Layout,
  layout_state,
  single_line,
} from "./layout.ts";
import { draw_header } from "./sections/header.ts";
import { draw_details } from "./sections/details.ts";
import { draw_parties } from "./sections/parties.ts";
import { draw_items } from "./sections/items.ts";
import { draw_tax_breakdown } from "./sections/tax_breakdown.ts";
import { draw_payment, has_payment_block } from "./sections/payment.ts";
import {
  document_id,
  marked_id,
  metadata_text,
  pdf_date,
} from "./document_id.ts";
import { make_pdfa3, type PdfA3Options } from "./pdfa.ts";
import {
  type PageMark,
  PageMarker,
  PREVIEW_MARK,
  TEST_MARK,
} from "./page_marks.ts";

/** Options of {@link render_invoice_pdf}. */
export interface RenderPdfOptions {
  /** Make the file PDF/A-3b with this embedded file (Factur-X). */
  pdfa3?: PdfA3Options;
  /** Mark every page as not valid for accounting (previews, test keys). */
  mark?: PageMark;
}

export { type PageMark, PREVIEW_MARK, TEST_MARK };

type Rgb = [number, number, number];

/** Restrained palette: near-black ink, one grey for labels, hairlines. */
const INK: Rgb = [26, 31, 54];
const MUTED: Rgb = [105, 115, 134];

// Layout in PDF points (1/72 in). A4 is 595.28 × 841.89 pt.
const MARGIN_X = 56;
const MARGIN_TOP = 56;
/** Bottom margin of the flowing content; the footer sits below it. */
const MARGIN_BOTTOM = 72;
const FOOTER_BASELINE_FROM_BOTTOM = 36;

const SIZE_BODY = 9.5;
const SIZE_LABEL = 8.5;
const SIZE_FOOTER = 8;
const LINE_HEIGHT_FACTOR = 1.3;

/** Cell padding of the items table (pt). */

/**
 * Renders `invoice` as an A4 PDF.
 *
 * Layout: the document title with number, dates and references, and the
 * amount due; sender and billed party blocks; the items table whose header
 * repeats on every page, with subtotal, discounts, charges, tax and totals
 * kept together with the last row; the tax breakdown; payment details with
 * an EPC QR code; notes; "Page X of Y" on every page. Sections and columns
 * appear only when the invoice has their data: an invoice with none of the
 * business fields (tax, locale, payment, logo, …) gets the base layout.
 *
 * With `locale`, labels are that locale's and numbers, money and dates are
 * formatted through `Intl`.
 *
 * Text is shown in Noto Sans; characters it cannot draw (see
 * `SUPPORTED_UNICODE_RANGES`) appear as "�".
 *
 * The output is deterministic: the creation date is the invoice date and the
 * document /ID a hash of the invoice content. Document title is
 * "Invoice <number>" (in the locale's words), author the sender's name.
 *
 * @param invoice A validated invoice (see `contract/invoice_types.ts`).
 * @param options `pdfa3`: a PDF/A-3b file with an embedded file (same pages).
 * @returns The PDF file bytes.
 */
export function render_invoice_pdf(
  invoice: Invoice,
  options: RenderPdfOptions = {},
): Uint8Array {
  const input = invoice;
  const doc = create_document_with_fonts({
    unit: "pt",
    format: "a4",
    compress: true,
  }, {
    locale: input.locale,
    context: () => JSON.stringify(input),
    ...(is_rtl_locale(input.locale) ? { mirrored: true } : {}),
  });
  doc.setFont(INVOICE_FONT_FAMILY, "normal");
  doc.setLineHeightFactor(LINE_HEIGHT_FACTOR);
  const layout = layout_state(doc, input);
  const document_name = is_credit_note(input)
    ? layout.labels.credit_note
    : layout.labels.invoice;
  doc.setProperties({
    title: metadata_text(`${document_name} ${input.invoice_number}`),
    author: metadata_text(input.sender.name),
    creator: "Invoice PDF service",
  });
  doc.setCreationDate(pdf_date(input.date));
  const id = document_id(input);
  // A marked copy is another document than the real invoice.
  doc.setFileId(options.mark ? marked_id(id, options.mark) : id);
  if (options.pdfa3 !== undefined) make_pdfa3(doc, options.pdfa3);

  // A marked document's marks are drawn from its first page on, between
  // the sections (see page_marks.ts); an unmarked one has none of it.
  const marker = options.mark
    ? new PageMarker(doc, options.mark, { mirrored: is_mirrored(doc) })
    : undefined;
  const header = draw_header(layout);
  let y = Math.max(draw_details(layout, header.details_top), header.end);
  marker?.between_sections();
  y = draw_parties(layout, y + 26);
  marker?.between_sections();
  y = draw_items(layout, y + 24);
  marker?.between_sections();
  if (input.has_tax === true && input.tax_breakdown !== undefined) {
    y = draw_tax_breakdown(layout, y + 20);
    marker?.between_sections();
  }
  if (has_payment_block(input)) {
    y = draw_payment(layout, y + 24);
    marker?.between_sections();
  }
  if (input.notes !== undefined && input.notes.trim() !== "") {
    draw_notes(layout, y + 24);
    marker?.between_sections();
  }
  draw_footers(layout);
  if (marker && options.mark) {
    draw_mark_footers(layout, options.mark);
    marker.finish();
  }

  if (is_mirrored(doc)) mirror_pages(doc);
  return output_document(doc);
}

/**
 * Common cell styles: our font and colours, no rules. Keys equal to
 * autotable's defaults (normal style, no fill, "linebreak", top alignment)
 * are left out on purpose: autotable merges these objects for every cell.
 */
function base_styles(overrides: Partial<Styles>): Partial<Styles> {
  return {
    font: INVOICE_FONT_FAMILY,
    fontSize: SIZE_BODY,
    textColor: INK,
    // An object (not 0) and no colour: otherwise autotable writes line width
    // and stroke colour operators for every cell. Rules are set per section.
    lineWidth: {},
    lineColor: false,
    cellPadding: 0,
    ...overrides,
  };
}

/** Padding with the sides not given at 0, as autotable reads it. */
function padding(sides: Partial<Padding>): Padding {
  return { top: 0, right: 0, bottom: 0, left: 0, ...sides };
}

/** A table cell style: regular, body size, ink, left-aligned, no padding. */
function cell_style(overrides: Partial<CellStyle>): CellStyle {
  return {
    bold: false,
    size: SIZE_BODY,
    color: INK,
    right: false,
    padding: padding({}),
    ...overrides,
  };
}

/** Notes: heading and paragraphs (see `draw_notes`). */
const NOTES_HEAD = cell_style({
  size: SIZE_LABEL,
  color: MUTED,
  padding: padding({ bottom: 5 }),
});
const NOTES_BODY = cell_style({ padding: padding({ bottom: 2 }) });

/** Whether content `height` tall starting at `top` ends above the bottom margin. */
function fits_on_page(layout: Layout, top: number, height: number): boolean {
  return fits_in_layout(layout, top, height);
}

const PAGE_MARGIN = {
  top: MARGIN_TOP,
  bottom: MARGIN_BOTTOM,
  left: MARGIN_X,
  right: MARGIN_X,
};

/** Page margins of a table `width` wide starting `offset` into the content box. */
function table_margin(
  layout: Layout,
  offset: number,
  width: number,
): typeof PAGE_MARGIN {
  const left = layout.x(offset, width);
  const page = page_size(layout.doc).width;
  return { ...PAGE_MARGIN, left, right: page - left - width };
}

function content_width(doc: jsPDF): number {
  return page_size(doc).width - 2 * MARGIN_X;
}

function set_text_style(
  doc: jsPDF,
  { style, size, color }: {
    style: "normal" | "bold";
    size: number;
    color: Rgb;
  },
): void {
  doc.setFont(INVOICE_FONT_FAMILY, style);
  doc.setFontSize(size);
  doc.setTextColor(...color);
}

/** Right-to-left locales (Arabic, Hebrew, Persian, Urdu): mirrored layout. */
function is_rtl_locale(locale: string | undefined): boolean {
  return locale !== undefined && /^(ar|he|fa|ur)(-|$)/i.test(locale);
}

/** Notes under the table; long notes continue on further pages. */
function draw_notes(layout: Layout, start_y: number): void {
  const { doc, invoice } = layout;
  const paragraphs = sanitize_text(invoice.notes ?? "").split("\n").map((
    p,
  ) => [p === "" ? " " : p]);
  // Notes that fit on the page are drawn directly; longer ones continue on
  // further pages through autotable.
  const context = table_context(doc);
  const width = content_width(doc);
  const rows = [
    table_row([
      table_cell(context, layout.labels.notes, { width, style: NOTES_HEAD }),
    ]),
    ...paragraphs.map(([text]) =>
      table_row([table_cell(context, text, { width, style: NOTES_BODY })])
    ),
  ];
  if (fits_on_page(layout, start_y, rows_height(rows))) {
    draw_table_rows(context, rows, { left: layout.x(0, width), top: start_y });
    return;
  }
  autoTable(doc, {
    theme: "plain",
    startY: start_y,
    margin: layout.legacy ? PAGE_MARGIN : table_margin(layout, 0, layout.width),
    tableWidth: content_width(doc),
    showHead: "firstPage",
    styles: base_styles({ cellPadding: { bottom: 2 } }),
    headStyles: {
      fontStyle: "normal",
      fontSize: SIZE_LABEL,
      textColor: MUTED,
      cellPadding: { bottom: 5 },
    },
    head: [[layout.labels.notes]],
    body: paragraphs,
  });
}

/** "Page X of Y" (and the invoice reference) at the bottom of every page. */
function draw_footers(layout: Layout): void {
  const { doc, invoice, labels, formats } = layout;
  const number = single_line(invoice.invoice_number);
  const amount = formats.money(invoice.amount_due ?? invoice.total);
  const reference = is_credit_note(invoice)
    ? `${number} \u00B7 ${amount}`
    : `${number} \u00B7 ${
      fill(labels.footer_due, {
        amount,
        date: formats.date(single_line(invoice.due_date)),
      })
    }`;
  const pages = doc.getNumberOfPages();
  const width = layout.width;
  const baseline = page_size(doc).height -
    FOOTER_BASELINE_FROM_BOTTOM;
  set_text_style(doc, { style: "normal", size: SIZE_FOOTER, color: MUTED });
  const ref = fit_line(doc, reference, { max_width: width * 0.7 });
  for (let page = 1; page <= pages; page++) {
    doc.setPage(page);
    doc.text(ref, MARGIN_X, baseline);
    doc.text(
      fill(labels.page_of, { page: String(page), pages: String(pages) }),
      MARGIN_X + width,
      baseline,
      { align: "right" },
    );
  }
}

const MARK_COLOR: Rgb = [214, 64, 64];

/**
 * The "not valid for accounting" line above every page's footer: real text
 * (it extracts and reads aloud); the drawn marks are page_marks.ts's.
 */
function draw_mark_footers(layout: Layout, mark: PageMark): void {
  const { doc } = layout;
  const width = page_size(doc).width;
  const height = page_size(doc).height;
  const pages = doc.getNumberOfPages();
  set_text_style(doc, { style: "bold", size: SIZE_FOOTER, color: MARK_COLOR });
  for (let page = 1; page <= pages; page++) {
    doc.setPage(page);
    doc.text(
      mark.footer,
      width / 2,
      height - FOOTER_BASELINE_FROM_BOTTOM - SIZE_FOOTER * 1.8,
      { align: "center" },
    );
  }
}

/** Cuts a single line to `max_width` with an ellipsis (current font and size). */
function fit_line(
  doc: jsPDF,
  value: string,
  { max_width }: { max_width: number },
): string {
  if (doc.getTextWidth(value) <= max_width) return value;
  let low = 0;
  let high = value.length;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (doc.getTextWidth(value.slice(0, mid) + "\u2026") <= max_width) {
      low = mid;
    } else high = mid - 1;
  }
  return value.slice(0, low) + "\u2026";
}
