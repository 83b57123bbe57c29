/**
 * The tax breakdown (EN 16931 BG-23): per (category, rate) group the rate,
 * the taxable amount and the tax; non-standard groups name their category
 * and exempt ones print the exemption reason. It is laid out as a block
 * that the items table keeps on the page of its totals (`items.ts`): beside
 * them when there is room, else under them.
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

/**
 * Money columns as wide as their widest entry, and as their header up to
 * `TAX_BREAKDOWN.money_header_max` (longer headers wrap).
 */
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
      Math.min(
        TAX_BREAKDOWN.money_header_max,
        text_width(layout, header, TEXT.label) + 2 * CELL_PADDING.x,
      ),
    );
  }
  return width;
}

/** The header's lines per column: wrapped to the columns' widths. */
function head_lines(
  layout: Layout,
  headers: readonly string[],
  first_width: number,
  money: number,
): string[][] {
  return headers.map((header, i) =>
    wrap(
      layout,
      header,
      Math.max(1, i === 0 ? first_width : money - CELL_PADDING.x),
      TEXT.label,
    )
  );
}

/** The header row with its rule, from `top`; returns the rule's y. */
function draw_head(
  layout: Layout,
  headers: readonly string[][],
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
  const lines = Math.max(...headers.map((h) => h.length));
  const rule = top + lines * SIZES.label * LINE_HEIGHT_FACTOR +
    TAX_BREAKDOWN.head_gap;
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

/** A breakdown laid out in a box: its height and how to draw it. */
export interface PlannedBreakdown {
  height: number;
  /** The first column's width (rate and category). */
  first_width: number;
  /** The widest word of that column. */
  widest_word: number;
  /** Draws it with its top at `top`, `offset` into the content box; returns the y below. */
  draw(top: number, offset: number): number;
}

/** Lays out the breakdown in a box `width` wide. */
export function plan_tax_breakdown(
  layout: Layout,
  width: number,
): PlannedBreakdown {
  const line_height = SIZES.body * LINE_HEIGHT_FACTOR;
  const label_line = SIZES.label * LINE_HEIGHT_FACTOR;
  const headers = [
    label(layout, "tax_rate"),
    label(layout, "taxable_amount"),
    label(layout, "tax_amount"),
  ];
  const rows = breakdown_rows(layout);
  const money = money_width(layout, rows, headers);
  const first_width = width - 2 * money - CELL_PADDING.x;
  const head = head_lines(layout, headers, first_width, money);
  const measured = rows.map((row) => {
    const first = wrap(layout, row.first, Math.max(1, first_width), TEXT.body);
    const reason = row.reason === undefined
      ? []
      : wrap(layout, row.reason, width, TEXT.label);
    const height = TAX_BREAKDOWN.row_padding + first.length * line_height +
      (reason.length > 0
        ? reason.length * label_line + TAX_BREAKDOWN.reason_gap
        : 0);
    return { row, first, reason, height };
  });
  const head_height = Math.max(...head.map((h) => h.length)) * label_line +
    TAX_BREAKDOWN.head_gap;
  const height = head_height + measured.reduce((sum, m) => sum + m.height, 0);
  // The widest word of the first column: a narrower column cuts words.
  let widest_word = 0;
  for (const row of rows) {
    for (const word of row.first.split(" ")) {
      widest_word = Math.max(widest_word, text_width(layout, word, TEXT.body));
    }
  }
  return {
    height,
    first_width,
    widest_word,
    draw(top: number, offset: number): number {
      const x = layout.x(offset, width);
      const columns: Columns = {
        x,
        width,
        taxable_right: x + width - money - CELL_PADDING.x,
        tax_right: x + width,
      };
      let y = draw_head(layout, head, columns, top);
      for (const m of measured) {
        draw_row(layout, m, columns, y);
        y += m.height;
      }
      return y;
    },
  };
}

/** Draws one group's row with its top at `y`. */
function draw_row(
  layout: Layout,
  m: { row: BreakdownRow; first: string[]; reason: string[] },
  columns: Columns,
  y: number,
): void {
  const line_height = SIZES.body * LINE_HEIGHT_FACTOR;
  const baseline = y + TAX_BREAKDOWN.row_top + SIZES.body * BASELINE_FACTOR;
  draw_text(layout, m.first, { x: columns.x, y: baseline, style: TEXT.body });
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
      x: columns.x,
      y: y + TAX_BREAKDOWN.row_top + m.first.length * line_height +
        SIZES.label * BASELINE_FACTOR,
      style: TEXT.label,
    });
  }
}
