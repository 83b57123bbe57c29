/**
 * The notes under everything else: a heading, the paragraphs of the
 * invoice's notes and its further notes (BT-22, after their subject code
 * BT-21); long notes continue on further pages.
 *
 * @module
 */

import { sanitize_text } from "../sanitize.ts";
import type { Layout } from "../layout.ts";
import {
  draw_flowing_table,
  draw_table_rows,
  rows_height,
  table_cell,
  table_row,
  type TableRow,
} from "../table.ts";
import { NOTES_BODY, NOTES_HEAD } from "../styles.ts";

/** Whether the invoice has notes to print. */
export function has_notes(layout: Layout): boolean {
  return paragraphs(layout).length > 0;
}

// Each document's paragraphs, made once: the layout asks for them up to
// four times (whether there are notes, whether they fit beside the totals,
// drawing them).
const paragraphs_of = new WeakMap<Layout, string[]>();

/** The paragraphs: `notes` line by line, then each further note. */
function paragraphs(layout: Layout): string[] {
  let out = paragraphs_of.get(layout);
  if (out === undefined) {
    out = note_paragraphs(layout.invoice);
    paragraphs_of.set(layout, out);
  }
  return out;
}

function note_paragraphs(invoice: Layout["invoice"]): string[] {
  const { notes, additional_notes = [] } = invoice;
  const out = notes !== undefined && notes.trim() !== ""
    ? sanitize_text(notes).split("\n")
    : [];
  for (const note of additional_notes) {
    if (note.text.trim() === "") continue;
    const code = note.subject_code !== undefined && note.subject_code !== ""
      ? `${sanitize_text(note.subject_code).trim()}: `
      : "";
    out.push(...(code + sanitize_text(note.text).trim()).split("\n"));
  }
  return out;
}

/** The notes as table rows `width` wide: the heading and the paragraphs. */
function note_rows(
  layout: Layout,
  width: number,
): { head: TableRow; body: TableRow[] } {
  const context = layout.table;
  const cell = (text: string, style: typeof NOTES_BODY) =>
    table_row([table_cell(context, text, { width, style })]);
  return {
    head: cell(layout.labels.notes, NOTES_HEAD),
    body: paragraphs(layout).map((text) =>
      cell(text === "" ? " " : text, NOTES_BODY)
    ),
  };
}

/**
 * The notes laid out in a box `width` wide, for a place beside the
 * totals: their height and how to draw them there (never split).
 */
export function plan_side_notes(
  layout: Layout,
  width: number,
): { height: number; draw(top: number, offset: number): number } {
  const { head, body } = note_rows(layout, width);
  return {
    height: head.height + rows_height(body),
    draw: (top, offset) =>
      draw_table_rows(layout.table, [head, ...body], {
        left: layout.x(offset, width),
        top,
      }),
  };
}

/**
 * Draws the notes from `top` across the page; returns the y below them.
 * Notes already drawn beside the totals are not drawn again.
 */
export function draw_notes(layout: Layout, top: number): number {
  const { width } = layout;
  const { head, body } = note_rows(layout, width);
  // Long notes continue on further pages, split between lines.
  return draw_flowing_table(layout.table, body, {
    left: layout.x(0, width),
    top,
    head,
    split: "fill",
  });
}
