/**
 * The invoice's tables drawn directly: the same geometry as
 * `jspdf-autotable` with our settings (plain theme, fixed column widths,
 * "linebreak" overflow, top-aligned text, rows kept whole across pages,
 * the header repeated on every page and the footer after the last row),
 * written as a few PDF operators per cell.
 *
 * autotable merges about twenty style keys per cell from five objects,
 * creates a cell object with hooks per cell and sends every string through
 * jsPDF's general text routine: about half of the CPU time of a 10-item
 * invoice. Here a cell is its wrapped lines and the few styles the invoice
 * uses. Layouts autotable handles and this does not (a row taller than a
 * page, which autotable splits) are reported as `undefined` so the caller
 * falls back to autotable.
 *
 * @module
 */

import type { jsPDF } from "jspdf";
import {
  draw_text_line,
  font_handle,
  type FontHandle,
  is_mirrored,
} from "./fonts.ts";
import { wrap_text } from "./document_font.ts";
import { needs_text_layout } from "./text_layout.ts";
import { page_size, write_content } from "./jspdf_fence.ts";
import {
  fill_operator,
  pdf_number,
  type Rgb,
  stroke_operator,
} from "./pdf_syntax.ts";

export type { Rgb };

/** Cell padding in points. */
export interface Padding {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

/** How one cell looks. */
export interface CellStyle {
  bold: boolean;
  size: number;
  color: Rgb;
  right: boolean;
  padding: Padding;
  /** A rule along the cell's top or bottom edge: [line width, colour]. */
  rule_top?: readonly [number, Rgb];
  rule_bottom?: readonly [number, Rgb];
}

/** A laid-out cell: its wrapped lines, width and style. */
export interface TableCell {
  lines: string[];
  width: number;
  style: CellStyle;
  /** Height of its content with padding (pt). */
  height: number;
}

/** A laid-out row: cells left to right (a spanning cell is one wide cell). */
export interface TableRow {
  cells: TableCell[];
  height: number;
}

/** Everything a table drawer needs from the document, looked up once. */
export interface TableContext {
  doc: jsPDF;
  normal: FontHandle;
  bold: FontHandle;
  mirrored: boolean;
  page_height: number;
  line_height_factor: number;
}

/** The context of `doc` (fonts registered, line height factor set). */
export function table_context(doc: jsPDF): TableContext {
  return {
    doc,
    normal: font_handle(doc, "normal"),
    bold: font_handle(doc, "bold"),
    mirrored: is_mirrored(doc),
    page_height: page_size(doc).height,
    line_height_factor: doc.getLineHeightFactor(),
  };
}

/**
 * Lays out one cell of `width` points: its text split at line breaks and
 * wrapped as autotable does (to the inner width plus 1 pt).
 */
export function table_cell(
  context: TableContext,
  text: string,
  { width, style }: { width: number; style: CellStyle },
): TableCell {
  const font = (style.bold ? context.bold : context.normal).font;
  const { padding, size } = style;
  const lines = wrap_text(text.split(/\r\n|\r|\n/), {
    font,
    size,
    max_width: width - padding.left - padding.right + 1,
  });
  const height = lines.length * size * context.line_height_factor +
    padding.top + padding.bottom;
  return { lines, width, style, height };
}

/** A row of cells; its height is the tallest cell's. */
export function table_row(cells: TableCell[]): TableRow {
  let height = 0;
  for (const cell of cells) height = Math.max(height, cell.height);
  return { cells, height };
}

/**
 * PDF coordinate: items-table body cells keep the two decimals they were
 * always written with; other cells six (jsPDF wrote them with full
 * precision).
 */
function coordinate(value: number, decimals: 2 | 6): string {
  return pdf_number(value, decimals);
}

export { fill_operator };

/**
 * Draws `row` with its top at `top`, starting at page x `left`. Returns the
 * y below it.
 */
export function draw_table_row(
  context: TableContext,
  row: TableRow,
  { left, top, decimals = 6 }: {
    left: number;
    top: number;
    /** Decimals of positions: 2 (items-table body cells) or 6. */
    decimals?: 2 | 6;
  },
): number {
  const num = (value: number): string => coordinate(value, decimals);
  const { doc, page_height, mirrored } = context;
  let x = left;
  let ops = "";
  const laid_out: {
    line: string;
    x: number;
    y: number;
    cell: TableCell;
  }[] = [];
  for (const cell of row.cells) {
    const { style } = cell;
    for (
      const [rule, y] of [[style.rule_top, top], [
        style.rule_bottom,
        top + row.height,
      ]] as const
    ) {
      if (rule === undefined) continue;
      const py = num(page_height - y);
      ops +=
        `q ${stroke_operator(rule[1])} ${num(rule[0])} w ${num(x)} ${py} m ` +
        `${num(x + cell.width)} ${py} l S Q\n`;
    }
    let text = "";
    const handle = style.bold ? context.bold : context.normal;
    const { size, padding } = style;
    let y = top + padding.top + size * 0.85;
    const line_height = size * context.line_height_factor;
    const x_right = x + cell.width - padding.right;
    for (const line of cell.lines) {
      if (line !== "") {
        const lx = style.right
          ? x_right - handle.font.widthOfString(line, size)
          : x + padding.left;
        if (mirrored || needs_text_layout(line, handle.font.prepared)) {
          laid_out.push({ line, x: lx, y, cell });
        } else {
          text += `1 0 0 1 ${num(lx)} ${num(page_height - y)} Tm <` +
            `${handle.font.encode_hex(line)}> Tj\n`;
        }
      }
      y += line_height;
    }
    if (text !== "") {
      ops += `BT /${handle.resource} ${num(size)} Tf ${
        fill_operator(style.color)
      }\n${text}ET\n`;
    }
    x += cell.width;
  }
  if (ops !== "") write_content(doc, ops.slice(0, -1));
  for (const { line, x, y, cell } of laid_out) {
    draw_text_line(doc, line, {
      x,
      y,
      fill: fill_operator(cell.style.color),
      font: (cell.style.bold ? context.bold : context.normal).font,
      size: cell.style.size,
    });
  }
  return top + row.height;
}

/** A table of rows drawn at once on the current page. */
export function draw_table_rows(
  context: TableContext,
  rows: readonly TableRow[],
  { left, top }: { left: number; top: number },
): number {
  let y = top;
  for (const row of rows) y = draw_table_row(context, row, { left, top: y });
  return y;
}

/** Total height of `rows`. */
export function rows_height(rows: readonly TableRow[]): number {
  let height = 0;
  for (const row of rows) height += row.height;
  return height;
}
