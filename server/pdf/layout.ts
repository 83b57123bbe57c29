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
import { MARGINS } from "./styles.ts";

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
  /** Lowest y of flowing content (the bottom margin's top). */
  bottom: number;
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

/** The layout of `invoice` drawn into `doc`. */
export function layout_state(doc: jsPDF, invoice: Invoice): Layout {
  const texts = locale_texts(invoice.locale);
  const currency = invoice.currency ? single_line(invoice.currency) : undefined;
  const page = page_size(doc);
  return {
    doc,
    invoice,
    texts,
    labels: texts.labels,
    tax: invoice.tax_label !== undefined && invoice.tax_label.trim() !== ""
      ? single_line(invoice.tax_label)
      : texts.tax_label,
    formats: formats_for(invoice.locale, currency),
    page,
    width: page.width - 2 * MARGINS.x,
    bottom: page.height - MARGINS.bottom,
    mirrored: texts.direction === "rtl",
    fonts: {
      normal: font_handle(doc, "normal"),
      bold: font_handle(doc, "bold"),
    },
    table: table_context(doc),
    x: (offset) => MARGINS.x + offset,
  };
}

/** A label with `{tax}` filled in. */
export function label(layout: Layout, key: keyof Labels): string {
  return fill(layout.labels[key], { tax: layout.tax });
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
