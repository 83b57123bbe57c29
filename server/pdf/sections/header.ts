/**
 * The header of page 1: the title and the logo on one row (title at the
 * start, logo at the end) and the rule under them, both in the brand
 * colour when the invoice has one.
 *
 * @module
 */

import { draw_logo } from "../logo.ts";
import { is_credit_note, is_tax_invoice, type Layout } from "../layout.ts";
import { draw_rule, draw_text, text_width } from "../draw.ts";
import { HEADER, MARGINS, TEXT } from "../styles.ts";

/** Draws the header; returns the y of the rule under it. */
export function draw_header(layout: Layout): number {
  const { invoice, width } = layout;
  const top = MARGINS.top;
  let height = TEXT.title.size * HEADER.title_baseline;
  if (invoice.logo !== undefined) {
    const drawn = draw_logo(layout.doc, invoice.logo, {
      x: layout.x(width - HEADER.logo.width, HEADER.logo.width),
      y: top,
      ...HEADER.logo,
      align: "right",
    });
    height = Math.max(height, drawn.height);
  }
  // The title's cap height centred on the row.
  const baseline = top + height / 2 +
    TEXT.title.size * HEADER.title_baseline / 2;
  draw_title(layout, baseline);
  const rule = top + height + HEADER.rule_gap;
  draw_rule(layout, {
    x1: layout.x(0, width),
    x2: layout.x(0, width) + width,
    y: rule,
    width: HEADER.rule_width,
    color: layout.brand.rule,
  });
  return rule;
}

function draw_title(layout: Layout, baseline: number): void {
  const { invoice, labels, width } = layout;
  const title =
    (is_credit_note(invoice)
      ? labels.credit_note
      : is_tax_invoice(invoice)
      ? labels.tax_invoice
      : labels.invoice)
      .toLocaleUpperCase(layout.texts.intl);
  // Long titles ("FAKTURA KORYGUJĄCA") shrink rather than run into the logo.
  const room = width * HEADER.title_share;
  const natural = text_width(layout, title, TEXT.title);
  const size = natural > room
    ? TEXT.title.size * room / natural
    : TEXT.title.size;
  draw_text(layout, title, {
    x: layout.x(0, room),
    y: baseline,
    style: { ...TEXT.title, color: layout.brand.text },
    size,
  });
}
