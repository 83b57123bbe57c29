/**
 * The notes under everything else: a heading and the paragraphs of the
 * invoice's notes; long notes continue on further pages.
 *
 * @module
 */

import { sanitize_text } from "../sanitize.ts";
import type { Layout } from "../layout.ts";
import { draw_flowing_table, table_cell, table_row } from "../table.ts";
import { NOTES_BODY, NOTES_HEAD } from "../styles.ts";

/** Whether the invoice has notes to print. */
export function has_notes(layout: Layout): boolean {
  const notes = layout.invoice.notes;
  return notes !== undefined && notes.trim() !== "";
}

/** Draws the notes from `top`; returns the y below them. */
export function draw_notes(layout: Layout, top: number): number {
  const { invoice, width } = layout;
  const paragraphs = sanitize_text(invoice.notes ?? "").split("\n");
  const context = layout.table;
  const cell = (text: string, style: typeof NOTES_BODY) =>
    table_row([table_cell(context, text, { width, style })]);
  // Long notes continue on further pages, split between lines.
  return draw_flowing_table(
    context,
    paragraphs.map((text) => cell(text === "" ? " " : text, NOTES_BODY)),
    {
      left: layout.x(0, width),
      top,
      head: cell(layout.labels.notes, NOTES_HEAD),
      split: "fill",
    },
  );
}
