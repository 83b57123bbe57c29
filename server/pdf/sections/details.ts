/**
 * The invoice details under the title: number, the corrected invoice of a
 * credit note, issue and due dates, purchase order, buyer reference and
 * payment terms.
 *
 * @module
 */

import { type Labels } from "../locales.ts";
import { sanitize_text } from "../sanitize.ts";
import {
  is_credit_note,
  type Layout,
  present,
  single_line,
} from "../layout.ts";
import { type KeyValue, label_column_width } from "../key_values.ts";
import { draw_flowing_table, table_cell, table_row } from "../table.ts";
import { FACT_LABEL, FACT_VALUE, HEADER } from "../styles.ts";

/**
 * Draws the details from `top` as a two-column table (labels as wide as the
 * widest needs, within bounds); details taller than the page continue on
 * the next. Returns the y below them.
 */
export function draw_details(layout: Layout, top: number): number {
  const facts = detail_rows(layout);
  const width = layout.width * HEADER.left_share;
  const label_width = label_column_width(layout, facts);
  const context = layout.table;
  const rows = facts.map(([name, value]) =>
    table_row([
      table_cell(context, name, { width: label_width, style: FACT_LABEL }),
      table_cell(context, value, {
        width: width - label_width,
        style: FACT_VALUE,
      }),
    ])
  );
  return draw_flowing_table(context, rows, {
    left: layout.x(0, width),
    top,
    split: "fill",
  });
}

/** Label and value rows under the title. */
function detail_rows(layout: Layout): KeyValue[] {
  const { invoice, labels, formats } = layout;
  const credit = is_credit_note(invoice);
  const rows: KeyValue[] = [
    [
      credit ? labels.credit_note_number : labels.invoice_number,
      single_line(invoice.invoice_number),
    ],
  ];
  if (credit && present(invoice.preceding_invoice_number)) {
    rows.push([
      labels.preceding_invoice,
      single_line(invoice.preceding_invoice_number),
    ]);
  }
  rows.push([labels.issue_date, formats.date(single_line(invoice.date))]);
  // A credit note is not paid by the buyer: no due date on it.
  if (!credit) {
    rows.push([labels.due_date, formats.date(single_line(invoice.due_date))]);
  }
  const optional: [keyof Labels, string | undefined][] = [
    ["purchase_order", invoice.purchase_order],
    ["buyer_reference", invoice.buyer_reference],
    ["payment_terms", invoice.payment_terms],
  ];
  for (const [key, value] of optional) {
    if (present(value)) rows.push([labels[key], sanitize_text(value).trim()]);
  }
  return rows;
}
