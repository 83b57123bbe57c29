/**
 * The layout state every section reads: the document, the invoice, its
 * words and formats, the page geometry and fonts, and the one place
 * horizontal positions go through.
 *
 * Right-to-left is a property of the layout, not of the sections: a
 * mirrored layout draws every page left to right and mirrors it as a whole
 * at the end (`mirror_pages`); text, links and the QR code are mirrored
 * back by the drawing functions (`draw.ts`), so sections never ask.
 *
 * @module
 */

import type { jsPDF } from "jspdf";
import type { Invoice } from "../../contract/invoice_types.ts";
import { font_handle, type FontHandle } from "./fonts.ts";
import { sanitize_text } from "./sanitize.ts";
import { page_size } from "./jspdf_fence.ts";
import { type Formats, formats_for } from "./locale_format.ts";
import {
  fill,
  type Labels,
  locale_texts,
  type LocaleTexts,
} from "./locales.ts";
import { table_context, type TableContext } from "./table.ts";
import { wrap_text } from "./document_font.ts";
import { brand_colors, type BrandColors } from "./brand.ts";
import {
  LEGAL_FOOTER,
  LINE_HEIGHT_FACTOR,
  MARGINS,
  PAGE_SIZES,
  RUNNING_HEADER,
} from "./styles.ts";

/** What every section reads. */
export interface Layout {
  doc: jsPDF;
  invoice: Invoice;
  /** The locale's registry entry (the default's without `locale`). */
  texts: LocaleTexts;
  labels: Labels;
  /** Printed name of the tax: `tax_label`, else the locale's. */
  tax: string;
  formats: Formats;
  /** Page width and height. */
  page: { width: number; height: number };
  /** Content box width (between the side margins). */
  width: number;
  /** Lowest y of flowing content (above the legal footer and page line). */
  bottom: number;
  /** Top of the flowing content on continuation pages (under the running header). */
  page_top: number;
  /** The legal footer's lines and their size (none without `legal_info`). */
  legal: { lines: string[]; size: number };
  /** Colours of the title, the header rule and the amount due. */
  brand: BrandColors;
  /** What the items section placed beside the totals (set while drawing). */
  beside_totals: { notes: boolean };
  /** The pages are mirrored at the end (right-to-left). */
  mirrored: boolean;
  fonts: { normal: FontHandle; bold: FontHandle };
  /** The document as the table engine needs it. */
  table: TableContext;
  /**
   * Page x of a box that starts `offset` points into the content box and is
   * `width` wide.
   */
  x(offset: number, width: number): number;
}

/** The paper of `invoice`: its `page_size`, else its locale's. */
export function paper_of(
  invoice: Invoice,
): { format: keyof typeof PAGE_SIZES; width: number; height: number } {
  const format = invoice.page_size ?? locale_texts(invoice.locale).page_size;
  return { format, ...PAGE_SIZES[format] };
}

/**
 * The legal footer of `invoice`: `sender.legal_info` wrapped to the content
 * width, at most `LEGAL_FOOTER.max_lines` lines (set smaller when needed).
 */
function legal_footer(
  doc: jsPDF,
  invoice: Invoice,
  width: number,
): { lines: string[]; size: number } {
  const text = invoice.sender.legal_info;
  if (text === undefined || text.trim() === "") return { lines: [], size: 0 };
  const font = font_handle(doc, "normal").font;
  const paragraphs = sanitize_text(text).split("\n").map((line) => line.trim())
    .filter((line) => line !== "");
  let size: number = LEGAL_FOOTER.size;
  for (;;) {
    const lines = wrap_text(paragraphs, { font, size, max_width: width });
    if (
      lines.length <= LEGAL_FOOTER.max_lines || size <= LEGAL_FOOTER.min_size
    ) {
      return { lines: lines.slice(0, LEGAL_FOOTER.max_lines), size };
    }
    size = Math.max(LEGAL_FOOTER.min_size, size - 0.25);
  }
}

/** The layout of `invoice` drawn into `doc`. */
export function layout_state(doc: jsPDF, invoice: Invoice): Layout {
  const texts = locale_texts(invoice.locale);
  const currency = invoice.currency ? single_line(invoice.currency) : undefined;
  const page = page_size(doc);
  const width = page.width - 2 * MARGINS.x;
  const legal = legal_footer(doc, invoice, width);
  const legal_height = legal.lines.length === 0
    ? 0
    : (legal.lines.length - 1) * legal.size * LINE_HEIGHT_FACTOR +
      legal.size + LEGAL_FOOTER.gap;
  const bottom = page.height - MARGINS.bottom - legal_height;
  const page_top = RUNNING_HEADER.baseline + RUNNING_HEADER.rule_gap +
    RUNNING_HEADER.content_gap;
  return {
    doc,
    invoice,
    texts,
    labels: texts.labels,
    tax: invoice.tax_label !== undefined && invoice.tax_label.trim() !== ""
      ? single_line(invoice.tax_label)
      : (is_vat_invoice(invoice) ? texts.vat_label : undefined) ??
        texts.tax_label,
    formats: formats_for(invoice.locale, currency),
    page,
    width,
    bottom,
    page_top,
    legal,
    brand: brand_colors(invoice.brand_color),
    beside_totals: { notes: false },
    mirrored: texts.direction === "rtl",
    fonts: {
      normal: font_handle(doc, "normal"),
      bold: font_handle(doc, "bold"),
    },
    table: table_context(doc, { page_top, bottom }),
    x: (offset) => MARGINS.x + offset,
  };
}

/** A label with `{tax}` filled in. */
export function label(layout: Layout, key: keyof Labels): string {
  return fill(layout.labels[key], { tax: layout.tax });
}

/** Categories only value added tax has (reverse charge, exempt, …). */
const VAT_CATEGORIES = new Set(["AE", "K", "G", "E", "O"]);

/**
 * Whether the invoice is a VAT invoice: it has tax and the seller's tax id
 * is a VAT id (a country prefix before the number, "DE123456789",
 * "GB 123 4567 89") or a group is of a category only VAT has.
 */
export function is_vat_invoice(invoice: Invoice): boolean {
  if (invoice.has_tax !== true) return false;
  const id = (invoice.sender.tax_id ?? "").replace(/[\s.\-]+/g, "");
  return /^[A-Za-z]{2}[0-9A-Za-z+*]{2,}$/.test(id) &&
      /\d/.test(id) ||
    (invoice.tax_breakdown ?? []).some((row) =>
      VAT_CATEGORIES.has(row.category)
    );
}

/**
 * Whether the title says "tax invoice" where the market names one: an
 * invoice (not a credit note) with tax from a seller with a tax id.
 */
export function is_tax_invoice(invoice: Invoice): boolean {
  return invoice.has_tax === true && !is_credit_note(invoice) &&
    present(invoice.sender.tax_id);
}

/** Whether the document is a credit note. */
export function is_credit_note(invoice: Invoice): boolean {
  return invoice.document_type === "credit_note";
}

/** Whether an optional text field has content. */
export function present(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== "";
}

/** Sanitized text with line breaks folded into spaces, for one-line fields. */
export function single_line(value: string): string {
  return sanitize_text(value).replace(/\s*\n\s*/g, " ").trim();
}
