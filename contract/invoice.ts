/**
 * The invoice request: the single source of truth for validation, types,
 * tRPC input and the OpenAPI document.
 */
import { z } from "zod";
import {
  decimal_places,
  format_cents,
  format_decimal,
  line_amount_cents,
  to_cents,
} from "./money.ts";
import type { Invoice } from "./invoice_types.ts";

export type {
  Invoice,
  InvoiceLineItem,
  InvoiceParty,
} from "./invoice_types.ts";

/** Limits on the invoice request; documented in the OpenAPI document and README. */
export const INVOICE_LIMITS = {
  max_items: 1000,
  invoice_number: 64,
  name: 200,
  email: 254,
  address: 300,
  city: 100,
  state: 100,
  zip: 32,
  description: 5000,
  notes: 5000,
  /** Largest absolute rate or amount, so every value is exact in a JSON number. */
  max_money: 1_000_000_000_000,
  max_quantity: 1_000_000_000,
} as const;

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

function is_calendar_date(text: string): boolean {
  const match = DATE_PATTERN.exec(text);
  if (!match) return false;
  const [year, month, day] = [
    Number(match[1]),
    Number(match[2]),
    Number(
      match[3],
    ),
  ];
  if (month < 1 || month > 12 || day < 1) return false;
  const days_in_month = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= days_in_month;
}

function required_text(max: number, description: string) {
  return z.string().trim().min(1, "must not be empty").max(
    max,
    `must be at most ${max} characters`,
  ).describe(description);
}

function optional_text(max: number, description: string) {
  return z.string().trim().max(max, `must be at most ${max} characters`)
    .optional().describe(description);
}

const calendar_date = z.string().regex(DATE_PATTERN, "must be YYYY-MM-DD")
  .refine(is_calendar_date, "is not a real calendar date");

const email = z.string().trim().max(
  INVOICE_LIMITS.email,
  `must be at most ${INVOICE_LIMITS.email} characters`,
).pipe(z.email("must be a valid e-mail address"));

/** A party (sender or billed party). */
export const PartySchema = z.strictObject({
  name: required_text(INVOICE_LIMITS.name, "Business or personal name."),
  email: email.describe("Contact e-mail address."),
  address: optional_text(INVOICE_LIMITS.address, "Street address."),
  city: optional_text(INVOICE_LIMITS.city, "City."),
  state: optional_text(INVOICE_LIMITS.state, "State, province or region."),
  zip: optional_text(INVOICE_LIMITS.zip, "Postal code."),
}).meta({ id: "Party" });

const money = z.number().refine(
  (value) => Math.abs(value) <= INVOICE_LIMITS.max_money,
  `must be between -${INVOICE_LIMITS.max_money} and ${INVOICE_LIMITS.max_money}`,
);

/** One line item as the client sends it. `unit_price` is accepted as an alias of `rate`. */
export const LineItemSchema = z.strictObject({
  description: required_text(INVOICE_LIMITS.description, "What is billed."),
  quantity: z.number().int("must be a whole number").gt(
    0,
    "must be greater than 0",
  )
    .max(INVOICE_LIMITS.max_quantity)
    .describe("Number of units, a whole number greater than 0."),
  rate: money.optional().describe("Price per unit. Alias: `unit_price`."),
  unit_price: money.optional().describe("Alias of `rate`."),
  amount: money.describe(
    "Line total: must equal quantity × rate rounded to cents (half away from zero).",
  ),
}).meta({ id: "LineItem" });

const RawInvoiceSchema = z.strictObject({
  invoice_number: required_text(
    INVOICE_LIMITS.invoice_number,
    "Invoice identifier, printed on the PDF and used for its file name.",
  ),
  date: calendar_date.describe("Invoice date, YYYY-MM-DD."),
  due_date: calendar_date.describe(
    "Payment due date, YYYY-MM-DD, not before `date`.",
  ),
  currency: z.string().regex(
    /^[A-Z]{3}$/,
    "must be a 3-letter ISO 4217 code like EUR",
  )
    .optional().describe("Optional ISO 4217 currency code shown with amounts."),
  sender: PartySchema.describe("The issuing party."),
  bill_to: PartySchema.optional().describe(
    "The billed party (required). Alias: `recipient`.",
  ),
  recipient: PartySchema.optional().describe("Alias of `bill_to`."),
  items: z.array(LineItemSchema).min(1, "must have at least one item").max(
    INVOICE_LIMITS.max_items,
    `must have at most ${INVOICE_LIMITS.max_items} items`,
  ).optional().describe(
    `Line items (required), 1 to ${INVOICE_LIMITS.max_items}. Alias: \`line_items\`.`,
  ),
  line_items: z.array(LineItemSchema).min(1, "must have at least one item")
    .max(
      INVOICE_LIMITS.max_items,
      `must have at most ${INVOICE_LIMITS.max_items} items`,
    )
    .optional().describe("Alias of `items`."),
  notes: optional_text(INVOICE_LIMITS.notes, "Optional notes."),
});

/** The invoice request body of `POST /generate`. */
export const InvoiceRequestSchema = RawInvoiceSchema
  // Alias checks run even when other fields failed, so every problem is reported at once.
  .check(z.superRefine(check_aliases, { when: () => true }))
  .superRefine(check_invoice)
  .transform(normalize_invoice).meta({
    id: "InvoiceRequest",
  });

/** The invoice request as the client sends it. */
export type InvoiceRequest = z.input<typeof InvoiceRequestSchema>;

type ParsedRequest = z.output<typeof RawInvoiceSchema>;

function check_pair(
  value: Record<string, unknown>,
  names: [string, string],
  path: PropertyKey[],
  ctx: z.RefinementCtx,
): void {
  const [name, alias] = names;
  if (value[name] !== undefined && value[alias] !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: [...path, alias],
      message: `give either "${name}" or its alias "${alias}", not both`,
    });
  } else if (value[name] === undefined && value[alias] === undefined) {
    ctx.addIssue({
      code: "custom",
      path: [...path, name],
      message: "is required",
    });
  }
}

function is_record(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function check_aliases(value: unknown, ctx: z.RefinementCtx): void {
  if (!is_record(value)) return;
  check_pair(value, ["bill_to", "recipient"], [], ctx);
  check_pair(value, ["items", "line_items"], [], ctx);
  const items_key = value.items !== undefined ? "items" : "line_items";
  const items = value[items_key];
  if (!Array.isArray(items)) return;
  items.forEach((item, index) => {
    if (is_record(item)) {
      check_pair(item, ["rate", "unit_price"], [items_key, index], ctx);
    }
  });
}

function check_invoice(value: ParsedRequest, ctx: z.RefinementCtx): void {
  if (is_calendar_date(value.date) && value.due_date < value.date) {
    ctx.addIssue({
      code: "custom",
      path: ["due_date"],
      message: `must not be before date (${value.date})`,
    });
  }
  const items_key = value.items !== undefined ? "items" : "line_items";
  const items = value.items ?? value.line_items ?? [];
  items.forEach((item, index) => {
    const rate = item.rate ?? item.unit_price;
    if (
      rate === undefined ||
      item.unit_price !== undefined && item.rate !== undefined
    ) return;
    const expected = line_amount_cents(item.quantity, rate);
    if (decimal_places(item.amount) > 2 || to_cents(item.amount) !== expected) {
      ctx.addIssue({
        code: "custom",
        path: [items_key, index, "amount"],
        message: `must equal quantity × rate = ${format_cents(expected)} (got ${
          format_decimal(item.amount)
        })`,
      });
    }
  });
}

function normalize_invoice(value: ParsedRequest): Invoice {
  const items = (value.items ?? value.line_items ?? []).map((item) => ({
    description: item.description,
    quantity: item.quantity,
    rate: format_decimal((item.rate ?? item.unit_price) as number),
    amount: format_cents(to_cents(item.amount)),
  }));
  let subtotal = 0n;
  for (const item of value.items ?? value.line_items ?? []) {
    subtotal += to_cents(item.amount);
  }
  const invoice: Invoice = {
    invoice_number: value.invoice_number,
    date: value.date,
    due_date: value.due_date,
    ...(value.currency ? { currency: value.currency } : {}),
    sender: value.sender,
    bill_to: (value.bill_to ?? value.recipient) as Invoice["bill_to"],
    items,
    ...(value.notes ? { notes: value.notes } : {}),
    subtotal: format_cents(subtotal),
    total: format_cents(subtotal),
  };
  return invoice;
}
