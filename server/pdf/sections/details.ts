/**
 * The invoice details under the title: number, the corrected invoice of a
 * credit note, issue and due dates, purchase order, buyer reference and
 * payment terms.
 *
 * @module
 */

import { autoTable } from "jspdf-autotable";
import { type Labels } from "../locales.ts";
import { sanitize_text } from "../sanitize.ts";
import {
  fits_on_page,
  is_credit_note,
  type Layout,
  present,
  single_line,
} from "../layout.ts";
import {
  draw_key_values,
  type KeyValue,
  label_column_width,
} from "../key_values.ts";
import {
  draw_table_rows,
  rows_height,
  table_cell,
  table_row,
} from "../direct_table.ts";
import { base_styles, PAGE_MARGIN } from "../autotable_fallback.ts";
import { last_autotable_end } from "../jspdf_fence.ts";
import {
  FACT_LABEL,
  FACT_VALUE,
  HEADER,
  KEY_VALUES,
  MARGINS,
  SIZES,
} from "../styles.ts";

/** Draws the details from `top`; returns the y below them. */
export function draw_details(layout: Layout, top: number): number {
  const facts = detail_rows(layout);
  const width = layout.width * HEADER.left_share;
  if (!layout.legacy) {
    return draw_key_values(layout, facts, {
      top,
      offset: 0,
      width,
      label_width: label_column_width(layout, facts),
    });
  }
  const label_width = KEY_VALUES.label_min;
  const context = layout.table;
  const fact_rows = facts.map(([name, value]) =>
    table_row([
      table_cell(context, name, { width: label_width, style: FACT_LABEL }),
      table_cell(context, value, {
        width: width - label_width,
        style: FACT_VALUE,
      }),
    ])
  );
  if (fits_on_page(layout, top, rows_height(fact_rows))) {
    return draw_table_rows(context, fact_rows, { left: MARGINS.x, top });
  }
  autoTable(layout.doc, {
    theme: "plain",
    startY: top,
    margin: { ...PAGE_MARGIN, right: MARGINS.x + layout.width * 0.45 },
    tableWidth: width,
    styles: base_styles({ cellPadding: { top: 1.5, bottom: 1.5 } }),
    columnStyles: {
      0: {
        cellWidth: label_width,
        textColor: [...FACT_LABEL.color],
        fontSize: SIZES.label,
        // Smaller labels sit lower so they share the values' baseline.
        cellPadding: {
          top: 1.5 + (SIZES.body - SIZES.label) * 0.85,
          bottom: 1.5,
        },
      },
      1: { cellWidth: width - label_width },
    },
    body: facts.map(([name, value]) => [name, value]),
  });
  return last_autotable_end(layout.doc);
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
