/**
 * The invoice request's shape: every field a client may send, with its
 * description and field rules. Cross-field rules and the arithmetic live in
 * `invoice_compute.ts`; `invoice.ts` puts them together.
 *
 * @module
 */
import { z } from "zod";
import { LOGO_LIMITS } from "./images.ts";
import { PAGE_SIZES, SUPPORTED_LOCALES } from "./locales.ts";
import {
  NOTE_SUBJECT_CODES,
  REFERENCE_SCHEMES,
  VATEX_CODES,
} from "./einvoice_codes.ts";
import { ATTACHMENT_LIMITS, AttachmentSchema } from "./attachments.ts";
import {
  bounded_list,
  calendar_date,
  cents_amount,
  INVOICE_LIMITS,
  listed_code,
  non_negative_amount,
  optional_text,
  percent,
  required_text,
  tax_rate,
  TaxCategorySchema,
} from "./invoice_fields.ts";
import { LineItemSchema, reason_code } from "./invoice_lines.ts";
import {
  DeliverToSchema,
  PartySchema,
  PayeeSchema,
  SenderSchema,
  TaxRepresentativeSchema,
} from "./invoice_parties.ts";
import { PaymentSchema } from "./invoice_payment.ts";
import { currency_minor_units } from "./currencies.ts";
import { issue_check, type IssueSink } from "./zod_checks.ts";

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

/** A 3-letter ISO 4217 code in use, any case. */
const currency_code = z.string().trim().regex(
  /^[A-Za-z]{3}$/,
  "must be a 3-letter ISO 4217 code like EUR",
).toUpperCase().check(issue_check(check_currency_in_use));

/** A document-level discount or charge: a fixed amount or a percent of its base. */
export const AllowanceChargeSchema = z.strictObject({
  description: required_text(
    INVOICE_LIMITS.allowance_description,
    'What it is, e.g. "Loyalty discount" or "Shipping" (BT-97 / BT-104).',
  ),
  amount: non_negative_amount.optional().describe(
    "A fixed amount, 0 or more (give this or `percent`) (BT-92 / BT-99).",
  ),
  percent: percent.optional().describe(
    "Percent of `base_amount`, rounded to the cent (give this or `amount`) (BT-94 / BT-101). " +
      "Without `base_amount` a discount is of the lines of its tax rate, a charge " +
      "(or anything without tax) of all lines.",
  ),
  base_amount: non_negative_amount.optional().describe(
    "The amount `percent` is of (BT-93 / BT-100).",
  ),
  reason_code,
  tax_rate: tax_rate.optional(),
  tax_category: TaxCategorySchema.optional(),
}).meta({ id: "DiscountOrCharge" });

const items = z.array(LineItemSchema).min(1, "must have at least one item")
  .max(
    INVOICE_LIMITS.max_items,
    `must have at most ${INVOICE_LIMITS.max_items} items`,
  );

const adjustments = (description: string) =>
  bounded_list(AllowanceChargeSchema, INVOICE_LIMITS.allowances, description);

const reference = (description: string) =>
  optional_text(INVOICE_LIMITS.reference, description);

/** Fields every invoice request has (the invoice itself). */
const InvoiceFields = {
  invoice_number: required_text(
    INVOICE_LIMITS.invoice_number,
    "Invoice identifier, printed on the PDF and used for its file name.",
  ),
  date: calendar_date.describe("Invoice date, YYYY-MM-DD."),
  due_date: calendar_date.describe(
    "Payment due date, YYYY-MM-DD, not before `date`.",
  ),
  currency: currency_code.optional().describe(
    "Optional ISO 4217 currency code shown with amounts; lower case is accepted. " +
      "Amounts respect its minor unit: JPY, KRW and other currencies without " +
      "one take whole numbers only.",
  ),
  sender: SenderSchema.describe("The issuing party."),
  bill_to: PartySchema.optional().describe(
    "The billed party (required). Alias: `recipient`.",
  ),
  recipient: PartySchema.optional().describe("Alias of `bill_to`."),
  items: items.optional().describe(
    `Line items (required), 1 to ${INVOICE_LIMITS.max_items}. Alias: \`line_items\`.`,
  ),
  line_items: items.optional().describe("Alias of `items`."),
  notes: optional_text(INVOICE_LIMITS.notes, "Optional notes (BT-22)."),
  tax_rate: tax_rate.optional().describe(
    "Default tax rate of lines (and discounts and charges) that give none.",
  ),
  tax_category: TaxCategorySchema.optional().describe(
    "Default tax category of lines that give none (S when a rate > 0 is given, Z at 0).",
  ),
  tax_exemption_reason: optional_text(
    INVOICE_LIMITS.tax_exemption_reason,
    "Why no tax is charged (BT-120); required when a line is E, AE, K, G or O " +
      "and `tax_exemptions` does not name its category.",
  ),
  tax_label: optional_text(
    INVOICE_LIMITS.tax_label,
    'Printed name of the tax, e.g. "VAT", "GST", "Sales tax" (default: the locale\'s).',
  ),
  discounts: adjustments("Document-level discounts (BG-20)."),
  charges: adjustments("Document-level charges such as shipping (BG-21)."),
  amount_paid: non_negative_amount.optional().describe(
    "Already paid (BT-113); the invoice then shows the amount due, " +
      "negative (a credit) when more was paid than the total.",
  ),
  purchase_order: reference("The buyer's purchase order number (BT-13)."),
  buyer_reference: reference(
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
  brand_color: z.string().regex(
    /^#[0-9A-Fa-f]{6}$/,
    'must be a colour written "#RRGGBB", e.g. "#0A7C66"',
  ).optional().describe(
    "The brand colour of the PDF (`#RRGGBB`): the title, the rule under the " +
      "header and the amount due take it. A colour whose contrast against " +
      "white is below 4.5:1 is darkened for text until it reaches 4.5:1 and " +
      "used as given for the rule; it is never refused.",
  ),
  page_size: z.enum(PAGE_SIZES).optional().describe(
    "Paper of the PDF: a4 or letter. Default: letter for the en-US and " +
      "en-CA locales, a4 for every other locale and for an invoice without a " +
      "locale.",
  ),
  locale: z.string().trim().max(35).optional().describe(
    `Language and formats of the PDF: ${SUPPORTED_LOCALES.join(", ")}. ` +
      "Default: from Accept-Language, else en-US.",
  ),
  document_type: z.enum([
    "invoice",
    "credit_note",
    "corrected_invoice",
    "self_billed_invoice",
  ]).optional().describe(
    "invoice (default), credit_note, corrected_invoice (BT-3 384, with the invoice it " +
      "corrects in preceding_invoices) or self_billed_invoice (389, issued by the buyer).",
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
};

/** References to other documents (BT-11 to BT-19, BG-3) and the tax point date. */
const ReferenceFields = {
  contract_reference: reference("The contract this invoice is under (BT-12)."),
  project_reference: reference("The project (BT-11)."),
  sales_order_reference: reference("The seller's sales order (BT-14)."),
  receiving_advice_reference: reference("The receiving advice (BT-15)."),
  despatch_advice_reference: reference("The despatch advice (BT-16)."),
  tender_reference: reference("The tender or lot (BT-17)."),
  invoiced_object: z.strictObject({
    scheme: listed_code(
      REFERENCE_SCHEMES,
      "must be a UNTDID 1153 reference code qualifier such as AAB or ABZ",
    ).optional().describe("UNTDID 1153 scheme code (BT-18-1)."),
    id: required_text(INVOICE_LIMITS.reference, "The identifier."),
  }).optional().describe(
    "An object the invoice is about, e.g. a subscription or meter `{scheme?, id}` (BT-18).",
  ),
  accounting_reference: reference(
    "The buyer's accounting reference, e.g. a cost centre (BT-19).",
  ),
  preceding_invoices: bounded_list(
    z.strictObject({
      number: required_text(
        INVOICE_LIMITS.invoice_number,
        "Number of the earlier invoice (BT-25).",
      ),
      date: calendar_date.optional().describe(
        "Its date, YYYY-MM-DD (BT-26).",
      ),
    }),
    INVOICE_LIMITS.list_entries,
    "Earlier invoices this one refers to `{number, date?}` (BG-3), besides " +
      "`preceding_invoice_number`.",
  ),
  tax_point_date: calendar_date.optional().describe(
    "Date the tax becomes due, when it differs from the invoice date, YYYY-MM-DD (BT-7).",
  ),
};

/** Notes, further parties, tax details and attachments. */
const DetailFields = {
  additional_notes: bounded_list(
    z.strictObject({
      subject_code: listed_code(
        NOTE_SUBJECT_CODES,
        "must be a UNTDID 4451 subject code such as AAI, ADU, REG or SUR",
      ).optional().describe("UNTDID 4451 subject code (BT-21)."),
      text: required_text(INVOICE_LIMITS.notes, "The note (BT-22)."),
    }),
    INVOICE_LIMITS.additional_notes,
    "More notes `{subject_code?, text}` besides `notes` (BG-1).",
  ),
  deliver_to: DeliverToSchema.optional().describe(
    "Where the goods or services go, when not to the buyer's address (BG-13, BG-15).",
  ),
  payee: PayeeSchema.optional().describe(
    "Who is paid, when not the seller (BG-10).",
  ),
  tax_representative: TaxRepresentativeSchema.optional().describe(
    "The seller's tax representative (BG-11).",
  ),
  rounding_amount: cents_amount.pipe(
    z.number().min(-INVOICE_LIMITS.max_money).max(INVOICE_LIMITS.max_money),
  ).optional().describe(
    "Added to the total to round the amount due, e.g. 0.01 (BT-114).",
  ),
  tax_exemptions: bounded_list(
    z.strictObject({
      tax_category: z.enum(["E", "AE", "K", "G", "O"]).describe(
        "The category the reason is for.",
      ),
      reason: optional_text(
        INVOICE_LIMITS.tax_exemption_reason,
        "Why no tax is charged (BT-120).",
      ),
      reason_code: z.string().trim().toUpperCase().refine(
        (code) => VATEX_CODES.has(code),
        "must be a VATEX code such as VATEX-EU-AE, VATEX-EU-IC or VATEX-EU-O",
      ).optional().describe(
        "VATEX exemption reason code, any case (BT-121).",
      ),
    }),
    7,
    "Exemption reason per category `{tax_category, reason?, reason_code?}` " +
      "(BT-120 / BT-121); `tax_exemption_reason` covers categories not named here.",
  ),
  tax_currency: currency_code.optional().describe(
    "Currency the tax is accounted in, when not `currency` (BT-6); give " +
      "`tax_total_in_tax_currency` with it.",
  ),
  tax_total_in_tax_currency: cents_amount.optional().describe(
    "The tax total in `tax_currency` (BT-111).",
  ),
  attachments: bounded_list(
    AttachmentSchema,
    ATTACHMENT_LIMITS.max_count,
    `Supporting documents (BG-24), at most ${ATTACHMENT_LIMITS.max_count} and ${
      ATTACHMENT_LIMITS.max_total_bytes / 1024
    } KB decoded together.`,
  ),
};

/** The invoice request without its cross-field checks. */
export const RawInvoiceSchema = z.strictObject({
  ...InvoiceFields,
  ...ReferenceFields,
  ...DetailFields,
});

/** A request as parsed by {@link RawInvoiceSchema}. */
export type ParsedRequest = z.output<typeof RawInvoiceSchema>;
/** A parsed party. */
export type ParsedParty = z.output<typeof PartySchema>;
/** A parsed line item. */
export type ParsedItem = z.output<typeof LineItemSchema>;
