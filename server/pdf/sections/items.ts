/**
 * The items table: description, quantity, unit (when any item has one),
 * unit price, tax rate (when the invoice has tax) and amount, with the
 * totals as its footer. The header repeats on every page, a row that does
 * not fit moves whole to the next page, and the last row moves together
 * with the totals, so totals never stand alone at the top of a page; only a
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
  table_cell,
  table_row,
  type TableRow,
} from "../table.ts";
import { MAX_PAGES, PageLimitError } from "../page_budget.ts";
import { pdf_number } from "../pdf_syntax.ts";
import {
  CELL_PADDING,
  ITEM_CELLS,
  ITEM_COLUMN_MIN,
  ITEM_ROW_RULE,
  SIZES,
} from "../styles.ts";
import {
  total_rows,
  type TotalRow,
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
      cell: (item) => sanitize_text(item.description),
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

/** Draws the items table and the totals from `top`; returns the y below. */
export function draw_items(layout: Layout, top: number): number {
  const columns = item_columns(layout);
  const rows = layout.invoice.items.map((item) =>
    columns.map((c) => c.cell(item))
  );
  const totals = total_rows(layout);
  const widths = numeric_widths(layout, columns, rows, totals);
  const { head, body, foot } = table_rows(layout, {
    columns,
    rows,
    totals,
    widths,
  });
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
  });
  check_pages(layout);
  return end;
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
): { head: TableRow; body: TableRow[]; foot: TableRow[] } {
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
  const body = rows.map((row) =>
    table_row(
      row.map((text, i) =>
        table_cell(context, text, {
          width: all_widths[i],
          style: ITEM_CELLS.body[position(i)],
        })
      ),
    )
  );
  const foot = totals_table_rows(layout, totals, all_widths);
  return { head, body, foot };
}
