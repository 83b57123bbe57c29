/**
 * The items table: description (with the item's details under its name),
 * quantity, unit (when any item has one), unit price, tax rate (when the
 * invoice has tax) and amount, with the totals as its footer on the right
 * and the tax breakdown beside them (or under them when there is no room
 * beside). The header repeats on every page, a row that does not fit moves
 * whole to the next page, and the last row moves together with the totals
 * and the breakdown, so neither stands alone at the top of a page; only a
 * row taller than a page is split.
 *
 * @module
 */

import type { InvoiceLineItem } from "../../../contract/invoice_types.ts";
import { unit_name } from "../locales.ts";
import { sanitize_text } from "../sanitize.ts";
import { label, type Layout, present, single_line } from "../layout.ts";
import { text_width, write_page_content } from "../draw.ts";
import {
  draw_flowing_table,
  rows_height,
  table_cell,
  table_row,
  type TableBody,
  type TableRow,
} from "../table.ts";
import { item_details } from "./item_details.ts";
import { has_notes, plan_side_notes } from "./notes.ts";
import { plan_tax_breakdown, type PlannedBreakdown } from "./tax_breakdown.ts";
import { MAX_PAGES, PageLimitError } from "../page_budget.ts";
import { pdf_number } from "../pdf_syntax.ts";
import {
  CELL_PADDING,
  ITEM_CELLS,
  ITEM_COLUMN_MIN,
  ITEM_ROW_RULE,
  SIZES,
  TOTALS,
} from "../styles.ts";
import {
  total_rows,
  type TotalRow,
  totals_label_width,
  totals_table_rows,
  totals_value_width,
} from "./totals.ts";

/** A column of the items table. */
export interface ItemColumn {
  header: string;
  /** Minimum width (pt); numeric columns grow to their widest entry. */
  minimum: number;
  /** Description is left-aligned and takes the remaining width. */
  numeric: boolean;
  cell(item: InvoiceLineItem): string;
}

/** The columns the invoice needs. */
function item_columns(layout: Layout): ItemColumn[] {
  const { labels, formats, invoice, texts } = layout;
  const columns: ItemColumn[] = [
    {
      header: labels.description,
      minimum: 0,
      numeric: false,
      cell: (item) =>
        item_details(layout, item, sanitize_text(item.description)),
    },
    {
      header: labels.quantity,
      minimum: ITEM_COLUMN_MIN.quantity,
      numeric: true,
      cell: (item) => formats.quantity(item.quantity),
    },
  ];
  if (invoice.items.some((item) => present(item.unit))) {
    columns.push({
      header: labels.unit,
      minimum: ITEM_COLUMN_MIN.unit,
      numeric: true,
      cell: (item) =>
        present(item.unit) ? unit_name(texts, single_line(item.unit)) : "",
    });
  }
  columns.push({
    header: labels.unit_price,
    minimum: ITEM_COLUMN_MIN.unit_price,
    numeric: true,
    cell: (item) => formats.price(item.rate),
  });
  if (invoice.has_tax === true) {
    columns.push({
      header: label(layout, "line_tax"),
      minimum: ITEM_COLUMN_MIN.tax_rate,
      numeric: true,
      cell: (item) =>
        item.tax_rate !== undefined ? formats.percent(item.tax_rate) : "",
    });
  }
  columns.push({
    header: labels.amount,
    minimum: ITEM_COLUMN_MIN.amount,
    numeric: true,
    cell: (item) => formats.amount(item.amount),
  });
  return columns;
}

/**
 * Widths of the numeric columns: as wide as their widest entry, so numbers
 * do not wrap; the description takes the rest. Only absurdly long numbers,
 * which would leave the description less than ~38% of the width, make the
 * numeric columns share that budget and wrap.
 */
function numeric_widths(
  layout: Layout,
  columns: readonly ItemColumn[],
  rows: readonly string[][],
  totals: readonly TotalRow[],
): number[] {
  const count = columns.length;
  const measure = (index: number): number => {
    const column = columns[index];
    let max = text_width(layout, column.header, {
      bold: false,
      size: SIZES.label,
    });
    for (const row of rows) {
      max = Math.max(
        max,
        text_width(layout, row[index], { bold: false, size: SIZES.body }),
      );
    }
    return Math.max(column.minimum, max + 2 * CELL_PADDING.x);
  };
  const totals_width = totals_value_width(layout, totals);
  const natural: number[] = [];
  for (let i = 1; i < count; i++) {
    natural.push(
      i === count - 1 ? Math.max(measure(i), totals_width) : measure(i),
    );
  }
  // Unit and tax columns take their room from the description.
  const budget = layout.width * (0.62 + 0.08 * (count - 4));
  const sum = natural.reduce((a, b) => a + b, 0);
  return sum <= budget ? natural : natural.map((w) => (w * budget) / sum);
}

/** The tax breakdown's place: beside the totals, under them, or none. */
interface BreakdownPlace {
  planned: PlannedBreakdown;
  beside: boolean;
  /** Offset into the content box. */
  offset: number;
}

/** Where the breakdown goes, given the width the totals leave at their side. */
function place_breakdown(
  layout: Layout,
  side_width: number,
): BreakdownPlace | undefined {
  const { invoice } = layout;
  if (invoice.has_tax !== true || invoice.tax_breakdown === undefined) {
    return undefined;
  }
  const beside = plan_tax_breakdown(layout, side_width);
  const room = layout.bottom - layout.page_top;
  if (
    beside.first_width >= TOTALS.breakdown_first_min &&
    beside.first_width >= beside.widest_word && beside.height < room / 2
  ) {
    return { planned: beside, beside: true, offset: 0 };
  }
  return {
    planned: plan_tax_breakdown(layout, layout.width),
    beside: false,
    offset: 0,
  };
}

/**
 * Draws the items table, the totals and the tax breakdown from `top`;
 * returns the y below.
 */
export function draw_items(layout: Layout, top: number): number {
  const columns = item_columns(layout);
  const rows = layout.invoice.items.map((item) =>
    columns.map((c) => c.cell(item))
  );
  const totals = total_rows(layout);
  const widths = numeric_widths(layout, columns, rows, totals);
  const { head, body, foot: total_rows_of_table, side_width } = table_rows(
    layout,
    { columns, rows, totals, widths },
  );
  // An empty row of air opens the foot, so the totals and the breakdown
  // beside them do not touch the last item.
  const foot = [{ cells: [], height: TOTALS.top_gap }, ...total_rows_of_table];
  const breakdown = place_breakdown(layout, side_width);
  const foot_height = rows_height(foot);
  const room = layout.bottom - layout.page_top;
  let foot_room: number | undefined;
  if (breakdown?.beside) {
    foot_room = TOTALS.top_gap + breakdown.planned.height;
  } else if (
    breakdown !== undefined &&
    foot_height + TOTALS.gap + breakdown.planned.height < room / 2
  ) {
    foot_room = foot_height + TOTALS.gap + breakdown.planned.height;
  }
  const left = layout.x(0, layout.width);
  const num = (value: number): string => pdf_number(value, 2);
  const rule = `q ${ROW_RULE_STROKE} ${ITEM_ROW_RULE[0]} w ${num(left)} `;
  const rule_end = ` m ${num(left + layout.width)} `;
  const end = draw_flowing_table(layout.table, body, {
    left,
    top,
    head,
    repeat_head: true,
    foot,
    split: "tall_only",
    decimals: 2,
    // The hairline under each row, written before its text.
    before_row: (row, y) => {
      const rule_y = num(layout.table.page_height - (y + row.height));
      write_page_content(layout, `${rule}${rule_y}${rule_end}${rule_y} l S Q`);
    },
    before_new_page: () => check_pages(layout),
    foot_room,
  });
  check_pages(layout);
  const foot_top = end - foot_height + TOTALS.top_gap;
  if (breakdown === undefined || breakdown.beside) {
    const side_end = breakdown?.planned.draw(foot_top, 0) ?? foot_top;
    const gap = breakdown === undefined ? 0 : TOTALS.notes_gap;
    place_notes_beside(layout, side_end + gap, end, side_width);
    return Math.max(end, side_end);
  }
  let y = end + TOTALS.gap;
  if (y + breakdown.planned.height > layout.bottom) {
    layout.doc.addPage();
    check_pages(layout);
    y = layout.page_top;
  }
  return breakdown.planned.draw(y, 0);
}

/**
 * Draws the notes in the room beside the totals, under the breakdown (from
 * `top`), when they fit there whole above `bottom`.
 */
function place_notes_beside(
  layout: Layout,
  top: number,
  bottom: number,
  width: number,
): void {
  if (!has_notes(layout)) return;
  const planned = plan_side_notes(layout, width);
  if (top + planned.height > bottom) return;
  planned.draw(top, 0);
  layout.beside_totals.notes = true;
}

/** Throws when the document has grown past the page limit. */
function check_pages(layout: Layout): void {
  // Backstop of the estimate checked before rendering.
  const pages = layout.doc.getNumberOfPages();
  if (pages > MAX_PAGES) throw new PageLimitError(pages);
}

/** The hairline under each row, as the rows have always been written. */
const ROW_RULE_STROKE = ITEM_ROW_RULE[1].map((c) => pdf_number(c / 255, 2))
  .join(" ") + " RG";

/** The laid-out rows of the table: header, body and footer. */
function table_rows(
  layout: Layout,
  { columns, rows, totals, widths }: {
    columns: readonly ItemColumn[];
    rows: readonly string[][];
    totals: readonly TotalRow[];
    widths: readonly number[];
  },
): { head: TableRow; body: TableBody; foot: TableRow[]; side_width: number } {
  const context = layout.table;
  let fixed = 0;
  for (const w of widths) fixed += w;
  const all_widths = [layout.width - fixed, ...widths];
  const last = columns.length - 1;
  const position = (i: number): "first" | "middle" | "last" =>
    i === 0 ? "first" : i === last ? "last" : "middle";
  const head = table_row(
    columns.map((column, i) =>
      table_cell(context, column.header, {
        width: all_widths[i],
        style: ITEM_CELLS.head[position(i)],
      })
    ),
  );
  const body: TableBody = {
    length: rows.length,
    row: (index) =>
      table_row(
        rows[index].map((text, i) =>
          table_cell(context, text, {
            width: all_widths[i],
            style: ITEM_CELLS.body[position(i)],
          })
        ),
      ),
  };
  // The totals on the right: their labels over the columns left of the
  // amount that they need, the rest of the width beside them.
  const amount_width = all_widths[last];
  const label_width = Math.min(
    layout.width - amount_width,
    Math.max(
      layout.width * TOTALS.share - amount_width,
      totals_label_width(layout, totals),
    ),
  );
  const side = layout.width - amount_width - label_width;
  const foot = totals_table_rows(layout, totals, [
    side,
    label_width,
    amount_width,
  ]);
  return { head, body, foot, side_width: side - TOTALS.gap };
}
