/**
 * Building blocks of the invoice request schemas: limits, text, dates,
 * countries, addresses, percentages, money and scheme identifiers.
 *
 * @module
 */
import { z } from "zod";
import { decimal_places } from "./money.ts";
import { COUNTRY_CODES, ICD_SCHEMES } from "./einvoice_codes.ts";

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
  /** Decimals of a quantity (BT-129, BT-149). */
  quantity_decimals: 4,
  /** The footer legal text: three lines of the page footer at most. */
  legal_info: 360,
  legal_info_lines: 3,
  /** Identifiers, classifications, attributes, notes and references per list. */
  list_entries: 20,
  attribute: 200,
  additional_notes: 20,
  accounts: 5,
  discount_terms: 5,
} as const;

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar date written YYYY-MM-DD. */
export function is_calendar_date(text: string): boolean {
  const match = DATE_PATTERN.exec(text);
  if (!match) return false;
  const [year, month, day] = [
    Number(match[1]),
    Number(match[2]),
    Number(match[3]),
  ];
  if (month < 1 || month > 12 || day < 1) return false;
  const days_in_month = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= days_in_month;
}

/** A trimmed string of 1 to `max` characters. */
export function required_text(max: number, description: string) {
  return z.string().trim().min(1, "must not be empty").max(
    max,
    `must be at most ${max} characters`,
  ).describe(description);
}

/** An optional trimmed string of at most `max` characters. */
export function optional_text(max: number, description: string) {
  return z.string().trim().max(max, `must be at most ${max} characters`)
    .optional().describe(description);
}

/** A date YYYY-MM-DD that exists in the calendar. */
export const calendar_date = z.string().regex(
  DATE_PATTERN,
  "must be YYYY-MM-DD",
).refine(is_calendar_date, "is not a real calendar date");

/** An e-mail address. */
export const email = z.string().trim().max(
  INVOICE_LIMITS.email,
  `must be at most ${INVOICE_LIMITS.email} characters`,
).pipe(z.email("must be a valid e-mail address"));

const address_line = z.string().trim().max(
  INVOICE_LIMITS.address,
  `must be at most ${INVOICE_LIMITS.address} characters`,
);

/** A street address: one line, lines separated by "\n", or an array of lines. */
export const address = z.union([
  address_line,
  z.array(address_line).min(1, "must have at least one line").max(
    INVOICE_LIMITS.address_lines,
    `must have at most ${INVOICE_LIMITS.address_lines} lines`,
  ),
]).describe(
  'Street address: one line, several lines separated by "\\n", or an array of lines.',
);

const region_names = new Intl.DisplayNames(["en"], { type: "region" });

/** True for an assigned ISO 3166-1 alpha-2 code (upper case). */
function is_country_code(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && region_names.of(code) !== code;
}

/** An ISO 3166-1 alpha-2 country code, any case. */
export const country = z.string().trim().toUpperCase()
  .refine(
    is_country_code,
    "must be an ISO 3166-1 alpha-2 country code like DE",
  );

/** A country code the e-invoice rule sets accept (origins, delivery, representatives). */
export const einvoice_country = z.string().trim().toUpperCase()
  .refine(
    (code) => COUNTRY_CODES.has(code),
    "must be an ISO 3166-1 alpha-2 country code like DE",
  );

/** UNTDID 5305 tax categories used by EN 16931. */
export const TaxCategorySchema = z.enum(["S", "Z", "E", "AE", "K", "G", "O"])
  .describe(
    "UNTDID 5305: S standard, Z zero rated, E exempt, AE reverse charge, " +
      "K intra-community supply, G export outside the EU, O outside the scope of tax.",
  );

/** 0 to 100 with at most two decimals. */
export const percent = z.number().min(0, "must be between 0 and 100").max(
  100,
  "must be between 0 and 100",
).refine(
  (value) => decimal_places(value) <= 2,
  "must have at most 2 decimals",
);

/** A tax rate in percent. */
export const tax_rate = percent.describe(
  "Tax rate in percent, 0 to 100 with up to 2 decimals (e.g. 19, 7.7).",
);

/** An amount with at most two decimals. */
export const cents_amount = z.number().refine(
  (value) => decimal_places(value) <= 2,
  "must have at most 2 decimals",
);

/** A rate or amount within the exact range of JSON numbers we accept. */
export const money = z.number().refine(
  (value) => Math.abs(value) <= INVOICE_LIMITS.max_money,
  `must be between -${INVOICE_LIMITS.max_money} and ${INVOICE_LIMITS.max_money}`,
);

/** A positive quantity with up to four decimals (BT-129, BT-149). */
export const quantity = z.number().gt(0, "must be greater than 0")
  .max(INVOICE_LIMITS.max_quantity).refine(
    (value) => decimal_places(value) <= INVOICE_LIMITS.quantity_decimals,
    `must have at most ${INVOICE_LIMITS.quantity_decimals} decimals`,
  );

/** A non-negative amount with at most two decimals. */
export const non_negative_amount = cents_amount.pipe(
  z.number().min(0, "must not be negative").max(INVOICE_LIMITS.max_money),
);

/** A list of at most `max` entries. */
export function bounded_list<T extends z.ZodType>(
  entry: T,
  max: number,
  description: string,
) {
  return z.array(entry).max(max, `must have at most ${max} entries`)
    .optional().describe(description);
}

/** An ISO/IEC 6523 ICD scheme code, e.g. 0088 (GLN). */
export const icd_scheme = z.string().trim().refine(
  (code) => ICD_SCHEMES.has(code),
  "must be an ISO/IEC 6523 ICD scheme code such as 0088 (GLN), 0060 (DUNS) or 0204",
).describe("ISO/IEC 6523 ICD scheme code, e.g. 0088 (GLN), 0060 (DUNS), 0204.");

const identifier_id = required_text(
  INVOICE_LIMITS.reference,
  "The identifier.",
);

/** An identifier `{scheme?, id}` whose scheme is an ISO/IEC 6523 ICD code. */
export function scheme_identifier(description: string) {
  return z.strictObject({ scheme: icd_scheme.optional(), id: identifier_id })
    .describe(description);
}

/** An identifier `{scheme, id}` whose scheme (an ISO/IEC 6523 ICD code) is required. */
export function schemed_identifier(description: string) {
  return z.strictObject({ scheme: icd_scheme, id: identifier_id })
    .describe(description);
}

/** A code of a list, refused with `message` when unknown. */
export function listed_code(list: ReadonlySet<string>, message: string) {
  return z.string().trim().refine((code) => list.has(code), message);
}
