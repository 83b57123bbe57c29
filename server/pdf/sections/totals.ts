/**
 * The totals under the items: subtotal; discounts and charges; total
 * without tax and total tax when the invoice has tax; the total; amount
 * paid and amount due when something was paid. They are the items table's
 * footer (see `items.ts`), so they stay with its last row.
 *
 * @module
 */

import type { AllowanceCharge } from "../../../contract/invoice_types.ts";
import { sanitize_text } from "../sanitize.ts";
import { is_credit_note, label, type Layout } from "../layout.ts";
import { text_width } from "../draw.ts";
import { table_cell, table_row, type TableRow } from "../table.ts";
import { CELL_PADDING, SIZES, TOTAL_CELLS, type TotalKind } from "../styles.ts";

/** One row of the totals. */
export interface TotalRow {
  label: string;
  value: string;
  /** "strong": bold, larger, strong rule above (the total, the amount due). */
  kind: TotalKind;
}

/** The amount with its sign flipped ("20.00" → "-20.00"), as text. */
function negated(value: string): string {
  if (value.startsWith("-")) return value.slice(1);
  return /^0(\.0+)?$/.test(value) ? value : `-${value}`;
}

/**
 * The totals rows. An invoice without tax, discounts, charges or payments
 * gets subtotal and total only.
 */
export function total_rows(layout: Layout): TotalRow[] {
  const { invoice, formats } = layout;
  const rows: TotalRow[] = [{
    label: layout.labels.subtotal,
    value: formats.money(invoice.subtotal),
    kind: "first",
  }];
  const adjustment = (entry: AllowanceCharge, sign: 1 | -1): TotalRow => ({
    label: sanitize_text(entry.description).trim() +
      (entry.percent !== undefined
        ? ` (${formats.percent(entry.percent)})`
        : ""),
    value: formats.money(sign < 0 ? negated(entry.amount) : entry.amount),
    kind: "plain",
  });
  for (const entry of invoice.discounts ?? []) {
    rows.push(adjustment(entry, -1));
  }
  for (const entry of invoice.charges ?? []) rows.push(adjustment(entry, 1));
  const has_tax = invoice.has_tax === true;
  if (has_tax && invoice.total_without_tax !== undefined) {
    rows.push({
      label: label(layout, "total_without_tax"),
      value: formats.money(invoice.total_without_tax),
      kind: "plain",
    });
  }
  if (has_tax && invoice.tax_total !== undefined) {
    rows.push({
      label: label(layout, "tax_total"),
      value: formats.money(invoice.tax_total),
      kind: "plain",
    });
  }
  rows.push({
    label: label(layout, has_tax ? "total_with_tax" : "total"),
    value: formats.money(invoice.total),
    kind: "strong",
  });
  if (invoice.amount_paid !== undefined && invoice.amount_due !== undefined) {
    rows.push({
      label: layout.labels.amount_paid,
      value: formats.money(negated(invoice.amount_paid)),
      kind: "plain",
    }, {
      label: is_credit_note(invoice)
        ? layout.labels.amount_credited
        : layout.labels.amount_due,
      value: formats.money(invoice.amount_due),
      kind: "strong",
    });
  }
  return rows;
}

/** Width the values of `rows` need, with the cell's padding. */
export function totals_value_width(
  layout: Layout,
  rows: readonly TotalRow[],
): number {
  let width = 0;
  for (const row of rows) {
    width = Math.max(
      width,
      row.kind === "strong"
        ? text_width(layout, row.value, { bold: true, size: SIZES.total })
        : text_width(layout, row.value, { bold: false, size: SIZES.body }),
    );
  }
  return width + 2 * CELL_PADDING.x;
}

/** Width the labels of `rows` need on one line, with the cell's padding. */
export function totals_label_width(
  layout: Layout,
  rows: readonly TotalRow[],
): number {
  let width = 0;
  for (const row of rows) {
    width = Math.max(
      width,
      row.kind === "strong"
        ? text_width(layout, row.label, { bold: true, size: SIZES.total })
        : text_width(layout, row.label, { bold: false, size: SIZES.body }),
    );
  }
  return width + 2 * CELL_PADDING.x;
}

/**
 * The totals as table rows under columns of `widths`: an empty cell under
 * the first column, the label across the middle ones, the value in the
 * last.
 */
export function totals_table_rows(
  layout: Layout,
  rows: readonly TotalRow[],
  widths: readonly number[],
): TableRow[] {
  const context = layout.table;
  const last = widths.length - 1;
  let label_width = 0;
  for (let i = 1; i < last; i++) label_width += widths[i];
  return rows.map((total) => {
    const [empty, label_style, value_style] = TOTAL_CELLS[total.kind];
    return table_row([
      table_cell(context, "", { width: widths[0], style: empty }),
      table_cell(context, total.label, {
        width: label_width,
        style: label_style,
      }),
      table_cell(context, total.value, {
        width: widths[last],
        style: value_style,
      }),
    ]);
  });
}
