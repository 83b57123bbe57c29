/**
 * The page footer on every page: the invoice reference (number, amount and
 * due date) on the left and "Page X of Y" on the right.
 *
 * @module
 */

import { fill } from "../locales.ts";
import { is_credit_note, type Layout, single_line } from "../layout.ts";
import { draw_text, fit_line } from "../draw.ts";
import { FOOTER, MARGINS, TEXT } from "../styles.ts";

/** Draws the footer on every page (call after the last page is added). */
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
  for (let page = 1; page <= pages; page++) {
    doc.setPage(page);
    draw_text(layout, ref, { x: MARGINS.x, y: baseline, style });
    draw_text(
      layout,
      fill(labels.page_of, { page: String(page), pages: String(pages) }),
      { x: MARGINS.x + width, y: baseline, style, align: "right" },
    );
  }
}
