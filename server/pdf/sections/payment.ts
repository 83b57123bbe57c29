/**
 * The "How to pay" box: the payment means in words, the account name, IBAN
 * in groups of four (or another account number), BIC, bank, reference, a
 * clickable payment link, further accounts, card and direct debit; under them the payment terms and
 * the early-payment discounts as sentences; and, for EUR invoices with an
 * IBAN, the EPC QR code ("GiroCode") on the right. Never split: it moves to
 * the next page whole.
 *
 * @module
 */

import type { Invoice } from "../../../contract/invoice_types.ts";
import { fill, type Labels } from "../locales.ts";
import { sanitize_text } from "../sanitize.ts";
import { pdf_number, stroke_operator } from "../pdf_syntax.ts";
import { epc_payload, qr_matrix, qr_path } from "../epc_qr.ts";
import {
  is_credit_note,
  type Layout,
  present,
  single_line,
} from "../layout.ts";
import {
  draw_text,
  wrap,
  write_page_content,
  write_unmirrored,
} from "../draw.ts";
import {
  draw_key_values,
  key_values_height,
  type KeyValue,
  label_column_width,
} from "../key_values.ts";
import {
  BASELINE_FACTOR,
  LINE_HEIGHT_FACTOR,
  PAYMENT,
  SIZES,
  TEXT,
} from "../styles.ts";

/** Whether the invoice has payment details or terms to print. */
export function has_payment_block(invoice: Invoice): boolean {
  const payment = invoice.payment;
  return present(invoice.payment_terms) ||
    (payment !== undefined &&
      Object.values(payment).some((v) =>
        typeof v === "string" ? v !== "" : v !== undefined
      ));
}

/** "DE89370400440532013000" → "DE89 3704 0044 0532 0130 00". */
function group_iban(iban: string): string {
  return iban.replace(/\s+/g, "").replace(/(.{4})(?=.)/g, "$1 ");
}

/** The EPC QR payload of the invoice, when it gets one. */
function invoice_epc_payload(invoice: Invoice): string | undefined {
  const payment = invoice.payment;
  if (
    payment?.iban === undefined || invoice.currency !== "EUR" ||
    is_credit_note(invoice)
  ) {
    return undefined;
  }
  return epc_payload({
    name: payment.account_name ?? invoice.sender.name,
    iban: payment.iban,
    bic: payment.bic,
    amount: invoice.amount_due ?? invoice.total,
    reference: payment.reference ?? invoice.invoice_number,
  });
}

function payment_rows(layout: Layout): KeyValue[] {
  const { labels } = layout;
  const payment = layout.invoice.payment ?? {};
  const rows: KeyValue[] = [];
  const add = (key: keyof Labels, value: string | undefined): void => {
    if (present(value)) rows.push([labels[key], single_line(value)]);
  };
  add("payment_means", payment.means_text);
  add("account_name", payment.account_name);
  if (present(payment.iban)) rows.push([labels.iban, group_iban(payment.iban)]);
  add("account_number", payment.account_id);
  add("bic", payment.bic);
  add("bank_name", payment.bank_name);
  for (const account of payment.additional_accounts ?? []) {
    const number = present(account.iban)
      ? group_iban(account.iban)
      : single_line(account.account_id ?? "");
    const parts = [
      account.account_name,
      number,
      account.bic,
    ].filter(present).map(single_line);
    rows.push([
      present(account.iban) ? labels.iban : labels.account_number,
      parts.join(" \u00B7 "),
    ]);
  }
  if (payment.card !== undefined) {
    rows.push([
      labels.card,
      [
        fill(labels.card_ending, { last4: single_line(payment.card.last4) }),
        payment.card.holder,
      ].filter(present).map(single_line).join(" \u00B7 "),
    ]);
  }
  const debit = payment.direct_debit;
  if (debit !== undefined) {
    rows.push([
      labels.direct_debit,
      [
        `${labels.mandate} ${single_line(debit.mandate_reference)}`,
        present(debit.creditor_id)
          ? `${labels.creditor_id} ${single_line(debit.creditor_id)}`
          : "",
        present(debit.debtor_iban) ? group_iban(debit.debtor_iban) : "",
      ].filter((v) => v !== "").join(" \u00B7 "),
    ]);
  }
  add("payment_reference", payment.reference);
  add("pay_online", payment.link);
  return rows;
}

/** The payment terms and early-payment discounts, as sentences. */
function terms_lines(layout: Layout): string[] {
  const { invoice, labels, formats } = layout;
  const lines: string[] = [];
  if (present(invoice.payment_terms)) {
    lines.push(
      `${labels.payment_terms}: ${sanitize_text(invoice.payment_terms).trim()}`,
    );
  }
  for (const term of invoice.payment?.discount_terms ?? []) {
    lines.push(fill(labels.discount_terms, {
      percent: formats.percent(term.percent),
      date: formats.date(term.date),
      amount: formats.money(term.amount),
    }));
  }
  return lines;
}

/** Draws the box from `top`; returns the y below it. */
export function draw_payment(layout: Layout, top: number): number {
  const { doc, invoice, labels } = layout;
  const payment = invoice.payment ?? {};
  const payload = invoice_epc_payload(invoice);
  const pad = PAYMENT.box_padding;
  const qr_column = payload !== undefined
    ? PAYMENT.qr_size + PAYMENT.qr_gap
    : 0;
  const rows = payment_rows(layout);
  const inner = layout.width - 2 * pad;
  const table_width = inner - qr_column;
  const label_width = label_column_width(layout, rows);
  const terms = terms_lines(layout).flatMap((line) =>
    wrap(layout, line, table_width, TEXT.body)
  );
  const line_height = SIZES.body * LINE_HEIGHT_FACTOR;
  const heading_height = SIZES.label * LINE_HEIGHT_FACTOR + PAYMENT.heading_gap;
  const rows_height = key_values_height(
    layout,
    rows,
    table_width - label_width,
    label_width,
  );
  const terms_height = terms.length === 0
    ? 0
    : (rows.length > 0 ? PAYMENT.terms_gap : 0) + terms.length * line_height;
  const qr_height = payload === undefined ? 0 : qr_block_height(layout);
  const content = Math.max(
    heading_height + rows_height + terms_height,
    qr_height,
  );
  const needed = content + 2 * pad;
  let y = top;
  if (y + needed > layout.bottom) {
    doc.addPage();
    y = layout.page_top;
  }
  draw_box(layout, y, needed);
  const inside = y + pad;
  draw_text(layout, labels.payment_details, {
    x: layout.x(pad, table_width),
    y: inside + SIZES.label,
    style: TEXT.label,
  });
  const end = draw_key_values(layout, rows, {
    top: inside + heading_height,
    offset: pad,
    width: table_width,
    label_width,
    link: present(payment.link)
      ? { row: rows.length - 1, url: payment.link }
      : undefined,
  });
  if (terms.length > 0) {
    draw_text(layout, terms, {
      x: layout.x(pad, table_width),
      y: end + (rows.length > 0 ? PAYMENT.terms_gap : 0) +
        SIZES.body * BASELINE_FACTOR,
      style: TEXT.body,
    });
  }
  if (payload !== undefined) draw_qr(layout, payload, inside);
  return y + needed;
}

/** The box's border. */
function draw_box(layout: Layout, top: number, height: number): void {
  const [width, color] = PAYMENT.box_rule;
  const x = layout.x(0, layout.width);
  const num = (value: number): string => pdf_number(value, 2);
  const page_y = layout.page.height - top - height;
  write_page_content(
    layout,
    `q ${stroke_operator(color)} ${num(width)} w ${num(x)} ${num(page_y)} ${
      num(layout.width)
    } ${num(height)} re S Q`,
  );
}

/** Height of the QR code with its caption. */
function qr_block_height(layout: Layout): number {
  const caption = wrap(
    layout,
    layout.labels.scan_to_pay,
    PAYMENT.qr_size + PAYMENT.caption_overhang,
    TEXT.caption,
  );
  return PAYMENT.qr_size + PAYMENT.caption_gap +
    caption.length * SIZES.caption * LINE_HEIGHT_FACTOR;
}

/** The EPC QR code at the box's inner right edge from `top`, with its caption. */
function draw_qr(layout: Layout, payload: string, top: number): number {
  const size = PAYMENT.qr_size;
  const x = layout.x(layout.width - PAYMENT.box_padding - size, size);
  const path = qr_path(qr_matrix(payload), {
    x,
    top: layout.page.height - top,
    size,
  });
  write_unmirrored(layout, { x, width: size }, `0 0 0 rg\n${path}`);
  const caption = wrap(
    layout,
    layout.labels.scan_to_pay,
    size + PAYMENT.caption_overhang,
    TEXT.caption,
  );
  draw_text(layout, caption, {
    x: x + size / 2,
    y: top + size + PAYMENT.caption_gap,
    style: TEXT.caption,
    align: "center",
  });
  return top + size + PAYMENT.caption_gap +
    caption.length * SIZES.caption * LINE_HEIGHT_FACTOR;
}
