/**
 * jspdf-autotable settings of the tables the direct table engine does not
 * draw (blocks taller than what is left of a page).
 *
 * @module
 */

import {
  autoTable,
  type CellHookData,
  type CellInput,
  type RowInput,
  type Styles,
} from "jspdf-autotable";
import {
  draw_text_line,
  type FontHandle,
  INVOICE_FONT_FAMILY,
} from "./fonts.ts";
import type { Layout } from "./layout.ts";
import { last_autotable_end, write_content } from "./jspdf_fence.ts";
import { MAX_PAGES, PageLimitError } from "./page_budget.ts";
import { pdf_number } from "./pdf_syntax.ts";
import { needs_text_layout } from "./text_layout.ts";
import type { ItemColumn } from "./sections/items.ts";
import type { TotalRow } from "./sections/totals.ts";
import {
  CELL_PADDING,
  COLORS,
  LINE_HEIGHT_FACTOR,
  MARGINS,
  SIZES,
} from "./styles.ts";

/** The page margins of a table as autotable takes them. */
export const PAGE_MARGIN: Record<
  "top" | "bottom" | "left" | "right",
  number
> = {
  top: MARGINS.top,
  bottom: MARGINS.bottom,
  left: MARGINS.x,
  right: MARGINS.x,
};

/**
 * Common cell styles: our font and colours, no rules. Keys equal to
 * autotable's defaults (normal style, no fill, "linebreak", top alignment)
 * are left out on purpose: autotable merges these objects for every cell.
 */
export function base_styles(overrides: Partial<Styles>): Partial<Styles> {
  return {
    font: INVOICE_FONT_FAMILY,
    fontSize: SIZES.body,
    textColor: [...COLORS.ink],
    // An object (not 0) and no colour: otherwise autotable writes line width
    // and stroke colour operators for every cell. Rules are set per section.
    lineWidth: {},
    lineColor: false,
    cellPadding: 0,
    ...overrides,
  };
}

/** Page margins of a table `width` wide starting `offset` into the content box. */
export function table_margin(
  layout: Layout,
  offset: number,
  width: number,
): Record<"top" | "bottom" | "left" | "right", number> {
  const left = layout.x(offset, width);
  return { ...PAGE_MARGIN, left, right: layout.page.width - left - width };
}

/** The rows of an items table and its numeric column widths. */
interface ItemsTable {
  top: number;
  columns: readonly ItemColumn[];
  rows: readonly string[][];
  totals: readonly TotalRow[];
  widths: readonly number[];
}

/**
 * The items table through autotable, for a row taller than a page (which
 * autotable splits). Returns the y below the totals.
 */
export function draw_items_with_autotable(
  layout: Layout,
  { top, columns, rows, totals, widths }: ItemsTable,
): number {
  const { doc, width } = layout;
  const count = columns.length;
  const body_font = layout.fonts.normal;
  const pad = {
    top: CELL_PADDING.y,
    bottom: CELL_PADDING.y,
    left: CELL_PADDING.x,
    right: CELL_PADDING.x,
  };
  const first = { ...pad, left: 0 };
  const last = { ...pad, right: 0 };
  const column_styles: Record<number, Partial<Styles>> = {
    0: { cellWidth: "auto", cellPadding: first },
  };
  widths.forEach((cell_width, i) => {
    column_styles[i + 1] = i + 1 === count - 1
      ? { cellWidth: cell_width, halign: "right", cellPadding: last }
      : { cellWidth: cell_width, halign: "right" };
  });
  const head: CellInput[] = columns.map((column, i) => {
    if (i === 0) {
      return {
        content: column.header,
        styles: { cellPadding: { ...first, top: 0, bottom: 6 } },
      };
    }
    if (i === count - 1) {
      return {
        content: column.header,
        styles: {
          halign: "right",
          cellPadding: { ...last, top: 0, bottom: 6 },
        },
      };
    }
    return { content: column.header, styles: { halign: "right" } };
  });
  autoTable(doc, {
    theme: "plain",
    startY: top,
    margin: layout.legacy ? PAGE_MARGIN : table_margin(layout, 0, width),
    tableWidth: width,
    showHead: "everyPage",
    showFoot: "lastPage",
    // A row that fits on a page moves to the next one whole; only a row
    // taller than a page is split (autotable does that even with "avoid").
    rowPageBreak: "avoid",
    styles: base_styles({ cellPadding: pad }),
    headStyles: {
      fontStyle: "normal",
      fontSize: SIZES.label,
      textColor: [...COLORS.muted],
      cellPadding: { ...pad, top: 0, bottom: 6 },
      lineWidth: { bottom: 0.75 },
      lineColor: [...COLORS.rule_strong],
    },
    didDrawPage: () => {
      // Backstop of the estimate checked before rendering.
      const pages = doc.getNumberOfPages();
      if (pages > MAX_PAGES) throw new PageLimitError(pages);
    },
    willDrawCell: (data) => {
      if (data.section !== "body") return true;
      // autotable did the layout (widths, wrapping, row heights, page
      // breaks); the body cells are written here with a few operators each.
      draw_body_cell(layout, { data, handle: body_font });
      return false;
    },
    footStyles: { fontStyle: "normal", cellPadding: pad },
    columnStyles: column_styles,
    head: [head],
    body: rows.map((row) => [...row]),
    foot: totals_foot(totals, count, pad),
  });
  return last_autotable_end(doc);
}

function totals_foot(
  totals: readonly TotalRow[],
  count: number,
  pad: { top: number; bottom: number; left: number; right: number },
): RowInput[] {
  const last = { ...pad, right: 0 };
  const foot_cell = (
    content: string,
    style: Partial<Styles>,
    col_span = 1,
  ): CellInput => ({
    content,
    colSpan: col_span,
    styles: { halign: "right", ...style },
  });
  const subtotal_rule: Partial<Styles> = {
    lineWidth: { top: 0.5 },
    lineColor: [...COLORS.rule],
  };
  const total_rule: Partial<Styles> = {
    lineWidth: { top: 0.75 },
    lineColor: [...COLORS.rule_strong],
  };
  const muted: [number, number, number] = [...COLORS.muted];
  return totals.map((row) => {
    if (row.kind === "strong") {
      const strong: Partial<Styles> = {
        ...total_rule,
        fontStyle: "bold",
        fontSize: SIZES.total,
      };
      return [
        "",
        foot_cell(row.label, strong, count - 2),
        foot_cell(row.value, { ...strong, cellPadding: last }),
      ];
    }
    if (row.kind === "first") {
      return [
        "",
        foot_cell(row.label, { ...subtotal_rule, textColor: muted }, count - 2),
        foot_cell(row.value, { ...subtotal_rule, cellPadding: last }),
      ];
    }
    const tight = { ...pad, top: 2, bottom: 2 };
    return [
      { content: "", styles: { cellPadding: tight } },
      foot_cell(row.label, { textColor: muted, cellPadding: tight }, count - 2),
      foot_cell(row.value, { cellPadding: { ...tight, right: 0 } }),
    ];
  });
}

/**
 * Draws one items-table body cell: its text lines (placed exactly as
 * autotable's own text routine would) and, once per row, the hairline
 * under the row across the whole table.
 */
function draw_body_cell(
  layout: Layout,
  { data, handle }: { data: CellHookData; handle: FontHandle },
): void {
  const { doc } = layout;
  const num = (value: number): string => pdf_number(value, 2);
  const ink_fill = COLORS.ink.map((c) => num(c / 255)).join(" ") + " rg";
  const rule_stroke = COLORS.rule.map((c) => num(c / 255)).join(" ") + " RG";
  const cell = data.cell;
  const page_height = layout.page.height;
  const size = cell.styles.fontSize;
  const line_height = size * LINE_HEIGHT_FACTOR;
  // autotable: first baseline = top padding + fontSize × (2 − 1.15).
  let y = cell.y + cell.padding("top") + size * 0.85;
  const right = cell.styles.halign === "right";
  const x_left = cell.x + cell.padding("left");
  const x_right = cell.x + cell.width - cell.padding("right");
  let ops = "";
  if (data.column.index === 0) {
    const rule_y = num(page_height - (cell.y + data.row.height));
    const table = data.table.settings.margin.left;
    ops += `q ${rule_stroke} 0.5 w ${num(table)} ${rule_y} m ` +
      `${num(table + layout.width)} ${rule_y} l S Q\n`;
  }
  ops += `BT /${handle.resource} ${num(size)} Tf ${ink_fill}\n`;
  // Lines in other scripts (and every line of a mirrored, right-to-left
  // page): shaped and drawn by the text layout afterwards.
  const laid_out: { line: string; x: number; y: number }[] = [];
  for (const line of cell.text) {
    if (line !== "") {
      const x = right
        ? x_right - handle.font.widthOfString(line, size)
        : x_left;
      if (layout.mirrored || needs_text_layout(line, handle.font.prepared)) {
        laid_out.push({ line, x, y });
      } else {
        ops += `1 0 0 1 ${num(x)} ${num(page_height - y)} Tm <` +
          `${handle.font.encode_hex(line)}> Tj\n`;
      }
    }
    y += line_height;
  }
  write_content(doc, ops + "ET");
  for (const { line, x, y } of laid_out) {
    draw_text_line(doc, line, {
      x,
      y,
      fill: ink_fill,
      font: handle.font,
      size,
    });
  }
}
