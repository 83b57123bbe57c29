/**
 * The table engine: cells wrapped to fixed column widths, rows drawn as a
 * few PDF operators per cell, and tables that flow over pages — a header
 * that repeats, a footer kept with the last row, rows moved whole to the
 * next page or split at its end.
 *
 * The geometry is jspdf-autotable's with the settings the invoice uses
 * (plain theme, fixed column widths, "linebreak" overflow, top-aligned
 * text): the same wrapping (inner width plus 1 pt), first baseline (top
 * padding + 0.85 × size), row heights and page breaks. It is several times
 * faster than autotable, which merges about twenty style keys per cell and
 * sends every string through jsPDF's general text routine (measured in
 * server/pdf/README.md, "Table engine").
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
import { fill_operator, pdf_number, stroke_operator } from "./pdf_syntax.ts";
import { BASELINE_FACTOR, type CellStyle } from "./styles.ts";

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
  /** Top of the flowing content on an added page. */
  page_top: number;
  /** Lowest y of the flowing content on every page. */
  bottom: number;
}

/**
 * The context of `doc` (fonts registered, line height factor set); tables
 * flow between `page_top` and `bottom` on added pages.
 */
export function table_context(
  doc: jsPDF,
  { page_top, bottom }: { page_top: number; bottom: number },
): TableContext {
  return {
    doc,
    normal: font_handle(doc, "normal"),
    bold: font_handle(doc, "bold"),
    mirrored: is_mirrored(doc),
    page_height: page_size(doc).height,
    line_height_factor: doc.getLineHeightFactor(),
    page_top,
    bottom,
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
  // Items-table body rows keep the two decimals they were always written
  // with; other rows six.
  const num = (value: number): string => pdf_number(value, decimals);
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
    let y = top + padding.top + size * BASELINE_FACTOR;
    const line_height = size * context.line_height_factor;
    const x_right = x + cell.width - padding.right;
    for (const line of cell.lines) {
      if (line !== "") {
        const lx = style.right
          ? x_right - handle.font.width_of_string(line, size)
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

/**
 * A table's body rows, each laid out when the table reaches it: a long
 * table's rows then die young, one by one, instead of all living (and being
 * promoted to the old generation) until the table is drawn.
 */
export interface TableBody {
  readonly length: number;
  row(index: number): TableRow;
}

/** Rows laid out already, as a {@link TableBody}. */
function laid_out_body(rows: readonly TableRow[]): TableBody {
  return { length: rows.length, row: (index) => rows[index] };
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

/** How a table that may not fit on the current page flows over pages. */
export interface FlowOptions {
  /** Page x of the table's left edge and the y of its top. */
  left: number;
  top: number;
  /** The header: drawn first, and at the top of every further page when `repeat_head`. */
  head?: TableRow;
  repeat_head?: boolean;
  /** Rows after the last body row, on the same page as it. */
  foot?: readonly TableRow[];
  /**
   * Room kept under the last body row on its page, when more than the
   * footer's (a block drawn beside the footer moves with it).
   */
  foot_room?: number;
  /**
   * `"tall_only"`: a body row that does not fit moves whole to the next
   * page; only a row taller than a page is split. `"fill"`: a row is split
   * at the page's end whenever its first line fits there.
   */
  split: "tall_only" | "fill";
  /** Decimals of the body rows' positions (see {@link draw_table_row}). */
  decimals?: 2 | 6;
  /** Called before a body row (or a part of one) is drawn at `top`. */
  before_row?(row: TableRow, top: number): void;
  /** Called before a page is added. */
  before_new_page?(): void;
}

/**
 * Draws `rows` (laid out, or a {@link TableBody} that lays each out when
 * the table reaches it) as a table from `options.top`, adding pages as needed:
 * the whole table starts on the next page when its header and the start
 * of its first row (or, for one row, the row and the footer) do not fit,
 * so a header never ends a page; a row that does not fit is moved or split
 * (`split`); the footer stays with the last row. Returns the y below the
 * table.
 */
export function draw_flowing_table(
  context: TableContext,
  rows: readonly TableRow[] | TableBody,
  options: FlowOptions,
): number {
  const body = Array.isArray(rows) ? laid_out_body(rows) : rows as TableBody;
  const { left, head, foot = [], decimals = 6 } = options;
  const { page_top, bottom } = context;
  const head_height = head?.height ?? 0;
  const foot_height = Math.max(rows_height(foot), options.foot_room ?? 0);
  const new_page = (): number => {
    options.before_new_page?.();
    context.doc.addPage();
    return options.repeat_head && head !== undefined
      ? draw_table_row(context, head, { left, top: page_top })
      : page_top;
  };
  // Rows taller than this are split wherever they start.
  const tallest = bottom - page_top - head_height - foot_height;
  // Laid out once: it decides where the table starts, then is drawn.
  const first = body.length > 0 ? body.row(0) : undefined;
  let y = options.top;
  if (
    y +
        first_need(context, first, {
          head_height,
          foot_height: body.length <= 1 ? foot_height : 0,
          split: options.split,
          tallest,
        }) > bottom
  ) {
    options.before_new_page?.();
    context.doc.addPage();
    y = page_top;
  }
  if (head !== undefined) y = draw_table_row(context, head, { left, top: y });
  for (let index = 0; index < body.length; index++) {
    const reserved = index === body.length - 1 ? foot_height : 0;
    let row: TableRow | undefined = index === 0 ? first : body.row(index);
    while (row !== undefined) {
      const room = bottom - y - reserved;
      if (row.height > room) {
        const split = splits_here(context, row, room, tallest, options.split);
        if (!split) {
          y = new_page();
          continue;
        }
        const [part, rest] = split_row(context, row, room);
        options.before_row?.(part, y);
        draw_table_row(context, part, { left, top: y, decimals });
        y = new_page();
        row = rest;
        continue;
      }
      options.before_row?.(row, y);
      y = draw_table_row(context, row, { left, top: y, decimals });
      row = undefined;
    }
  }
  return draw_table_rows(context, foot, { left, top: y });
}

/**
 * Height the start of a table needs on its first page: the header and the
 * first row (whole, or its first line where rows split), with the footer
 * when that row is the last or there is none (the caller passes a
 * `foot_height` of 0 otherwise).
 */
function first_need(
  context: TableContext,
  first: TableRow | undefined,
  { head_height, foot_height, split, tallest }: {
    head_height: number;
    foot_height: number;
    split: FlowOptions["split"];
    tallest: number;
  },
): number {
  if (first === undefined) return head_height + foot_height;
  const row = split === "fill" || first.height > tallest
    ? min_row_height(context, first)
    : first.height;
  return head_height + row + foot_height;
}

/** One line of each cell with its padding: the least a part of a row takes. */
function min_row_height(context: TableContext, row: TableRow): number {
  let height = 0;
  for (const { style } of row.cells) {
    height = Math.max(
      height,
      style.padding.top + style.padding.bottom +
        style.size * context.line_height_factor,
    );
  }
  return height;
}

/** Whether a row that does not fit in `room` is split there (else moved). */
function splits_here(
  context: TableContext,
  row: TableRow,
  room: number,
  tallest: number,
  split: FlowOptions["split"],
): boolean {
  const min = min_row_height(context, row);
  // A row whose single line does not fit on any page is drawn as it comes.
  if (min > tallest) return true;
  if (!(min < room)) return false;
  if (row.height > tallest) return true;
  return split === "fill";
}

/**
 * `row` cut at `room`: as many lines of each cell as fit there, and the
 * rest as a row of its own (each cell keeping its style and padding).
 */
function split_row(
  context: TableContext,
  row: TableRow,
  room: number,
): [TableRow, TableRow] {
  const parts: TableCell[] = [];
  const rests: TableCell[] = [];
  for (const cell of row.cells) {
    const { padding, size } = cell.style;
    const line_height = size * context.line_height_factor;
    const vertical = padding.top + padding.bottom;
    const fitting = Math.max(0, Math.floor((room - vertical) / line_height));
    const lines = cell.lines.slice(0, fitting);
    const rest = cell.lines.slice(fitting);
    parts.push({
      ...cell,
      lines,
      height: Math.min(room, lines.length * line_height + vertical),
    });
    rests.push({
      ...cell,
      lines: rest,
      height: rest.length * line_height + vertical,
    });
  }
  return [table_row(parts), table_row(rests)];
}
