/**
 * What every page carries outside the flowing content: at the bottom the
 * seller's legal information (`sender.legal_info`, small, at most three
 * lines) above the page line — the invoice reference (number, amount and
 * due date) and "Page X of Y"; at the top of every page after the first a
 * running header — the sender, the invoice number and "Page X of Y" over
 * a rule.
 *
 * @module
 */

import { fill } from "../locales.ts";
import { is_credit_note, type Layout, single_line } from "../layout.ts";
import { draw_rule, draw_text, fit_line } from "../draw.ts";
import {
  COLORS,
  FOOTER,
  LEGAL_FOOTER,
  LINE_HEIGHT_FACTOR,
  MARGINS,
  RUNNING_HEADER,
  TEXT,
} from "../styles.ts";

/** Draws footers and running headers on every page (after the last page is added). */
export function draw_footers(layout: Layout): void {
  const { doc, invoice, labels, formats, width } = layout;
  const number = single_line(invoice.invoice_number);
  const amount = formats.money(invoice.amount_due ?? invoice.total);
  const reference = is_credit_note(invoice)
    ? `${number} \u00B7 ${amount}`
    : `${number} \u00B7 ${
      fill(labels.footer_due, {
        amount,
        date: formats.date(single_line(invoice.due_date)),
      })
    }`;
  const pages = doc.getNumberOfPages();
  const baseline = layout.page.height - MARGINS.footer_baseline;
  const style = TEXT.footer;
  const ref = fit_line(
    layout,
    reference,
    width * FOOTER.reference_share,
    style,
  );
  const running = fit_line(
    layout,
    `${single_line(invoice.sender.name)} \u00B7 ${
      is_credit_note(invoice)
        ? labels.credit_note_number
        : labels.invoice_number
    } ${number}`,
    width * FOOTER.reference_share,
    style,
  );
  for (let page = 1; page <= pages; page++) {
    doc.setPage(page);
    const page_of = fill(labels.page_of, {
      page: String(page),
      pages: String(pages),
    });
    draw_legal(layout, baseline);
    draw_text(layout, ref, { x: MARGINS.x, y: baseline, style });
    draw_text(layout, page_of, {
      x: MARGINS.x + width,
      y: baseline,
      style,
      align: "right",
    });
    if (page > 1) draw_running_header(layout, running, page_of);
  }
}

/** The legal lines, the last one `LEGAL_FOOTER.gap` above `baseline`. */
function draw_legal(layout: Layout, baseline: number): void {
  const { lines, size } = layout.legal;
  if (lines.length === 0) return;
  const line_height = size * LINE_HEIGHT_FACTOR;
  draw_text(layout, lines, {
    x: MARGINS.x,
    y: baseline - LEGAL_FOOTER.gap - (lines.length - 1) * line_height,
    style: { ...TEXT.footer, size },
    size,
  });
}

/** The running header of a continuation page. */
function draw_running_header(
  layout: Layout,
  reference: string,
  page_of: string,
): void {
  const style = TEXT.footer;
  const y = RUNNING_HEADER.baseline;
  draw_text(layout, reference, { x: MARGINS.x, y, style });
  draw_text(layout, page_of, {
    x: MARGINS.x + layout.width,
    y,
    style,
    align: "right",
  });
  draw_rule(layout, {
    x1: MARGINS.x,
    x2: MARGINS.x + layout.width,
    y: y + RUNNING_HEADER.rule_gap,
    width: RUNNING_HEADER.rule_width,
    color: COLORS.rule,
  });
}
