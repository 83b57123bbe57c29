/**
 * The header: the logo (page 1 only), the document title on the left and
 * the amount due (or credited) with its due date on the right.
 *
 * @module
 */

import { fill } from "../locales.ts";
import { draw_logo } from "../logo.ts";
import { is_credit_note, type Layout, single_line } from "../layout.ts";
import { draw_text, fit_line, text_width } from "../draw.ts";
import { HEADER, MARGINS, TEXT } from "../styles.ts";

/** Where the header leaves room for what follows. */
export interface HeaderEnd {
  /** Top of the details under the title. */
  details_top: number;
  /** The y below the right column (amount and due date). */
  end: number;
}

/** Draws the header. */
export function draw_header(layout: Layout): HeaderEnd {
  const { invoice } = layout;
  let top = MARGINS.top;
  if (invoice.logo !== undefined) {
    const drawn = draw_logo(layout.doc, invoice.logo, {
      x: layout.x(0, HEADER.logo.width),
      y: MARGINS.top,
      ...HEADER.logo,
    });
    top += drawn.height + HEADER.logo_gap;
  }
  const title_baseline = top + TEXT.title.size * HEADER.title_baseline;
  draw_title(layout, title_baseline);
  return {
    details_top: title_baseline + HEADER.details_gap,
    end: draw_amount_due(layout),
  };
}

function draw_title(layout: Layout, baseline: number): void {
  const { invoice, labels, width } = layout;
  const title = (is_credit_note(invoice) ? labels.credit_note : labels.invoice)
    .toLocaleUpperCase(layout.texts.intl);
  // Long titles ("FAKTURA KORYGUJĄCA") shrink rather than run into the
  // amount due.
  const natural = text_width(layout, title, TEXT.title);
  const size = natural > width * HEADER.left_share
    ? TEXT.title.size * width * HEADER.left_share / natural
    : TEXT.title.size;
  draw_text(layout, title, {
    x: layout.x(0, width * HEADER.left_share),
    y: baseline,
    style: TEXT.title,
    size,
  });
}

/**
 * The amount due, right-aligned, shrunk (never wrapped) if it is very long,
 * with its label above and the due date below. Returns the y below.
 */
function draw_amount_due(layout: Layout): number {
  const { invoice, labels, formats, width } = layout;
  const right = MARGINS.x + width;
  const credit = is_credit_note(invoice);
  const amount_due = formats.money(invoice.amount_due ?? invoice.total);
  const due_width = width * HEADER.amount_share;
  draw_text(layout, credit ? labels.amount_credited : labels.amount_due, {
    x: right,
    y: MARGINS.top + HEADER.amount_label_baseline,
    style: TEXT.label,
    align: "right",
  });
  let size: number = TEXT.amount_due.size;
  const natural = text_width(layout, amount_due, { bold: true, size });
  if (natural > due_width) {
    size = Math.max(HEADER.amount_min_size, (size * due_width) / natural);
  }
  const amount_baseline = MARGINS.top + HEADER.amount_label_baseline +
    HEADER.amount_gap + size;
  draw_text(
    layout,
    fit_line(layout, amount_due, due_width, { bold: true, size }),
    {
      x: right,
      y: amount_baseline,
      style: TEXT.amount_due,
      size,
      align: "right",
    },
  );
  // A credit note is not paid by the buyer: no due date on it.
  if (credit) return amount_baseline;
  const due_date = formats.date(single_line(invoice.due_date));
  draw_text(
    layout,
    fit_line(
      layout,
      fill(labels.due_on, { date: due_date }),
      due_width,
      TEXT.label,
    ),
    {
      x: right,
      y: amount_baseline + HEADER.due_on_gap,
      style: TEXT.label,
      align: "right",
    },
  );
  return amount_baseline + HEADER.due_on_gap;
}
