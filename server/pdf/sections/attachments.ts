/**
 * The supporting documents (BG-24) under everything else: a heading and a
 * line per document — its file name, or its link, or its reference, and
 * its description. The files' data stays in the e-invoice XML.
 *
 * @module
 */

import type { InvoiceAttachment } from "../../../contract/invoice_types.ts";
import { type Layout, present, single_line } from "../layout.ts";
import { draw_flowing_table, table_cell, table_row } from "../table.ts";
import { NOTES_BODY, NOTES_HEAD } from "../styles.ts";

/** Whether the invoice lists supporting documents. */
export function has_attachments(layout: Layout): boolean {
  return (layout.invoice.attachments ?? []).length > 0;
}

/** "stunden.pdf – Stundenzettel": the name of the document and what it is. */
function attachment_line(attachment: InvoiceAttachment): string {
  const name = [attachment.filename, attachment.url, attachment.id]
    .find(present) ?? "";
  const parts = [name, attachment.description].filter(present).map(
    single_line,
  );
  return parts.join(" \u2013 ");
}

/** Draws the list from `top` across the page; returns the y below it. */
export function draw_attachments(layout: Layout, top: number): number {
  const { width } = layout;
  const context = layout.table;
  const cell = (text: string, style: typeof NOTES_BODY) =>
    table_row([table_cell(context, text, { width, style })]);
  const body = (layout.invoice.attachments ?? []).map((attachment) =>
    cell(attachment_line(attachment) || " ", NOTES_BODY)
  );
  return draw_flowing_table(context, body, {
    left: layout.x(0, width),
    top,
    head: cell(layout.labels.attachments, NOTES_HEAD),
    split: "fill",
  });
}
