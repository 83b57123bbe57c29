/**
 * The notes under everything else: a heading and the paragraphs of the
 * invoice's notes; long notes continue on further pages.
 *
 * @module
 */

import { autoTable } from "jspdf-autotable";
import { sanitize_text } from "../sanitize.ts";
import { fits_on_page, type Layout } from "../layout.ts";
import {
  draw_table_rows,
  rows_height,
  table_cell,
  table_row,
} from "../direct_table.ts";
import {
  base_styles,
  PAGE_MARGIN,
  table_margin,
} from "../autotable_fallback.ts";
import { last_autotable_end } from "../jspdf_fence.ts";
import { COLORS, NOTES_BODY, NOTES_HEAD, SIZES } from "../styles.ts";

/** Whether the invoice has notes to print. */
export function has_notes(layout: Layout): boolean {
  const notes = layout.invoice.notes;
  return notes !== undefined && notes.trim() !== "";
}

/** Draws the notes from `top`; returns the y below them. */
export function draw_notes(layout: Layout, top: number): number {
  const { invoice, width } = layout;
  const paragraphs = sanitize_text(invoice.notes ?? "").split("\n").map((
    p,
  ) => [p === "" ? " " : p]);
  // Notes that fit on the page are drawn directly; longer ones continue on
  // further pages through autotable.
  const context = layout.table;
  const rows = [
    table_row([
      table_cell(context, layout.labels.notes, { width, style: NOTES_HEAD }),
    ]),
    ...paragraphs.map(([text]) =>
      table_row([table_cell(context, text, { width, style: NOTES_BODY })])
    ),
  ];
  if (fits_on_page(layout, top, rows_height(rows))) {
    return draw_table_rows(context, rows, { left: layout.x(0, width), top });
  }
  autoTable(layout.doc, {
    theme: "plain",
    startY: top,
    margin: layout.legacy ? PAGE_MARGIN : table_margin(layout, 0, width),
    tableWidth: width,
    showHead: "firstPage",
    styles: base_styles({ cellPadding: { bottom: 2 } }),
    headStyles: {
      fontStyle: "normal",
      fontSize: SIZES.label,
      textColor: [...COLORS.muted],
      cellPadding: { bottom: 5 },
    },
    head: [[layout.labels.notes]],
    body: paragraphs,
  });
  return last_autotable_end(layout.doc);
}
