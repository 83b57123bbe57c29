/**
 * The totals under the items: subtotal; discounts and charges; total
 * without tax and total tax when the invoice has tax; the total; amount
 * paid and the rounding amount, and the amount due after them; under them
 * the tax total in the tax currency when the invoice gives one. They are
 * the items table's footer (see `items.ts`), so they stay with its last
 * row.
 *
 * @module
 */

import type { AllowanceCharge } from "../../../contract/invoice_types.ts";
import { sanitize_text } from "../sanitize.ts";
import { fill } from "../locales.ts";
import { formats_for } from "../locale_format.ts";
import { is_credit_note, label, type Layout } from "../layout.ts";
import { isolated, text_width } from "../draw.ts";
import { table_cell, table_row, type TableRow } from "../table.ts";
import { CELL_PADDING, SIZES, TOTAL_CELLS, type TotalKind } from "../styles.ts";

/** One row of the totals. */
export interface TotalRow {
  label: string;
  value: string;
  /**
   * "strong": bold, larger, strong rule above (the total, the amount due);
   * "note": `label` alone across label and value.
   */
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
  rows.push(...due_rows(layout));
  const in_tax_currency = tax_currency_note(layout);
  if (in_tax_currency !== undefined) rows.push(in_tax_currency);
  return rows;
}

/**
 * Amount paid (BT-113) and rounding (BT-114) when given, and then the
 * amount due (BT-115).
 */
function due_rows(layout: Layout): TotalRow[] {
  const { invoice, formats, labels } = layout;
  const { amount_paid, rounding_amount, amount_due } = invoice;
  if (
    amount_due === undefined ||
    (amount_paid === undefined && rounding_amount === undefined)
  ) {
    return [];
  }
  const rows: TotalRow[] = [];
  if (amount_paid !== undefined) {
    rows.push({
      label: labels.amount_paid,
      value: formats.money(negated(amount_paid)),
      kind: "plain",
    });
  }
  if (rounding_amount !== undefined) {
    rows.push({
      label: labels.rounding,
      value: formats.money(rounding_amount),
      kind: "plain",
    });
  }
  rows.push({
    label: is_credit_note(invoice) ? labels.amount_credited : labels.amount_due,
    value: formats.money(amount_due),
    kind: "strong",
  });
  return rows;
}

/** "VAT in USD: US$55.12" (BT-6, BT-111), when the invoice gives it. */
function tax_currency_note(layout: Layout): TotalRow | undefined {
  const { invoice } = layout;
  const { tax_currency, tax_total_in_tax_currency } = invoice;
  if (tax_currency === undefined || tax_total_in_tax_currency === undefined) {
    return undefined;
  }
  const money = formats_for(invoice.locale, tax_currency).money;
  return {
    label: fill(label(layout, "tax_in_currency"), {
      currency: isolated(layout, tax_currency),
      amount: isolated(layout, money(tax_total_in_tax_currency)),
    }),
    value: "",
    kind: "note",
  };
}

/** Width the `part` (label or value) of `rows` needs on one line, with the cell's padding. */
function totals_part_width(
  layout: Layout,
  rows: readonly TotalRow[],
  part: "label" | "value",
): number {
  let width = 0;
  for (const row of rows) {
    if (row.kind === "note") continue;
    width = Math.max(
      width,
      row.kind === "strong"
        ? text_width(layout, row[part], { bold: true, size: SIZES.total })
        : text_width(layout, row[part], { bold: false, size: SIZES.body }),
    );
  }
  return width + 2 * CELL_PADDING.x;
}

/** Width the values of `rows` need, with the cell's padding. */
export function totals_value_width(
  layout: Layout,
  rows: readonly TotalRow[],
): number {
  return totals_part_width(layout, rows, "value");
}

/** Width the labels of `rows` need on one line, with the cell's padding. */
export function totals_label_width(
  layout: Layout,
  rows: readonly TotalRow[],
): number {
  return totals_part_width(layout, rows, "label");
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
    if (total.kind === "note") {
      return table_row([
        table_cell(context, "", { width: widths[0], style: empty }),
        table_cell(context, total.label, {
          width: label_width + widths[last],
          style: label_style,
        }),
      ]);
    }
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
