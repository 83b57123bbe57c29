/**
 * Drawing on a {@link Layout}: text in a style, widths, wrapping, rules,
 * links and raw page content. Right-to-left pages are handled here (text
 * and links mirrored back, values isolated), so sections draw the same way
 * in every direction.
 *
 * @module
 */

import { draw_text_lines, type TextAlign } from "./fonts.ts";
import { wrap_text } from "./document_font.ts";
import { write_content } from "./jspdf_fence.ts";
import { pdf_number, text_fill_operator } from "./pdf_syntax.ts";
import type { Layout } from "./layout.ts";
import { LINE_HEIGHT_FACTOR, type Rgb, type TextStyle } from "./styles.ts";

function handle(layout: Layout, bold: boolean) {
  return bold ? layout.fonts.bold : layout.fonts.normal;
}

/**
 * Draws `text` (one line, or lines one under the other) in `style` with its
 * first baseline at `y`, aligned at `x`; `size` overrides the style's size
 * (titles and amounts shrunk to fit).
 */
export function draw_text(
  layout: Layout,
  text: string | readonly string[],
  { x, y, style, align = "left", size = style.size }: {
    x: number;
    y: number;
    style: TextStyle;
    align?: TextAlign;
    size?: number;
  },
): void {
  const { font, resource } = handle(layout, style.bold);
  draw_text_lines(
    layout.doc,
    typeof text === "string" ? text.split("\n") : text,
    {
      x,
      y,
      align,
      font,
      resource,
      size,
      line_height: size * LINE_HEIGHT_FACTOR,
      fill: text_fill_operator(style.color),
    },
  );
}

/** Width of one line of `text` in `style` (or at `size`). */
export function text_width(
  layout: Layout,
  text: string,
  { bold, size }: { bold: boolean; size: number },
): number {
  return handle(layout, bold).font.width_of_string(text, size);
}

/** `text` wrapped to lines no wider than `max_width` in `style`. */
export function wrap(
  layout: Layout,
  text: string,
  max_width: number,
  { bold, size }: { bold: boolean; size: number },
): string[] {
  return wrap_text(text, { font: handle(layout, bold).font, size, max_width });
}

/** Cuts a single line to `max_width` with an ellipsis. */
export function fit_line(
  layout: Layout,
  value: string,
  max_width: number,
  style: { bold: boolean; size: number },
): string {
  const width = (text: string): number => text_width(layout, text, style);
  if (width(value) <= max_width) return value;
  let low = 0;
  let high = value.length;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (width(value.slice(0, mid) + "\u2026") <= max_width) {
      low = mid;
    } else high = mid - 1;
  }
  return value.slice(0, low) + "\u2026";
}

/**
 * A value printed after a label: on a right-to-left page a bidi isolate
 * (FSI … PDI), so a phone number or tax id keeps its own order after an
 * Arabic label.
 */
export function isolated(layout: Layout, value: string): string {
  return layout.mirrored ? `\u2068${value}\u2069` : value;
}

/** A clickable area (`x`, `y` from the top left) opening `url`. */
export function draw_link(
  layout: Layout,
  { x, y, width, height }: {
    x: number;
    y: number;
    width: number;
    height: number;
  },
  url: string,
): void {
  // Link annotations are not content: a mirrored page moves them here.
  const link_x = layout.mirrored ? layout.page.width - x - width : x;
  layout.doc.link(link_x, y, width, height, { url });
}

/** A horizontal rule from `x1` to `x2` at `y`. */
export function draw_rule(
  layout: Layout,
  { x1, x2, y, width, color }: {
    x1: number;
    x2: number;
    y: number;
    width: number;
    color: Rgb;
  },
): void {
  const { doc } = layout;
  doc.setDrawColor(...color);
  doc.setLineWidth(width);
  doc.line(x1, y, x2, y);
}

/**
 * Writes operators that keep their orientation on a mirrored page (the QR
 * code stays scannable): flipped back within the box from `x`, `width`
 * wide.
 */
export function write_unmirrored(
  layout: Layout,
  { x, width }: { x: number; width: number },
  ops: string,
): void {
  const flip = layout.mirrored
    ? `-1 0 0 1 ${pdf_number(2 * x + width, 2)} 0 cm `
    : "";
  write_content(layout.doc, `q ${flip}${ops} Q`);
}

/** Writes content-stream operators at the end of the current page. */
export function write_page_content(layout: Layout, ops: string): void {
  write_content(layout.doc, ops);
}
