/**
 * jspdf-autotable settings of the tables the direct table engine does not
 * draw (blocks taller than what is left of a page).
 *
 * @module
 */

import type { Styles } from "jspdf-autotable";
import { INVOICE_FONT_FAMILY } from "./fonts.ts";
import type { Layout } from "./layout.ts";
import { COLORS, MARGINS, SIZES } from "./styles.ts";

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
