/**
 * The invoice request: the single source of truth for validation, types,
 * tRPC input and the OpenAPI document.
 */
import {
  ElectronicAddressSchema,
  format_problems,
  type InvoiceFormat,
  InvoiceFormatSchema,
} from "./einvoice.ts";
import { z } from "zod";
import {
  decimal_from_number,
  decimal_places,
  format_cents,
  format_decimal,
  line_amount_cents,
  percent_of,
  to_cents,
} from "./money.ts";
import type {
  AllowanceCharge,
  Invoice,
  InvoiceLineItem,
  InvoiceParty,
  TaxBreakdownRow,
  TaxCategory,
} from "./invoice_types.ts";
import { bic_problem, iban_problem, normalize_iban } from "./bank.ts";
import { currency_minor_units } from "./currencies.ts";
import { ImageError, LOGO_LIMITS, validate_logo } from "./images.ts";
import { supported_locale, SUPPORTED_LOCALES } from "./locales.ts";
import {
  EXEMPT_CATEGORIES,
  format_rate,
  group_key,
  is_tax_problem,
  resolve_tax,
  type ResolvedTax,
  TAX_CATEGORY_ORDER,
} from "./tax.ts";
import { issue_check, type IssueSink, normalized } from "./zod_checks.ts";

export type {
  AllowanceCharge,
  DocumentType,
  Invoice,
  InvoiceLineItem,
  InvoiceLogo,
  InvoiceParty,
  PaymentDetails,
  TaxBreakdownRow,
  TaxCategory,
} from "./invoice_types.ts";
export { LOGO_LIMITS } from "./images.ts";
export {
  negotiate_locale,
  supported_locale,
  SUPPORTED_LOCALES,
  type SupportedLocale,
} from "./locales.ts";

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
  address_lines: 5,
  country: 2,
  tax_id: 40,
  company_id: 64,
  phone: 40,
  reference: 140,
  payment_terms: 500,
  tax_exemption_reason: 1000,
  tax_label: 40,
  allowances: 20,
  allowance_description: 200,
  account_name: 140,
  bank_name: 140,
  link: 2000,
  /** A logo `data:` URL: 256 KB decoded is about 350,000 base64 characters. */
  logo_data_url: 360_000,
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

const address_line = z.string().trim().max(
  INVOICE_LIMITS.address,
  `must be at most ${INVOICE_LIMITS.address} characters`,
);

const region_names = new Intl.DisplayNames(["en"], { type: "region" });

/** True for an assigned ISO 3166-1 alpha-2 code (upper case). */
function is_country_code(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && region_names.of(code) !== code;
}

const country = z.string().trim().toUpperCase()
  .refine(
    is_country_code,
    "must be an ISO 3166-1 alpha-2 country code like DE",
  );

/** A party (sender or billed party). */
export const PartySchema = z.strictObject({
  name: required_text(INVOICE_LIMITS.name, "Business or personal name."),
  email: email.describe("Contact e-mail address."),
  address: z.union([
    address_line,
    z.array(address_line).min(1, "must have at least one line").max(
      INVOICE_LIMITS.address_lines,
      `must have at most ${INVOICE_LIMITS.address_lines} lines`,
    ),
  ]).optional().describe(
    'Street address: one line, several lines separated by "\\n", or an array of lines.',
  ),
  city: optional_text(INVOICE_LIMITS.city, "City."),
  state: optional_text(INVOICE_LIMITS.state, "State, province or region."),
  zip: optional_text(INVOICE_LIMITS.zip, "Postal code."),
  country: country.optional().describe(
    "ISO 3166-1 alpha-2 country code, e.g. DE (BT-40 / BT-55).",
  ),
  tax_id: optional_text(
    INVOICE_LIMITS.tax_id,
    "VAT, GST or sales-tax registration, e.g. DE123456789 (BT-31 / BT-48).",
  ),
  company_id: optional_text(
    INVOICE_LIMITS.company_id,
    "Legal registration number, e.g. HRB 12345 (BT-30 / BT-47).",
  ),
  phone: z.string().trim().regex(
    /^\+?[0-9 ()./-]{3,40}$/,
    "must be a phone number of digits, spaces and + ( ) . / -",
  ).optional().describe("Phone number (seller contact BT-42 in e-invoices)."),
  contact_name: optional_text(
    INVOICE_LIMITS.name,
    "Contact person (seller contact BT-41 / buyer contact BT-56 in e-invoices).",
  ),
  electronic_address: ElectronicAddressSchema.optional().describe(
    "Electronic address where the party receives e-invoices (BT-34 / BT-49).",
  ),
}).meta({ id: "Party" });

const TaxCategorySchema = z.enum(["S", "Z", "E", "AE", "K", "G", "O"])
  .describe(
    "UNTDID 5305: S standard, Z zero rated, E exempt, AE reverse charge, " +
      "K intra-community supply, G export outside the EU, O outside the scope of tax.",
  );

const percent = z.number().min(0, "must be between 0 and 100").max(
  100,
  "must be between 0 and 100",
).refine(
  (value) => decimal_places(value) <= 2,
  "must have at most 2 decimals",
);

const tax_rate = percent.describe(
  "Tax rate in percent, 0 to 100 with up to 2 decimals (e.g. 19, 7.7).",
);

const cents_amount = z.number().refine(
  (value) => decimal_places(value) <= 2,
  "must have at most 2 decimals",
);

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
  tax_rate: tax_rate.optional(),
  tax_category: TaxCategorySchema.optional(),
  unit: z.string().trim().regex(
    /^[A-Z0-9]{2,3}$/,
    "must be a UN/ECE Recommendation 20 unit code like HUR, C62 or DAY",
  ).optional().describe(
    "UN/ECE Recommendation 20 unit code (HUR hour, DAY day, C62 piece, …), printed as a word.",
  ),
  item_id: optional_text(
    INVOICE_LIMITS.reference,
    "The seller's identifier of the item, e.g. an article number (BT-155 in e-invoices).",
  ),
  buyer_item_id: optional_text(
    INVOICE_LIMITS.reference,
    "The buyer's identifier of the item (BT-156 in e-invoices).",
  ),
}).meta({ id: "LineItem" });

/** A document-level discount or charge: a fixed amount or a percent of the line subtotal. */
export const AllowanceChargeSchema = z.strictObject({
  description: required_text(
    INVOICE_LIMITS.allowance_description,
    'What it is, e.g. "Loyalty discount" or "Shipping".',
  ),
  amount: cents_amount.pipe(
    z.number().gt(0, "must be greater than 0").max(INVOICE_LIMITS.max_money),
  ).optional().describe("A fixed amount (give this or `percent`)."),
  percent: percent.pipe(z.number().gt(0, "must be greater than 0"))
    .optional().describe(
      "Percent of the line subtotal, rounded to the cent (give this or `amount`).",
    ),
  tax_rate: tax_rate.optional(),
  tax_category: TaxCategorySchema.optional(),
}).meta({ id: "DiscountOrCharge" });

const PaymentSchema = z.strictObject({
  iban: z.string().trim().max(42).transform(normalize_iban).optional()
    .describe("IBAN (spaces allowed), checked by length and check digits."),
  bic: z.string().trim().toUpperCase().optional()
    .describe("BIC (SWIFT code), 8 or 11 characters."),
  account_name: optional_text(
    INVOICE_LIMITS.account_name,
    "Account holder's name.",
  ),
  bank_name: optional_text(INVOICE_LIMITS.bank_name, "Bank name."),
  reference: optional_text(
    INVOICE_LIMITS.reference,
    "Remittance text the payer should quote (BT-83).",
  ),
  link: z.string().trim().max(INVOICE_LIMITS.link).optional().describe(
    "An https URL of a payment page, printed as a clickable link.",
  ),
}).meta({ id: "Payment" });

const RawInvoiceSchema = z.strictObject({
  invoice_number: required_text(
    INVOICE_LIMITS.invoice_number,
    "Invoice identifier, printed on the PDF and used for its file name.",
  ),
  date: calendar_date.describe("Invoice date, YYYY-MM-DD."),
  due_date: calendar_date.describe(
    "Payment due date, YYYY-MM-DD, not before `date`.",
  ),
  currency: z.string().trim().regex(
    /^[A-Za-z]{3}$/,
    "must be a 3-letter ISO 4217 code like EUR",
  ).toUpperCase().check(issue_check(check_currency_in_use)).optional().describe(
    "Optional ISO 4217 currency code shown with amounts; lower case is accepted. " +
      "Amounts respect its minor unit: JPY, KRW and other currencies without " +
      "one take whole numbers only.",
  ),
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
  tax_rate: tax_rate.optional().describe(
    "Default tax rate of lines (and discounts and charges) that give none.",
  ),
  tax_category: TaxCategorySchema.optional().describe(
    "Default tax category of lines that give none (S when a rate > 0 is given, Z at 0).",
  ),
  tax_exemption_reason: optional_text(
    INVOICE_LIMITS.tax_exemption_reason,
    "Why no tax is charged; required when a line is E, AE, K, G or O (BT-120).",
  ),
  tax_label: optional_text(
    INVOICE_LIMITS.tax_label,
    'Printed name of the tax, e.g. "VAT", "GST", "Sales tax" (default: the locale\'s).',
  ),
  discounts: z.array(AllowanceChargeSchema).max(
    INVOICE_LIMITS.allowances,
    `must have at most ${INVOICE_LIMITS.allowances} entries`,
  ).optional().describe("Document-level discounts (BG-20)."),
  charges: z.array(AllowanceChargeSchema).max(
    INVOICE_LIMITS.allowances,
    `must have at most ${INVOICE_LIMITS.allowances} entries`,
  ).optional().describe("Document-level charges such as shipping (BG-21)."),
  amount_paid: cents_amount.pipe(
    z.number().min(0, "must not be negative").max(INVOICE_LIMITS.max_money),
  ).optional().describe(
    "Already paid; the invoice then shows the amount due (BT-113).",
  ),
  purchase_order: optional_text(
    INVOICE_LIMITS.reference,
    "The buyer's purchase order number (BT-13).",
  ),
  buyer_reference: optional_text(
    INVOICE_LIMITS.reference,
    "The buyer's reference, e.g. a Leitweg-ID (BT-10).",
  ),
  payment_terms: optional_text(
    INVOICE_LIMITS.payment_terms,
    'Payment terms, e.g. "Net 30" (BT-20).',
  ),
  payment: PaymentSchema.optional().describe("Payment details."),
  logo: z.string().max(
    INVOICE_LIMITS.logo_data_url,
    `must be at most ${LOGO_LIMITS.max_bytes / 1024} KB decoded`,
  ).optional().describe(
    `A data: URL of a PNG or JPEG, at most ${
      LOGO_LIMITS.max_bytes / 1024
    } KB decoded, ${LOGO_LIMITS.max_side} px a side and ${
      LOGO_LIMITS.max_pixels / 1e6
    } megapixels (else 400 \`logo_too_large\`). URLs are never fetched.`,
  ),
  locale: z.string().trim().max(35).optional().describe(
    `Language and formats of the PDF: ${SUPPORTED_LOCALES.join(", ")}. ` +
      "Default: from Accept-Language, else en-US.",
  ),
  document_type: z.enum(["invoice", "credit_note"]).optional().describe(
    "invoice (default) or credit_note.",
  ),
  preceding_invoice_number: optional_text(
    INVOICE_LIMITS.invoice_number,
    "For a credit note: the number of the invoice it corrects (BT-25).",
  ),
  expected_total: cents_amount.optional().describe(
    "Your own total; a different computed total is a 400 with both figures.",
  ),
  expected_tax_total: cents_amount.optional().describe(
    "Your own tax total; a different computed tax total is a 400 with both figures.",
  ),
  delivery_date: calendar_date.optional().describe(
    "When the goods or services were delivered, YYYY-MM-DD (BT-72 in e-invoices).",
  ),
  billing_period: z.strictObject({
    start: calendar_date.describe("First day, YYYY-MM-DD (BT-73)."),
    end: calendar_date.describe(
      "Last day, YYYY-MM-DD, not before `start` (BT-74).",
    ),
  }).optional().describe(
    "The period the invoice covers (BG-14 in e-invoices).",
  ),
});

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

type ParsedRequest = z.output<typeof RawInvoiceSchema>;
type ParsedParty = z.output<typeof PartySchema>;

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

type Path = (string | number)[];

interface Problem {
  path: Path;
  message: string;
  error_code?: "logo_too_large";
}

/** Everything computed from a request, once: totals, taxes, logo. */
interface Computation {
  problems: Problem[];
  has_tax: boolean;
  line_taxes: (ResolvedTax | undefined)[];
  discounts: AllowanceCharge[];
  charges: AllowanceCharge[];
  breakdown: TaxBreakdownRow[];
  subtotal: bigint;
  discount_total: bigint;
  charge_total: bigint;
  tax_total: bigint;
  total: bigint;
  amount_paid?: bigint;
  logo?: Invoice["logo"];
  locale?: string;
}

// The refinement and the transform see the same parsed object: compute once.
const computations = new WeakMap<ParsedRequest, Computation>();

function tax_fields(
  tax: ResolvedTax | undefined,
): { tax_category?: TaxCategory; tax_rate?: string } {
  return tax
    ? { tax_category: tax.category, tax_rate: format_rate(tax.rate) }
    : {};
}

function any_tax_given(value: ParsedRequest): boolean {
  const given = (entry: { tax_rate?: number; tax_category?: TaxCategory }) =>
    entry.tax_rate !== undefined || entry.tax_category !== undefined;
  return given(value) || (value.items ?? value.line_items ?? []).some(given) ||
    (value.discounts ?? []).some(given) || (value.charges ?? []).some(given);
}

function compute(value: ParsedRequest): Computation {
  const cached = computations.get(value);
  if (cached) return cached;
  const problems: Problem[] = [];
  const minor_units = value.currency === undefined
    ? 2
    : currency_minor_units(value.currency) ?? 2;
  const items_key = value.items !== undefined ? "items" : "line_items";
  const items = value.items ?? value.line_items ?? [];
  const has_tax = any_tax_given(value);

  // The invoice-level pair is the default of every line and discount/charge
  // that gives no tax field of its own.
  const invoice_tax = resolve_tax(value.tax_category, value.tax_rate);
  if (is_tax_problem(invoice_tax)) {
    problems.push({ path: [invoice_tax.field], message: invoice_tax.message });
  }
  const default_tax = is_tax_problem(invoice_tax) ? undefined : invoice_tax;

  const line_taxes = items.map((item, index) => {
    const own = resolve_tax(item.tax_category, item.tax_rate);
    if (is_tax_problem(own)) {
      problems.push({
        path: [items_key, index, own.field],
        message: own.message,
      });
      return undefined;
    }
    const tax = own ?? default_tax;
    if (has_tax && !tax && !is_tax_problem(invoice_tax)) {
      problems.push({
        path: [items_key, index, "tax_rate"],
        message:
          "is required because other lines have tax (or set an invoice-level tax_rate)",
      });
    }
    return has_tax ? tax : undefined;
  });

  let subtotal = 0n;
  const group_lines = new Map<string, bigint>();
  const groups = new Map<string, ResolvedTax>();
  items.forEach((item, index) => {
    const cents = to_cents(item.amount);
    subtotal += cents;
    const tax = line_taxes[index];
    if (tax) {
      const key = group_key(tax);
      groups.set(key, tax);
      group_lines.set(key, (group_lines.get(key) ?? 0n) + cents);
    }
  });
  const single_group = groups.size === 1 ? [...groups.values()][0] : undefined;

  const group_adjustments = new Map<string, bigint>();
  /** Per group key ("" without tax): discounted cents and the first discount's path. */
  const group_discounts = new Map<string, { cents: bigint; path: Path }>();
  function allowances(
    field: "discounts" | "charges",
    sign: 1n | -1n,
  ): { entries: AllowanceCharge[]; total: bigint } {
    let total = 0n;
    const entries = (value[field] ?? []).map((entry, index) => {
      if ((entry.amount === undefined) === (entry.percent === undefined)) {
        problems.push({
          path: [
            field,
            index,
            entry.amount === undefined ? "amount" : "percent",
          ],
          message: 'give either "amount" or "percent"',
        });
      }
      if (entry.percent !== undefined && subtotal <= 0n) {
        problems.push({
          path: [field, index, "percent"],
          message: `applies to the line subtotal, which is not positive (${
            format_cents(subtotal)
          }); give an amount`,
        });
      }
      const cents = entry.percent !== undefined
        ? percent_of(subtotal, decimal_from_number(entry.percent), {
          minor_units,
        })
        : to_cents(entry.amount ?? 0);
      total += cents;
      let tax: ResolvedTax | undefined;
      if (has_tax) {
        const own = resolve_tax(entry.tax_category, entry.tax_rate);
        if (is_tax_problem(own)) {
          problems.push({
            path: [field, index, own.field],
            message: own.message,
          });
        } else {
          tax = own ?? default_tax ?? single_group;
          if (!tax) {
            problems.push({
              path: [field, index, "tax_rate"],
              message:
                "is required because the lines have several tax rates (or set an invoice-level tax_rate)",
            });
          }
        }
      }
      const key = tax ? group_key(tax) : "";
      if (tax) {
        groups.set(key, tax);
        group_adjustments.set(
          key,
          (group_adjustments.get(key) ?? 0n) + sign * cents,
        );
      }
      if (sign < 0n && (tax || !has_tax)) {
        const seen = group_discounts.get(key);
        group_discounts.set(key, {
          cents: (seen?.cents ?? 0n) + cents,
          path: seen?.path ??
            [field, index, entry.percent !== undefined ? "percent" : "amount"],
        });
      }
      return {
        description: entry.description,
        amount: format_cents(cents),
        ...(entry.percent !== undefined
          ? {
            percent: format_decimal(entry.percent),
            base_amount: format_cents(subtotal),
          }
          : {}),
        ...tax_fields(tax),
      };
    });
    return { entries, total };
  }
  const discounts = allowances("discounts", -1n);
  const charges = allowances("charges", 1n);

  // A discount may not exceed what it discounts: the lines (and charges) of
  // its tax group, or without tax all lines and charges. Lines that are
  // negative by themselves (credits) are not a discount's fault.
  for (const [key, discounted] of group_discounts) {
    const tax = groups.get(key);
    const base = tax
      ? (group_lines.get(key) ?? 0n) + (group_adjustments.get(key) ?? 0n) +
        discounted.cents
      : subtotal + charges.total;
    if (discounted.cents > 0n && discounted.cents > base) {
      const what = tax
        ? `the lines and charges taxed ${tax.category} ${
          format_rate(tax.rate)
        }% come to ${format_cents(base)}`
        : `the lines and charges come to ${format_cents(base)}`;
      problems.push({
        path: discounted.path,
        message: `is larger than what it discounts: ${what}, the discounts to ${
          format_cents(discounted.cents)
        }`,
      });
    }
  }

  const exempt_used = [...groups.values()].some((tax) =>
    EXEMPT_CATEGORIES.includes(tax.category)
  );
  if (exempt_used && !value.tax_exemption_reason) {
    problems.push({
      path: ["tax_exemption_reason"],
      message:
        "is required when a line is exempt or not taxed here (E, AE, K, G, O)",
    });
  }
  const bill_to = value.bill_to ?? value.recipient;
  if ([...groups.values()].some((tax) => tax.category === "AE")) {
    for (
      const [party, data] of [["sender", value.sender], [
        value.bill_to ? "bill_to" : "recipient",
        bill_to,
      ]] as const
    ) {
      if (!data?.tax_id) {
        problems.push({
          path: [party, "tax_id"],
          message: "is required for reverse charge (AE): both parties' tax ids",
        });
      }
    }
  }

  const breakdown: TaxBreakdownRow[] = [];
  let tax_total = 0n;
  const ordered = [...groups.entries()].sort(([, a], [, b]) =>
    TAX_CATEGORY_ORDER.indexOf(a.category) -
      TAX_CATEGORY_ORDER.indexOf(b.category) ||
    Number(
      b.rate.units * 10n ** BigInt(4 - b.rate.scale) -
        a.rate.units * 10n ** BigInt(4 - a.rate.scale),
    )
  );
  for (const [key, tax] of ordered) {
    const taxable = (group_lines.get(key) ?? 0n) +
      (group_adjustments.get(key) ?? 0n);
    const tax_amount = percent_of(taxable, tax.rate, { minor_units });
    tax_total += tax_amount;
    breakdown.push({
      category: tax.category,
      rate: format_rate(tax.rate),
      taxable_amount: format_cents(taxable),
      tax_amount: format_cents(tax_amount),
      ...(EXEMPT_CATEGORIES.includes(tax.category) && value.tax_exemption_reason
        ? { exemption_reason: value.tax_exemption_reason }
        : {}),
    });
  }
  const total_without_tax = subtotal - discounts.total + charges.total;
  const total = total_without_tax + tax_total;

  const amount_paid = value.amount_paid !== undefined
    ? to_cents(value.amount_paid)
    : undefined;
  if (amount_paid !== undefined && amount_paid > (total > 0n ? total : 0n)) {
    problems.push({
      path: ["amount_paid"],
      message: `must not be more than the total (${format_cents(total)})`,
    });
  }
  if (
    value.expected_total !== undefined &&
    to_cents(value.expected_total) !== total
  ) {
    problems.push({
      path: ["expected_total"],
      message: `is ${
        format_cents(to_cents(value.expected_total))
      } but the total is ${format_cents(total)}`,
    });
  }
  if (
    value.expected_tax_total !== undefined &&
    to_cents(value.expected_tax_total) !== tax_total
  ) {
    problems.push({
      path: ["expected_tax_total"],
      message: `is ${
        format_cents(to_cents(value.expected_tax_total))
      } but the tax total is ${format_cents(tax_total)}`,
    });
  }

  if (value.payment?.iban !== undefined) {
    const problem = iban_problem(value.payment.iban);
    if (problem) problems.push({ path: ["payment", "iban"], message: problem });
  }
  if (value.payment?.bic !== undefined) {
    const problem = bic_problem(value.payment.bic);
    if (problem) problems.push({ path: ["payment", "bic"], message: problem });
  }
  if (value.payment?.link !== undefined && !is_https_url(value.payment.link)) {
    problems.push({
      path: ["payment", "link"],
      message: "must be an https:// URL",
    });
  }
  if (
    value.document_type === "credit_note" && !value.preceding_invoice_number
  ) {
    problems.push({
      path: ["preceding_invoice_number"],
      message: "is required for a credit note: the invoice it corrects",
    });
  }
  let locale: string | undefined;
  if (value.locale !== undefined) {
    locale = supported_locale(value.locale);
    if (!locale) {
      problems.push({
        path: ["locale"],
        message: `is not supported; use one of ${SUPPORTED_LOCALES.join(", ")}`,
      });
    }
  }
  let logo: Invoice["logo"];
  if (value.logo !== undefined) {
    try {
      logo = validate_logo(value.logo);
    } catch (error) {
      if (!(error instanceof ImageError)) throw error;
      problems.push({
        path: ["logo"],
        message: error.message,
        ...(error.code === "logo_too_large" ? { error_code: error.code } : {}),
      });
    }
  }

  const computation: Computation = {
    problems,
    has_tax,
    line_taxes,
    discounts: discounts.entries,
    charges: charges.entries,
    breakdown,
    subtotal,
    discount_total: discounts.total,
    charge_total: charges.total,
    tax_total,
    total,
    amount_paid,
    logo,
    locale,
  };
  computations.set(value, computation);
  return computation;
}

function is_https_url(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "https:" && url.hostname !== "";
  } catch {
    return false;
  }
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
  });
  for (const field of ["discounts", "charges"] as const) {
    (value[field] ?? []).forEach((entry, index) => {
      check([field, index, "amount"], entry.amount);
    });
  }
  check(["amount_paid"], value.amount_paid);
  check(["expected_total"], value.expected_total);
  check(["expected_tax_total"], value.expected_tax_total);
  return paths;
}

function check_invoice(value: ParsedRequest, sink: IssueSink): void {
  if (is_calendar_date(value.date) && value.due_date < value.date) {
    sink.addIssue({
      path: ["due_date"],
      message: `must not be before date (${value.date})`,
    });
  }
  const period = value.billing_period;
  if (period !== undefined && period.end < period.start) {
    sink.addIssue({
      path: ["billing_period", "end"],
      message: `must not be before start (${period.start})`,
    });
  }
  const items_key = value.items !== undefined ? "items" : "line_items";
  const items = value.items ?? value.line_items ?? [];
  let amounts_valid = true;
  for (const path of fractional_amounts(value, items_key)) {
    amounts_valid = false;
    sink.addIssue({
      path,
      message: `must be a whole number: ${value.currency} has no minor unit`,
    });
  }
  items.forEach((item, index) => {
    const rate = item.rate ?? item.unit_price;
    if (
      rate === undefined ||
      item.unit_price !== undefined && item.rate !== undefined
    ) {
      amounts_valid = false;
      return;
    }
    const expected = line_amount_cents(item.quantity, rate);
    if (decimal_places(item.amount) > 2 || to_cents(item.amount) !== expected) {
      amounts_valid = false;
      sink.addIssue({
        path: [items_key, index, "amount"],
        message: `must equal quantity × rate = ${format_cents(expected)} (got ${
          format_decimal(item.amount)
        })`,
      });
    }
  });
  if (!amounts_valid) return; // totals of wrong line amounts say nothing
  for (const problem of compute(value).problems) {
    sink.addIssue({
      path: problem.path,
      message: problem.message,
      error_code: problem.error_code,
    });
  }
}

function normalize_party(party: ParsedParty): InvoiceParty {
  const { address, ...rest } = party;
  if (address === undefined) return rest;
  const lines = (typeof address === "string" ? address.split("\n") : address)
    .map((line) => line.trim()).filter((line) => line !== "");
  const one_line = typeof address === "string" && lines.length === 1;
  return {
    ...rest,
    ...(one_line ? { address: lines[0] } : {}),
    ...(lines.length > 0 ? { address_lines: lines } : {}),
  };
}

function check_currency_in_use(code: string, sink: IssueSink): void {
  // A code of the wrong form already has the format message; one is enough.
  if (!/^[A-Z]{3}$/.test(code)) return;
  if (currency_minor_units(code) === undefined) {
    sink.addIssue({
      message: `must be an ISO 4217 currency code in use like EUR (got ${
        JSON.stringify(code)
      })`,
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

function normalize_invoice(value: ParsedRequest): Invoice {
  const computed = compute(value);
  const items: InvoiceLineItem[] = (value.items ?? value.line_items ?? []).map((
    item,
    index,
  ) => ({
    description: item.description,
    quantity: item.quantity,
    rate: format_decimal((item.rate ?? item.unit_price) as number),
    amount: format_cents(to_cents(item.amount)),
    ...(item.unit ? { unit: item.unit } : {}),
    ...(item.item_id ? { item_id: item.item_id } : {}),
    ...(item.buyer_item_id ? { buyer_item_id: item.buyer_item_id } : {}),
    ...tax_fields(computed.line_taxes[index]),
  }));
  const adjusted = computed.discounts.length > 0 || computed.charges.length > 0;
  const amount_due = computed.total - (computed.amount_paid ?? 0n);
  const optional = <T>(key: string, present: unknown, v: T) =>
    present ? { [key]: v } : {};
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
    ...optional("locale", computed.locale, computed.locale),
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
    amount_due: format_cents(amount_due),
    ...optional("purchase_order", value.purchase_order, value.purchase_order),
    ...optional(
      "buyer_reference",
      value.buyer_reference,
      value.buyer_reference,
    ),
    ...optional("payment_terms", value.payment_terms, value.payment_terms),
    ...optional("payment", value.payment, strip_undefined(value.payment ?? {})),
    ...optional("logo", computed.logo, computed.logo),
    ...optional("delivery_date", value.delivery_date, value.delivery_date),
    ...optional("billing_period", value.billing_period, value.billing_period),
  };
  return invoice;
}

function strip_undefined<T extends object>(value: T): T {
  return Object.fromEntries(
    Object.entries(value).filter(([, v]) => v !== undefined),
  ) as T;
}
