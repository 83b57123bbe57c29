/**
 * The invoice request: the single source of truth for validation, types,
 * tRPC input and the OpenAPI document. The fields are in
 * `invoice_request.ts` (and the modules it composes), the arithmetic in
 * `invoice_compute.ts`, the cross-field rules in `invoice_checks.ts`, the
 * normalized invoice in `invoice_normalize.ts`.
 */
import { InvoiceFormatSchema } from "./einvoice.ts";
import { format_problems } from "./format_rules.ts";
import type { InvoiceFormat } from "./formats.ts";
import { z } from "zod";
import type { Invoice } from "./invoice_types.ts";
import { currency_minor_units } from "./currencies.ts";
import { is_calendar_date } from "./invoice_fields.ts";
import { type ParsedRequest, RawInvoiceSchema } from "./invoice_request.ts";
import { compute } from "./invoice_compute.ts";
import { check_request } from "./invoice_checks.ts";
import { normalize_invoice } from "./invoice_normalize.ts";
import { issue_check, type IssueSink, normalized } from "./zod_checks.ts";

export type {
  AllowanceCharge,
  DeliverTo,
  DiscountTerm,
  DocumentType,
  Invoice,
  InvoiceAddress,
  InvoiceAttachment,
  InvoiceLineItem,
  InvoiceLogo,
  InvoiceParty,
  LineAllowanceCharge,
  Payee,
  PaymentDetails,
  SchemeIdentifier,
  TaxBreakdownRow,
  TaxCategory,
  TaxRepresentative,
} from "./invoice_types.ts";
export { LOGO_LIMITS } from "./images.ts";
export {
  negotiate_locale,
  supported_locale,
  SUPPORTED_LOCALES,
  type SupportedLocale,
} from "./locales.ts";
export { INVOICE_LIMITS } from "./invoice_fields.ts";
export { ATTACHMENT_LIMITS } from "./attachments.ts";
export { LineItemSchema } from "./invoice_lines.ts";
export { PartySchema, SenderSchema } from "./invoice_parties.ts";
export { AllowanceChargeSchema } from "./invoice_request.ts";

/**
 * The body of `POST /generate` and `invoice.generate`: an invoice request
 * and the output `format`. A format that needs fields the request lacks
 * (see `format_problems`) is refused, listing every missing field.
 */
export const GenerateRequestSchema = normalized(
  RawInvoiceSchema.extend({ format: InvoiceFormatSchema.optional() })
    .check(issue_check(check_aliases, { always: true }))
    .check(issue_check(check_invoice)),
  normalize_generate_request,
).meta({ id: "GenerateRequest" });

/** The body of `POST /generate` as the client sends it. */
export type GenerateRequest = z.input<typeof GenerateRequestSchema>;

/** The invoice request body of `POST /generate`. */
export const InvoiceRequestSchema = normalized(
  RawInvoiceSchema
    // Alias checks run even when other fields failed, so every problem is reported at once.
    .check(issue_check(check_aliases, { always: true }))
    .check(issue_check(check_invoice)),
  normalize_invoice,
).meta({ id: "InvoiceRequest" });

/** The invoice request as the client sends it. */
export type InvoiceRequest = z.input<typeof InvoiceRequestSchema>;

function check_pair(
  value: Record<string, unknown>,
  names: [string, string],
  path: PropertyKey[],
  sink: IssueSink,
): void {
  const [name, alias] = names;
  if (value[name] !== undefined && value[alias] !== undefined) {
    sink.addIssue({
      path: [...path, alias],
      message: `give either "${name}" or its alias "${alias}", not both`,
    });
  } else if (value[name] === undefined && value[alias] === undefined) {
    sink.addIssue({
      path: [...path, name],
      message: "is required",
    });
  }
}

function is_record(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function check_aliases(value: unknown, sink: IssueSink): void {
  if (!is_record(value)) return;
  check_pair(value, ["bill_to", "recipient"], [], sink);
  check_pair(value, ["items", "line_items"], [], sink);
  const items_key = value.items !== undefined ? "items" : "line_items";
  const items = value[items_key];
  if (!Array.isArray(items)) return;
  items.forEach((item, index) => {
    if (is_record(item)) {
      check_pair(item, ["rate", "unit_price"], [items_key, index], sink);
    }
  });
}

/** Paths of money fields with decimals in a currency without a minor unit. */
function fractional_amounts(
  value: ParsedRequest,
  items_key: "items" | "line_items",
): (string | number)[][] {
  if (value.currency === undefined) return [];
  if (currency_minor_units(value.currency) !== 0) return [];
  const paths: (string | number)[][] = [];
  const check = (path: (string | number)[], amount: number | undefined) => {
    if (amount !== undefined && !Number.isInteger(amount)) paths.push(path);
  };
  (value.items ?? value.line_items ?? []).forEach((item, index) => {
    check([items_key, index, "rate"], item.rate);
    check([items_key, index, "unit_price"], item.unit_price);
    check([items_key, index, "amount"], item.amount);
    check([items_key, index, "gross_rate"], item.gross_rate);
    for (const field of ["discounts", "charges"] as const) {
      (item[field] ?? []).forEach((entry, at) => {
        check([items_key, index, field, at, "amount"], entry.amount);
      });
    }
  });
  for (const field of ["discounts", "charges"] as const) {
    (value[field] ?? []).forEach((entry, index) => {
      check([field, index, "amount"], entry.amount);
      check([field, index, "base_amount"], entry.base_amount);
    });
  }
  check(["amount_paid"], value.amount_paid);
  check(["rounding_amount"], value.rounding_amount);
  check(["expected_total"], value.expected_total);
  check(["expected_tax_total"], value.expected_tax_total);
  (value.payment?.discount_terms ?? []).forEach((term, index) => {
    check(
      ["payment", "discount_terms", index, "base_amount"],
      term.base_amount,
    );
  });
  return paths;
}

/** Periods whose end is before their start (BR-29, BR-30). */
function period_problems(value: ParsedRequest, sink: IssueSink): void {
  const check = (
    period: { start: string; end: string } | undefined,
    path: (string | number)[],
  ) => {
    if (period !== undefined && period.end < period.start) {
      sink.addIssue({
        path: [...path, "end"],
        message: `must not be before start (${period.start})`,
      });
    }
  };
  check(value.billing_period, ["billing_period"]);
  const items_key = value.items !== undefined ? "items" : "line_items";
  (value.items ?? value.line_items ?? []).forEach((item, index) => {
    check(item.period, [items_key, index, "period"]);
  });
}

function check_invoice(value: ParsedRequest, sink: IssueSink): void {
  if (is_calendar_date(value.date) && value.due_date < value.date) {
    sink.addIssue({
      path: ["due_date"],
      message: `must not be before date (${value.date})`,
    });
  }
  period_problems(value, sink);
  const items_key = value.items !== undefined ? "items" : "line_items";
  let amounts_valid = true;
  for (const path of fractional_amounts(value, items_key)) {
    amounts_valid = false;
    sink.addIssue({
      path,
      message: `must be a whole number: ${value.currency} has no minor unit`,
    });
  }
  const computed = compute(value);
  for (const problem of computed.line_problems) sink.addIssue(problem);
  // Totals of wrong line amounts say nothing.
  if (!amounts_valid || !computed.lines_valid) return;
  for (
    const problem of [
      ...computed.problems,
      ...check_request(value, computed).problems,
    ]
  ) {
    sink.addIssue({
      path: problem.path,
      message: problem.message,
      error_code: problem.error_code,
    });
  }
}

// The whole parsed object goes to normalize_invoice, so the computation
// cached for it in check_invoice is reused (normalize_invoice ignores
// `format`).
function normalize_generate_request(
  request: ParsedRequest & { format?: InvoiceFormat },
  sink: IssueSink,
): { format: InvoiceFormat; invoice: Invoice } {
  const format = request.format ?? "pdf";
  const invoice = normalize_invoice(request);
  for (const problem of format_problems(invoice, format)) {
    sink.addIssue(problem);
  }
  return { format, invoice };
}
