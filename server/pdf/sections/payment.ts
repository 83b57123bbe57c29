/**
 * Payment: the account name, IBAN in groups of four, BIC, bank, reference
 * and a clickable payment link, and, for EUR invoices with an IBAN, the
 * EPC QR code ("GiroCode") on the right. Kept together on one page.
 *
 * @module
 */

import type { Invoice } from "../../../contract/invoice_types.ts";
import type { Labels } from "../locales.ts";
import { epc_payload, qr_matrix, qr_rectangles } from "../epc_qr.ts";
import {
  is_credit_note,
  type Layout,
  present,
  single_line,
} from "../layout.ts";
import { draw_text, wrap, write_unmirrored } from "../draw.ts";
import {
  draw_key_values,
  key_values_height,
  type KeyValue,
  label_column_width,
} from "../key_values.ts";
import {
  LINE_HEIGHT_FACTOR,
  MARGINS,
  PAYMENT,
  SIZES,
  TEXT,
} from "../styles.ts";

/** Whether the invoice has payment details to print. */
export function has_payment_block(invoice: Invoice): boolean {
  const payment = invoice.payment;
  return payment !== undefined &&
    Object.values(payment).some((v) => typeof v === "string" && v !== "");
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
  add("account_name", payment.account_name);
  if (present(payment.iban)) rows.push([labels.iban, group_iban(payment.iban)]);
  add("bic", payment.bic);
  add("bank_name", payment.bank_name);
  add("payment_reference", payment.reference);
  add("pay_online", payment.link);
  return rows;
}

/** Draws the payment block from `top`; returns the y below it. */
export function draw_payment(layout: Layout, top: number): number {
  const { doc, invoice, labels } = layout;
  const payment = invoice.payment ?? {};
  const payload = invoice_epc_payload(invoice);
  const qr_column = payload !== undefined
    ? PAYMENT.qr_size + PAYMENT.qr_gap
    : 0;
  const rows = payment_rows(layout);
  const table_width = layout.width - qr_column;
  const label_width = label_column_width(layout, rows);
  // Kept on one page: moved whole to the next page when it does not fit.
  const heading_height = SIZES.label * LINE_HEIGHT_FACTOR + PAYMENT.heading_gap;
  const needed = Math.max(
    heading_height + key_values_height(layout, rows, table_width - label_width),
    qr_column,
  );
  let y = top;
  if (y + needed > layout.bottom) {
    doc.addPage();
    y = MARGINS.top;
  }
  draw_text(layout, labels.payment_details, {
    x: layout.x(0, table_width),
    y: y + SIZES.label,
    style: TEXT.label,
  });
  const end = draw_key_values(layout, rows, {
    top: y + heading_height,
    offset: 0,
    width: table_width,
    label_width,
    link: present(payment.link)
      ? { row: rows.length - 1, url: payment.link }
      : undefined,
  });
  if (payload === undefined) return end;
  return Math.max(end, draw_qr(layout, payload, y));
}

/** The EPC QR code at the right edge from `top`, with its caption. */
function draw_qr(layout: Layout, payload: string, top: number): number {
  const size = PAYMENT.qr_size;
  const x = layout.x(layout.width - size, size);
  const rects = qr_rectangles(qr_matrix(payload), {
    x,
    top: layout.page.height - top,
    size,
  });
  write_unmirrored(layout, { x, width: size }, `0 0 0 rg\n${rects}\nf`);
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
