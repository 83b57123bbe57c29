/**
 * The tax breakdown (EN 16931 BG-23): per (category, rate) group the rate,
 * the taxable amount and the tax; non-standard groups name their category
 * and exempt ones print the exemption reason. A short breakdown moves to
 * the next page whole; a long one repeats its header.
 *
 * @module
 */

import type { TaxCategory } from "../../../contract/invoice_types.ts";
import type { Labels } from "../locales.ts";
import { sanitize_text } from "../sanitize.ts";
import { label, type Layout, present } from "../layout.ts";
import { draw_rule, draw_text, text_width, wrap } from "../draw.ts";
import {
  BASELINE_FACTOR,
  CELL_PADDING,
  LINE_HEIGHT_FACTOR,
  MARGINS,
  SIZES,
  TAX_BREAKDOWN,
  TEXT,
} from "../styles.ts";

/** One group of the breakdown, as printed. */
interface BreakdownRow {
  /** The rate and, for categories other than S, the category's name. */
  first: string;
  taxable: string;
  tax: string;
  reason?: string;
}

/** Where the columns are. */
interface Columns {
  x: number;
  width: number;
  taxable_right: number;
  tax_right: number;
}

/** A tax category other than S as words, or "" for S. */
function category_name(layout: Layout, category: TaxCategory): string {
  return category === "S"
    ? ""
    : label(layout, `category_${category}` as keyof Labels);
}

function breakdown_rows(layout: Layout): BreakdownRow[] {
  const { invoice, formats } = layout;
  return (invoice.tax_breakdown ?? []).map((row) => {
    const name = category_name(layout, row.category);
    const reason = row.exemption_reason ??
      (row.category !== "S" && row.category !== "Z"
        ? invoice.tax_exemption_reason
        : undefined);
    return {
      first: [formats.percent(row.rate), name].filter((v) => v !== "")
        .join(" \u00B7 "),
      taxable: formats.money(row.taxable_amount),
      tax: formats.money(row.tax_amount),
      reason: present(reason) ? sanitize_text(reason).trim() : undefined,
    };
  });
}

/** Money columns as wide as their widest entry or header. */
function money_width(
  layout: Layout,
  rows: readonly BreakdownRow[],
  headers: readonly string[],
): number {
  let width: number = TAX_BREAKDOWN.money_min;
  for (const row of rows) {
    for (const value of [row.taxable, row.tax]) {
      width = Math.max(
        width,
        text_width(layout, value, TEXT.body) + 2 * CELL_PADDING.x,
      );
    }
  }
  for (const header of headers.slice(1)) {
    width = Math.max(
      width,
      text_width(layout, header, TEXT.label) + 2 * CELL_PADDING.x,
    );
  }
  return width;
}

/** The header row with its rule, from `top`; returns the rule's y. */
function draw_head(
  layout: Layout,
  headers: readonly string[],
  { x, width, taxable_right, tax_right }: Columns,
  top: number,
): number {
  const baseline = top + SIZES.label * BASELINE_FACTOR;
  const style = TEXT.label;
  draw_text(layout, headers[0], { x, y: baseline, style });
  draw_text(layout, headers[1], {
    x: taxable_right,
    y: baseline,
    style,
    align: "right",
  });
  draw_text(layout, headers[2], {
    x: tax_right,
    y: baseline,
    style,
    align: "right",
  });
  const rule = top + SIZES.label * LINE_HEIGHT_FACTOR + TAX_BREAKDOWN.head_gap;
  const [rule_width, rule_color] = TAX_BREAKDOWN.head_rule;
  draw_rule(layout, {
    x1: x,
    x2: x + width,
    y: rule,
    width: rule_width,
    color: rule_color,
  });
  return rule;
}

/** Draws the breakdown from `top`; returns the y below it. */
export function draw_tax_breakdown(layout: Layout, top: number): number {
  const { doc } = layout;
  const width = layout.width;
  const x = layout.x(0, width);
  const limit = layout.bottom;
  const line_height = SIZES.body * LINE_HEIGHT_FACTOR;
  const label_line = SIZES.label * LINE_HEIGHT_FACTOR;
  const headers = [
    label(layout, "tax_rate"),
    label(layout, "taxable_amount"),
    label(layout, "tax_amount"),
  ];
  const rows = breakdown_rows(layout);
  const money = money_width(layout, rows, headers);
  const columns: Columns = {
    x,
    width,
    taxable_right: x + width - money - CELL_PADDING.x,
    tax_right: x + width,
  };
  const first_width = width - 2 * money - CELL_PADDING.x;
  // Measure first: a short table moves to the next page whole.
  const measured = rows.map((row) => {
    const first = wrap(layout, row.first, first_width, TEXT.body);
    const reason = row.reason === undefined
      ? []
      : wrap(layout, row.reason, width, TEXT.label);
    const height = TAX_BREAKDOWN.row_padding + first.length * line_height +
      (reason.length > 0
        ? reason.length * label_line + TAX_BREAKDOWN.reason_gap
        : 0);
    return { row, first, reason, height };
  });
  const head_height = label_line + TAX_BREAKDOWN.head_gap;
  const total = head_height + measured.reduce((sum, m) => sum + m.height, 0);
  let y = top;
  if (y + total > limit && total <= limit - MARGINS.top) {
    doc.addPage();
    y = MARGINS.top;
  }
  y = draw_head(layout, headers, columns, y);
  for (const m of measured) {
    if (y + m.height > limit) {
      doc.addPage();
      y = draw_head(layout, headers, columns, MARGINS.top);
    }
    const baseline = y + TAX_BREAKDOWN.row_top + SIZES.body * BASELINE_FACTOR;
    draw_text(layout, m.first, { x, y: baseline, style: TEXT.body });
    for (
      const [value, right] of [
        [m.row.taxable, columns.taxable_right],
        [m.row.tax, columns.tax_right],
      ] as const
    ) {
      draw_text(layout, value, {
        x: right,
        y: baseline,
        style: TEXT.body,
        align: "right",
      });
    }
    if (m.reason.length > 0) {
      draw_text(layout, m.reason, {
        x,
        y: y + TAX_BREAKDOWN.row_top + m.first.length * line_height +
          SIZES.label * BASELINE_FACTOR,
        style: TEXT.label,
      });
    }
    y += m.height;
  }
  return y;
}
