/**
 * Label/value rows drawn directly (no table engine): labels muted and
 * small, values wrapped to the rest of the width. For short blocks that
 * never break across pages (the invoice details, payment details).
 *
 * @module
 */

import { type Layout } from "./layout.ts";
import { draw_link, draw_text, text_width, wrap } from "./draw.ts";
import {
  BASELINE_FACTOR,
  KEY_VALUES,
  LINE_HEIGHT_FACTOR,
  SIZES,
  TEXT,
} from "./styles.ts";

/** Label and value of one row. */
export type KeyValue = readonly [string, string];

/**
 * Draws `rows` from `top`, in a box `offset` points into the content box
 * and `width` wide, labels in a column `label_width` wide. Returns the y
 * below the last row.
 */
export function draw_key_values(
  layout: Layout,
  rows: readonly KeyValue[],
  { top, offset, width, label_width, link }: {
    top: number;
    offset: number;
    width: number;
    label_width: number;
    /** Index of a row whose value is a URL to make clickable. */
    link?: { row: number; url: string };
  },
): number {
  const x = layout.x(offset, width);
  const value_width = width - label_width;
  const line_height = SIZES.body * LINE_HEIGHT_FACTOR;
  let y = top;
  rows.forEach(([name, value], index) => {
    const lines = wrap(layout, value, value_width, TEXT.body);
    const baseline = y + KEY_VALUES.row_top + SIZES.body * BASELINE_FACTOR;
    const labels = wrap(
      layout,
      name,
      label_width - KEY_VALUES.label_wrap_gap,
      TEXT.label,
    );
    draw_text(layout, labels, { x, y: baseline, style: TEXT.label });
    const is_link = link?.row === index;
    draw_text(layout, lines, {
      x: x + label_width,
      y: baseline,
      style: is_link ? TEXT.link : TEXT.body,
    });
    const height = Math.max(
      lines.length * line_height,
      labels.length * SIZES.label * LINE_HEIGHT_FACTOR,
    ) + KEY_VALUES.row_gap;
    if (is_link) {
      draw_link(layout, {
        x: x + label_width,
        y,
        width: value_width,
        height,
      }, link.url);
    }
    y += height;
  });
  return y;
}

/** Height of `rows` drawn with values `value_width` wide. */
export function key_values_height(
  layout: Layout,
  rows: readonly KeyValue[],
  value_width: number,
  label_width: number,
): number {
  let height = 0;
  for (const [name, value] of rows) {
    height += Math.max(
      wrap(layout, value, value_width, TEXT.body).length *
        SIZES.body * LINE_HEIGHT_FACTOR,
      wrap(layout, name, label_width - KEY_VALUES.label_wrap_gap, TEXT.label)
        .length * SIZES.label * LINE_HEIGHT_FACTOR,
    ) + KEY_VALUES.row_gap;
  }
  return height;
}

/** Width of the label column for `rows`: the widest label, within bounds. */
export function label_column_width(
  layout: Layout,
  rows: readonly KeyValue[],
): number {
  const widest = Math.max(
    0,
    ...rows.map(([name]) => text_width(layout, name, TEXT.label)),
  );
  return Math.min(
    KEY_VALUES.label_max,
    Math.max(KEY_VALUES.label_min, widest + KEY_VALUES.label_gap),
  );
}
