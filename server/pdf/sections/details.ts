/**
 * The details column beside the parties: the amount due (or credited) in
 * the brand colour, then the invoice's facts as a compact label/value
 * grid — number, corrected invoices, dates (issue, due, delivery, period,
 * tax point) and the references to other documents (BT-10 … BT-19).
 *
 * @module
 */

import type { Labels } from "../locales.ts";
import { sanitize_text } from "../sanitize.ts";
import {
  is_credit_note,
  type Layout,
  present,
  single_line,
} from "../layout.ts";
import type { KeyValue } from "../key_values.ts";
import { draw_table_rows, table_cell, table_row } from "../table.ts";
import { draw_text, fit_line, text_width } from "../draw.ts";
import { has_payment_block } from "./payment.ts";
import {
  FACT_LABEL,
  FACT_VALUE,
  HEADER,
  KEY_VALUES,
  LINE_HEIGHT_FACTOR,
  SIZES,
  TEXT,
} from "../styles.ts";

/** Offset and width of the details column in the content box. */
export function details_column(layout: Layout): {
  offset: number;
  width: number;
} {
  const offset = 2 * layout.width * HEADER.party_share + HEADER.details_gap;
  return { offset, width: layout.width - offset };
}

/** Draws the column from `top`; returns the y below it. */
export function draw_details(layout: Layout, top: number): number {
  const { offset, width } = details_column(layout);
  const y = draw_amount_due(layout, top, { offset, width });
  const facts = detail_rows(layout);
  const widest = Math.max(
    0,
    ...facts.map(([name]) => text_width(layout, name, TEXT.label)),
  );
  const label_width = Math.min(
    width * HEADER.facts_label_share,
    widest + KEY_VALUES.label_gap,
  );
  // Through the table engine: a few operators a cell.
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
  return draw_table_rows(context, rows, {
    left: layout.x(offset, width),
    top: y + HEADER.facts_gap,
  });
}

/** The amount due with its label; returns the y below the amount. */
function draw_amount_due(
  layout: Layout,
  top: number,
  { offset, width }: { offset: number; width: number },
): number {
  const { invoice, labels, formats } = layout;
  const x = layout.x(offset, width);
  const credit = is_credit_note(invoice);
  draw_text(layout, credit ? labels.amount_credited : labels.amount_due, {
    x,
    y: top + HEADER.amount_label_baseline,
    style: TEXT.label,
  });
  const amount = formats.money(invoice.amount_due ?? invoice.total);
  let size: number = TEXT.amount_due.size;
  const natural = text_width(layout, amount, { bold: true, size });
  if (natural > width) {
    size = Math.max(HEADER.amount_min_size, (size * width) / natural);
  }
  const baseline = top + HEADER.amount_label_baseline +
    SIZES.label * (LINE_HEIGHT_FACTOR - 1) + HEADER.amount_gap + size;
  draw_text(layout, fit_line(layout, amount, width, { bold: true, size }), {
    x,
    y: baseline,
    style: { ...TEXT.amount_due, color: layout.brand.text },
    size,
  });
  return baseline + size * (LINE_HEIGHT_FACTOR - 1);
}

/** A date range "start – end" in the locale's date format. */
function period(layout: Layout, range: { start: string; end: string }): string {
  return `${layout.formats.date(range.start)} \u2013 ${
    layout.formats.date(range.end)
  }`;
}

/** Label and value rows of the column. */
function detail_rows(layout: Layout): KeyValue[] {
  const { invoice, labels, formats } = layout;
  const credit = is_credit_note(invoice);
  const rows: KeyValue[] = [[
    credit ? labels.credit_note_number : labels.invoice_number,
    single_line(invoice.invoice_number),
  ]];
  if (present(invoice.preceding_invoice_number)) {
    rows.push([
      labels.preceding_invoice,
      single_line(invoice.preceding_invoice_number),
    ]);
  }
  for (const preceding of invoice.preceding_invoices ?? []) {
    const date = preceding.date !== undefined
      ? ` (${formats.date(preceding.date)})`
      : "";
    rows.push([labels.preceding_invoice, single_line(preceding.number) + date]);
  }
  rows.push([labels.issue_date, formats.date(single_line(invoice.date))]);
  // A credit note is not paid by the buyer: no due date on it.
  if (!credit) {
    rows.push([labels.due_date, formats.date(single_line(invoice.due_date))]);
  }
  if (invoice.delivery_date !== undefined) {
    rows.push([labels.delivery_date, formats.date(invoice.delivery_date)]);
  }
  if (invoice.billing_period !== undefined) {
    rows.push([labels.billing_period, period(layout, invoice.billing_period)]);
  }
  if (invoice.tax_point_date !== undefined) {
    rows.push([labels.tax_point_date, formats.date(invoice.tax_point_date)]);
  }
  const references: [keyof Labels, string | undefined][] = [
    ["purchase_order", invoice.purchase_order],
    ["buyer_reference", invoice.buyer_reference],
    ["contract_reference", invoice.contract_reference],
    ["project_reference", invoice.project_reference],
    ["sales_order_reference", invoice.sales_order_reference],
    ["receiving_advice_reference", invoice.receiving_advice_reference],
    ["despatch_advice_reference", invoice.despatch_advice_reference],
    ["tender_reference", invoice.tender_reference],
    ["invoiced_object", invoice.invoiced_object?.id],
    ["accounting_reference", invoice.accounting_reference],
  ];
  // Without a payment box the terms stay with the details.
  if (!has_payment_block(invoice)) {
    references.push(["payment_terms", invoice.payment_terms]);
  }
  for (const [key, value] of references) {
    if (present(value)) rows.push([labels[key], sanitize_text(value).trim()]);
  }
  return rows;
}
