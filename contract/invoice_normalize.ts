/**
 * A checked request as the one normalized invoice every output reads:
 * aliases resolved, addresses as lines, money as decimal strings from the
 * computation. A field the request does not use is absent, so invoices that
 * use none of the newer fields normalize exactly as they always did.
 *
 * @module
 */
import type {
  Invoice,
  InvoiceAddress,
  InvoiceAttachment,
  InvoiceLineItem,
  InvoiceParty,
  PaymentDetails,
} from "./invoice_types.ts";
import { format_cents, format_decimal, to_cents } from "./money.ts";
import { format_rate } from "./tax.ts";
import { compute, type LineResult } from "./invoice_compute.ts";
import { check_request } from "./invoice_checks.ts";
import { base64_decoded_length, compact_base64 } from "./attachments.ts";
import type {
  ParsedItem,
  ParsedParty,
  ParsedRequest,
} from "./invoice_request.ts";

/** `{key: value}` when `present`, else nothing to spread. */
function optional<T>(
  key: string,
  present: unknown,
  value: T,
): Record<string, T> {
  return present ? { [key]: value } : {};
}

/** Address lines of a one-line, multi-line or array address. */
function address_fields(
  address: string | string[] | undefined,
): Pick<InvoiceAddress, "address" | "address_lines"> {
  if (address === undefined) return {};
  const lines = (typeof address === "string" ? address.split("\n") : address)
    .map((line) => line.trim()).filter((line) => line !== "");
  const one_line = typeof address === "string" && lines.length === 1;
  return {
    ...(one_line ? { address: lines[0] } : {}),
    ...(lines.length > 0 ? { address_lines: lines } : {}),
  };
}

function normalize_party(party: ParsedParty): InvoiceParty {
  const { address, ...rest } = party;
  if (address === undefined) return rest;
  return { ...rest, ...address_fields(address) };
}

function with_address<T extends { address?: string | string[] }>(
  value: T,
): Omit<T, "address"> & Pick<InvoiceAddress, "address" | "address_lines"> {
  const { address, ...rest } = value;
  return { ...rest, ...address_fields(address) };
}

// Keys set one by one in the order a spread of the parts would give them
// (the legacy request hash is the invoice's JSON text): no intermediate
// objects per line, which a 1,000-line invoice notices.
function normalize_item(item: ParsedItem, line: LineResult): InvoiceLineItem {
  const out: Record<string, unknown> = {
    description: item.description,
    quantity: item.quantity,
    rate: format_decimal((item.rate ?? item.unit_price) as number),
    amount: format_cents(line.cents),
  };
  if (item.unit) out.unit = item.unit;
  if (item.item_id) out.item_id = item.item_id;
  if (item.buyer_item_id) out.buyer_item_id = item.buyer_item_id;
  if (line.tax) {
    out.tax_category = line.tax.category;
    out.tax_rate = format_rate(line.tax.rate);
  }
  if (item.base_quantity !== undefined) out.base_quantity = item.base_quantity;
  if (item.gross_rate !== undefined) {
    out.gross_rate = format_decimal(item.gross_rate);
    out.price_discount = line.price_discount;
  }
  if (line.discounts.length) out.discounts = line.discounts;
  if (line.charges.length) out.charges = line.charges;
  for (const key in item) {
    if (!NORMALIZED_ITEM_KEYS.has(key)) {
      out[key] = (item as Record<string, unknown>)[key];
    }
  }
  return out as unknown as InvoiceLineItem;
}

/** Item fields that {@linkcode normalize_item} writes itself (or drops). */
const NORMALIZED_ITEM_KEYS = new Set([
  "description",
  "quantity",
  "rate",
  "unit_price",
  "amount",
  "tax_rate",
  "tax_category",
  "unit",
  "item_id",
  "buyer_item_id",
  "base_quantity",
  "gross_rate",
  "discounts",
  "charges",
]);

function normalize_payment(
  payment: NonNullable<ParsedRequest["payment"]>,
  discount_terms: PaymentDetails["discount_terms"],
): PaymentDetails {
  const { discount_terms: _given, ...rest } = payment;
  const details = Object.fromEntries(
    Object.entries(rest).filter(([, v]) => v !== undefined),
  ) as PaymentDetails;
  return discount_terms ? { ...details, discount_terms } : details;
}

function normalize_attachments(
  attachments: NonNullable<ParsedRequest["attachments"]>,
): InvoiceAttachment[] {
  return attachments.map((attachment) => {
    if (attachment.data === undefined) return attachment;
    const data = compact_base64(attachment.data);
    return { ...attachment, data, size: base64_decoded_length(data) };
  });
}

/** The normalized invoice of a request that passed every check. */
export function normalize_invoice(value: ParsedRequest): Invoice {
  const computed = compute(value);
  const checked = check_request(value, computed);
  const items = (value.items ?? value.line_items ?? []).map((item, index) =>
    normalize_item(item, computed.lines[index])
  );
  const adjusted = computed.discounts.length > 0 || computed.charges.length > 0;
  const invoice: Invoice = {
    invoice_number: value.invoice_number,
    date: value.date,
    due_date: value.due_date,
    ...(value.currency ? { currency: value.currency } : {}),
    sender: normalize_party(value.sender),
    bill_to: normalize_party((value.bill_to ?? value.recipient) as ParsedParty),
    items,
    ...(value.notes ? { notes: value.notes } : {}),
    subtotal: format_cents(computed.subtotal),
    total: format_cents(computed.total),
    document_type: value.document_type ?? "invoice",
    ...optional(
      "preceding_invoice_number",
      value.preceding_invoice_number,
      value.preceding_invoice_number,
    ),
    ...optional("locale", checked.locale, checked.locale),
    ...optional(
      "brand_color",
      value.brand_color,
      value.brand_color?.toUpperCase(),
    ),
    ...optional("page_size", value.page_size, value.page_size),
    ...optional("tax_label", value.tax_label, value.tax_label),
    ...optional(
      "tax_exemption_reason",
      value.tax_exemption_reason,
      value.tax_exemption_reason,
    ),
    ...optional("discounts", computed.discounts.length, computed.discounts),
    ...optional("charges", computed.charges.length, computed.charges),
    ...optional(
      "discount_total",
      computed.discounts.length,
      format_cents(computed.discount_total),
    ),
    ...optional(
      "charge_total",
      computed.charges.length,
      format_cents(computed.charge_total),
    ),
    has_tax: computed.has_tax,
    ...optional("tax_breakdown", computed.has_tax, computed.breakdown),
    ...optional(
      "total_without_tax",
      computed.has_tax || adjusted,
      format_cents(
        computed.subtotal - computed.discount_total + computed.charge_total,
      ),
    ),
    ...optional(
      "tax_total",
      computed.has_tax,
      format_cents(computed.tax_total),
    ),
    ...optional(
      "amount_paid",
      computed.amount_paid !== undefined,
      format_cents(computed.amount_paid ?? 0n),
    ),
    amount_due: format_cents(computed.amount_due),
    ...optional("purchase_order", value.purchase_order, value.purchase_order),
    ...optional(
      "buyer_reference",
      value.buyer_reference,
      value.buyer_reference,
    ),
    ...optional("payment_terms", value.payment_terms, value.payment_terms),
    ...optional(
      "payment",
      value.payment,
      value.payment &&
        normalize_payment(value.payment, computed.discount_terms),
    ),
    ...optional("logo", checked.logo, checked.logo),
    ...optional("delivery_date", value.delivery_date, value.delivery_date),
    ...optional("billing_period", value.billing_period, value.billing_period),
    ...detail_fields(value, computed.rounding),
  };
  return invoice;
}

/** The newer terms: each only when the request gives it. */
function detail_fields(
  value: ParsedRequest,
  rounding: bigint | undefined,
): Partial<Invoice> {
  const text_fields = [
    "contract_reference",
    "project_reference",
    "sales_order_reference",
    "receiving_advice_reference",
    "despatch_advice_reference",
    "tender_reference",
    "accounting_reference",
    "tax_point_date",
    "tax_currency",
  ] as const;
  const out: Partial<Invoice> = {};
  for (const key of text_fields) {
    if (value[key]) out[key] = value[key];
  }
  if (rounding !== undefined) out.rounding_amount = format_cents(rounding);
  if (value.tax_total_in_tax_currency !== undefined) {
    out.tax_total_in_tax_currency = format_cents(
      to_cents(value.tax_total_in_tax_currency),
    );
  }
  if (value.invoiced_object) out.invoiced_object = value.invoiced_object;
  if (value.preceding_invoices?.length) {
    out.preceding_invoices = value.preceding_invoices;
  }
  if (value.additional_notes?.length) {
    out.additional_notes = value.additional_notes;
  }
  if (value.deliver_to) out.deliver_to = with_address(value.deliver_to);
  if (value.payee) out.payee = value.payee;
  if (value.tax_representative) {
    out.tax_representative = with_address(value.tax_representative);
  }
  if (value.attachments?.length) {
    out.attachments = normalize_attachments(value.attachments);
  }
  return out;
}
