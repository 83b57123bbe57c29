/**
 * Line items of an invoice request (BG-25) with their allowances and
 * charges (BG-27, BG-28), period (BG-26), price details (BG-29) and item
 * information (BG-31, BG-32).
 *
 * @module
 */
import { z } from "zod";
import { CLASSIFICATION_SCHEMES, REFERENCE_SCHEMES } from "./einvoice_codes.ts";
import {
  bounded_list,
  calendar_date,
  cents_amount,
  einvoice_country,
  INVOICE_LIMITS,
  listed_code,
  money,
  optional_text,
  percent,
  quantity,
  required_text,
  schemed_identifier,
  tax_rate,
  TaxCategorySchema,
} from "./invoice_fields.ts";

/** A reason code of an allowance (UNTDID 5189) or charge (UNTDID 7161). */
export const reason_code = z.string().trim().regex(
  /^[A-Z0-9]{1,3}$/,
  "must be a UNTDID 5189 (discounts) or 7161 (charges) reason code",
).optional().describe(
  "Reason code: UNTDID 5189 for discounts (e.g. 95 discount), UNTDID 7161 for charges " +
    "(e.g. FC freight) (BT-98 / BT-105, lines BT-140 / BT-145).",
);

/** A discount or charge of one line: a fixed amount or a percent of the line. */
export const LineAllowanceChargeSchema = z.strictObject({
  description: required_text(
    INVOICE_LIMITS.allowance_description,
    'What it is, e.g. "Volume discount" (BT-139 / BT-144).',
  ),
  amount: cents_amount.pipe(
    z.number().min(0, "must not be negative").max(INVOICE_LIMITS.max_money),
  ).optional().describe(
    "A fixed amount (give this or `percent`) (BT-136 / BT-141).",
  ),
  percent: percent.optional().describe(
    "Percent of quantity × rate, rounded to the cent (give this or `amount`) (BT-138 / BT-143).",
  ),
  reason_code,
}).meta({ id: "LineDiscountOrCharge" });

const period = z.strictObject({
  start: calendar_date.describe("First day, YYYY-MM-DD (BT-134)."),
  end: calendar_date.describe(
    "Last day, YYYY-MM-DD, not before `start` (BT-135).",
  ),
});

/** One line item as the client sends it. `unit_price` is accepted as an alias of `rate`. */
export const LineItemSchema = z.strictObject({
  description: required_text(
    INVOICE_LIMITS.description,
    "What is billed: the item name (BT-153).",
  ),
  quantity: quantity.describe(
    "Number of units, greater than 0 with up to 4 decimals (BT-129).",
  ),
  rate: money.optional().describe(
    "Net price per unit (per `base_quantity` units when given) (BT-146). Alias: `unit_price`.",
  ),
  unit_price: money.optional().describe("Alias of `rate`."),
  amount: money.describe(
    "Line total (BT-131): quantity × rate ÷ base_quantity − line discounts + line charges; " +
      "a value within one minor unit of that exact product is taken as the line total.",
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
  base_quantity: quantity.optional().describe(
    "Number of units the rate is for, e.g. 100 for a price per hundred (BT-149).",
  ),
  gross_rate: money.optional().describe(
    "Price per unit before the price discount; the discount is gross_rate − rate (BT-148, BT-147).",
  ),
  discounts: bounded_list(
    LineAllowanceChargeSchema,
    INVOICE_LIMITS.allowances,
    "Discounts of this line (BG-27).",
  ),
  charges: bounded_list(
    LineAllowanceChargeSchema,
    INVOICE_LIMITS.allowances,
    "Charges of this line (BG-28).",
  ),
  item_description: optional_text(
    INVOICE_LIMITS.description,
    "A longer description of the item (BT-154).",
  ),
  note: optional_text(INVOICE_LIMITS.notes, "A note on the line (BT-127)."),
  period: period.optional().describe("The period this line covers (BG-26)."),
  order_line_reference: optional_text(
    INVOICE_LIMITS.reference,
    "The line of the buyer's purchase order (BT-132).",
  ),
  accounting_reference: optional_text(
    INVOICE_LIMITS.reference,
    "The buyer's accounting reference for this line (BT-133).",
  ),
  object_id: z.strictObject({
    scheme: listed_code(
      REFERENCE_SCHEMES,
      "must be a UNTDID 1153 reference code qualifier such as AAB or ABZ",
    ).optional().describe("UNTDID 1153 scheme code (BT-128-1)."),
    id: required_text(INVOICE_LIMITS.reference, "The identifier."),
  }).optional().describe(
    "An object the line is about, e.g. a meter or subscription `{scheme?, id}` (BT-128).",
  ),
  standard_id: schemed_identifier(
    "The item's registered identifier `{scheme, id}`, e.g. a GTIN with scheme 0160 (BT-157).",
  ).optional(),
  classifications: bounded_list(
    z.strictObject({
      scheme: listed_code(
        CLASSIFICATION_SCHEMES,
        "must be a UNTDID 7143 code such as STI, HS, CV or MP",
      ).describe("UNTDID 7143 scheme code, e.g. HS, CV (CPV), STI (BT-158-1)."),
      code: required_text(INVOICE_LIMITS.reference, "The code (BT-158)."),
      version: optional_text(
        INVOICE_LIMITS.reference,
        "Version of the scheme (BT-158-2).",
      ),
    }),
    INVOICE_LIMITS.list_entries,
    "Classifications of the item `{scheme, code, version?}` (BT-158).",
  ),
  origin_country: einvoice_country.optional().describe(
    "Country of origin of the item, ISO 3166-1 alpha-2 (BT-159).",
  ),
  attributes: bounded_list(
    z.strictObject({
      name: required_text(INVOICE_LIMITS.attribute, "Attribute name (BT-160)."),
      value: required_text(
        INVOICE_LIMITS.attribute,
        "Attribute value (BT-161).",
      ),
    }),
    INVOICE_LIMITS.list_entries,
    "Properties of the item `{name, value}`, e.g. colour (BG-32).",
  ),
}).meta({ id: "LineItem" });
