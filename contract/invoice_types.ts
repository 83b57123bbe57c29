/**
 * Types of a validated, normalised invoice: what the renderer and the
 * e-invoice writers receive.
 *
 * The zod schemas in `invoice.ts` produce exactly this shape. Money is carried
 * as decimal strings with two places, computed with bigint cents, so no
 * floating-point sum ever reaches a document. Business terms of EN 16931
 * (BT-n, BG-n) are named where a field maps to one.
 */

/** UNTDID 5305 tax categories used by EN 16931. */
export type TaxCategory = "S" | "Z" | "E" | "AE" | "K" | "G" | "O";

/**
 * UNTDID 1001 document type (BT-3): invoice 380, credit note 381, corrected
 * invoice 384, self-billed invoice 389.
 */
export type DocumentType =
  | "invoice"
  | "credit_note"
  | "corrected_invoice"
  | "self_billed_invoice";

/** An identifier with its optional scheme (ISO/IEC 6523 ICD or UNTDID 1153 code). */
export interface SchemeIdentifier {
  scheme?: string;
  id: string;
}

/** A party on the invoice (sender or billed party). */
export interface InvoiceParty {
  name: string;
  email: string;
  /** The address as sent when it was one line. */
  address?: string;
  /** Every address line, in order (from a one-line, multi-line or array `address`). */
  address_lines?: string[];
  city?: string;
  state?: string;
  zip?: string;
  /** ISO 3166-1 alpha-2, upper case (BT-40 / BT-55). */
  country?: string;
  /** VAT / GST / sales-tax registration (BT-31 / BT-48). */
  tax_id?: string;
  /** Legal registration number (BT-30 / BT-47). */
  company_id?: string;
  /** Its ISO/IEC 6523 ICD scheme (BT-30-1 / BT-47-1). */
  company_id_scheme?: string;
  phone?: string;
  /** Contact person (seller contact BT-41 / buyer contact BT-56). */
  contact_name?: string;
  /** Where the party receives e-invoices: CEF EAS scheme and id (BT-34 / BT-49). */
  electronic_address?: { scheme: string; id: string };
  /** Trading name (BT-28 / BT-45). */
  trading_name?: string;
  /** Party identifiers (seller BT-29, buyer BT-46). */
  identifiers?: SchemeIdentifier[];
  /** The seller's local tax number (BT-32). */
  tax_number?: string;
  /** The seller's additional legal information (BT-33). */
  legal_info?: string;
}

/** An address of a further party: the forms of a party's address, normalized. */
export interface InvoiceAddress {
  /** The address as sent when it was one line. */
  address?: string;
  /** Every address line, in order. */
  address_lines?: string[];
  city?: string;
  zip?: string;
  state?: string;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
}

/** Where goods or services are delivered (BG-13, BG-15). */
export interface DeliverTo extends InvoiceAddress {
  /** BT-70 */
  name?: string;
  /** BT-71 */
  location_id?: SchemeIdentifier;
}

/** The party paid when it is not the seller (BG-10). */
export interface Payee {
  /** BT-59 */
  name: string;
  /** BT-60 */
  identifier?: SchemeIdentifier;
  /** BT-61 */
  company_id?: string;
  /** BT-61-1 */
  company_id_scheme?: string;
}

/** The seller's tax representative (BG-11, address BG-12). */
export interface TaxRepresentative extends InvoiceAddress {
  /** BT-62 */
  name: string;
  /** BT-63, as sent. */
  vat_id: string;
}

/** A discount (BG-27) or charge (BG-28) of one line. */
export interface LineAllowanceCharge {
  /** BT-139 / BT-144 */
  description: string;
  /** Two decimals; computed for a percent one (BT-136 / BT-141). */
  amount: string;
  /** BT-138 / BT-143, when given as a percent. */
  percent?: string;
  /** quantity × rate ÷ base quantity, two decimals, for a percent (BT-137 / BT-142). */
  base_amount?: string;
  /** UNTDID 5189 / 7161 (BT-140 / BT-145). */
  reason_code?: string;
}

/** One validated line item. */
export interface InvoiceLineItem {
  /** The item name (BT-153). */
  description: string;
  /** Greater than 0, at most four decimals (BT-129). */
  quantity: number;
  /** Net price per unit (per `base_quantity` units) as a plain decimal string, e.g. "1250.5", "-20" (BT-146). */
  rate: string;
  /**
   * The line total, always two decimals (BT-131): quantity × rate ÷ base
   * quantity − line discounts + line charges, as sent (within one minor unit
   * of the exact value).
   */
  amount: string;
  /** UN/ECE Recommendation 20 unit code, e.g. "HUR" (BT-130). */
  unit?: string;
  /** Resolved tax category (the item's, else the invoice's); absent without tax. */
  tax_category?: TaxCategory;
  /** Resolved tax rate in percent, e.g. "19", "7.7"; absent without tax. */
  tax_rate?: string;
  /** The seller's item identifier (BT-155). */
  item_id?: string;
  /** The buyer's item identifier (BT-156). */
  buyer_item_id?: string;
  /** Units the rate is for (BT-149), when not 1. */
  base_quantity?: number;
  /** Price before the price discount, plain decimal (BT-148). */
  gross_rate?: string;
  /** gross_rate − |rate|, plain decimal (BT-147); with `gross_rate`. */
  price_discount?: string;
  /** BG-27 */
  discounts?: LineAllowanceCharge[];
  /** BG-28 */
  charges?: LineAllowanceCharge[];
  /** BT-154 */
  item_description?: string;
  /** BT-127 */
  note?: string;
  /** BG-26: first and last day, YYYY-MM-DD. */
  period?: { start: string; end: string };
  /** BT-132 */
  order_line_reference?: string;
  /** BT-133 */
  accounting_reference?: string;
  /** BT-128 (scheme: UNTDID 1153). */
  object_id?: SchemeIdentifier;
  /** BT-157 (scheme: ISO/IEC 6523 ICD, e.g. 0160 GTIN). */
  standard_id?: { scheme: string; id: string };
  /** BT-158 (scheme: UNTDID 7143). */
  classifications?: { scheme: string; code: string; version?: string }[];
  /** BT-159 */
  origin_country?: string;
  /** BG-32 */
  attributes?: { name: string; value: string }[];
}

/** A document-level discount (BG-20) or charge (BG-21). */
export interface AllowanceCharge {
  description: string;
  /** The amount, two decimals; computed for a percent one. */
  amount: string;
  /** The percent, when given as one (of `base_amount`). */
  percent?: string;
  /** The amount a percent applies to, two decimals (BT-93 / BT-100). */
  base_amount?: string;
  /** UNTDID 5189 / 7161 (BT-98 / BT-105). */
  reason_code?: string;
  tax_category?: TaxCategory;
  tax_rate?: string;
}

/** One (category, rate) group of the tax breakdown (BG-23). */
export interface TaxBreakdownRow {
  category: TaxCategory;
  rate: string;
  /** Group line amounts − its discounts + its charges (BT-116). */
  taxable_amount: string;
  /** taxable × rate ÷ 100, rounded once per group (BT-117). */
  tax_amount: string;
  /** For E, AE, K, G and O groups (BT-120). */
  exemption_reason?: string;
  /** VATEX code for E, AE, K, G and O groups (BT-121). */
  exemption_reason_code?: string;
}

/** Payment instructions (BG-16, BG-17). */
export interface PaymentDetails {
  /** Upper case, no spaces (BT-84). */
  iban?: string;
  /** BT-86. */
  bic?: string;
  /** BT-85. */
  account_name?: string;
  bank_name?: string;
  /** Remittance information (BT-83). */
  reference?: string;
  /** An https URL of a payment page. */
  link?: string;
  /** UNTDID 4461 (BT-81), as sent; the e-invoice writers infer it when absent. */
  means_code?: string;
  /** Payment means text (BT-82). */
  means_text?: string;
  /** An account number that is not an IBAN (BT-84). */
  account_id?: string;
  /** More credit-transfer accounts (BG-17). */
  additional_accounts?: {
    iban?: string;
    account_id?: string;
    bic?: string;
    account_name?: string;
  }[];
  /** BG-18: last digits (BT-87) and holder (BT-88). */
  card?: { last4: string; holder?: string };
  /** BG-19: mandate (BT-89), creditor id (BT-90), debited IBAN (BT-91). */
  direct_debit?: {
    mandate_reference: string;
    creditor_id?: string;
    debtor_iban?: string;
  };
  /** Early-payment discounts, computed. */
  discount_terms?: DiscountTerm[];
}

/** An early-payment discount: pay by `date` and deduct `amount`. */
export interface DiscountTerm {
  /** Days after the invoice date. */
  days: number;
  /** The last day the discount applies, YYYY-MM-DD (invoice date + days). */
  date: string;
  /** Percent, two decimals, e.g. "2.00". */
  percent: string;
  /** What the percent is of, two decimals (given, else the amount due). */
  base_amount: string;
  /** The discount, two decimals: base × percent ÷ 100, rounded half away from zero. */
  amount: string;
}

/** A supporting document (BG-24): an attached file, a link, or only its reference. */
export interface InvoiceAttachment {
  /** BT-122 */
  id: string;
  /** BT-123 */
  description?: string;
  /** BT-124: where the document can be fetched. */
  url?: string;
  /** BT-125-2; with `mime_type`, `data` and `size` when a file is attached. */
  filename?: string;
  /** BT-125-1 */
  mime_type?: string;
  /** The file, base64 without whitespace (BT-125). */
  data?: string;
  /** Decoded size of the file in bytes. */
  size?: number;
}

/** A validated logo image. */
export interface InvoiceLogo {
  mime: "image/png" | "image/jpeg";
  base64: string;
  width: number;
  height: number;
  /** SHA-256 of the file (hex): the renderer caches decoded logos by it. */
  sha256: string;
}

/** A validated invoice, ready to render. */
export interface Invoice {
  invoice_number: string;
  /** YYYY-MM-DD */
  date: string;
  /** YYYY-MM-DD, never before `date`. */
  due_date: string;
  /** Optional ISO 4217 code, upper case, e.g. "EUR". */
  currency?: string;
  sender: InvoiceParty;
  bill_to: InvoiceParty;
  items: InvoiceLineItem[];
  notes?: string;
  /** Sum of the line amounts, two decimals (BT-106). */
  subtotal: string;
  /** Invoice total with tax, two decimals (BT-112); the subtotal when there is no tax, discount or charge. */
  total: string;
  /** Default "invoice". */
  document_type: DocumentType;
  /** For a credit note: the invoice it corrects (BT-25). */
  preceding_invoice_number?: string;
  /** A supported BCP 47 tag; absent: the default output (English words, ISO dates). */
  locale?: string;
  /** Brand colour `#RRGGBB` (upper case) of the title, header rule and amount due. */
  brand_color?: string;
  /** Paper as requested; without it the locale's (letter for en-US, else A4). */
  page_size?: "a4" | "letter";
  /** The printed name of the tax, overriding the locale's ("VAT", "GST", …). */
  tax_label?: string;
  tax_exemption_reason?: string;
  discounts?: AllowanceCharge[];
  charges?: AllowanceCharge[];
  /** Sum of the discounts (BT-107). */
  discount_total?: string;
  /** Sum of the charges (BT-108). */
  charge_total?: string;
  /** False for invoices without tax information: nothing about tax is printed. */
  has_tax: boolean;
  tax_breakdown?: TaxBreakdownRow[];
  /** BT-109 (with tax or with discounts or charges). */
  total_without_tax?: string;
  /** BT-110 */
  tax_total?: string;
  /** BT-113 */
  amount_paid?: string;
  /** Total − amount paid + rounding amount (BT-115); negative when more was paid (a credit). */
  amount_due: string;
  /** BT-13 */
  purchase_order?: string;
  /** BT-10 */
  buyer_reference?: string;
  /** BT-20 */
  payment_terms?: string;
  payment?: PaymentDetails;
  logo?: InvoiceLogo;
  /** Actual delivery date, YYYY-MM-DD (BT-72). */
  delivery_date?: string;
  /** Invoicing period (BG-14): first and last day, YYYY-MM-DD. */
  billing_period?: { start: string; end: string };
  /** BT-114: added to total − amount paid, two decimals. */
  rounding_amount?: string;
  /** BT-6 */
  tax_currency?: string;
  /** BT-111, two decimals. */
  tax_total_in_tax_currency?: string;
  /** BT-12 */
  contract_reference?: string;
  /** BT-11 */
  project_reference?: string;
  /** BT-14 */
  sales_order_reference?: string;
  /** BT-15 */
  receiving_advice_reference?: string;
  /** BT-16 */
  despatch_advice_reference?: string;
  /** BT-17 */
  tender_reference?: string;
  /** BT-18 (scheme: UNTDID 1153). */
  invoiced_object?: SchemeIdentifier;
  /** BT-19 */
  accounting_reference?: string;
  /** BG-3 besides `preceding_invoice_number`: number (BT-25) and date (BT-26). */
  preceding_invoices?: { number: string; date?: string }[];
  /** BT-7, YYYY-MM-DD. */
  tax_point_date?: string;
  /** More notes (BT-21 subject code, BT-22 text), after `notes`. */
  additional_notes?: { subject_code?: string; text: string }[];
  /** BG-13 / BG-15 */
  deliver_to?: DeliverTo;
  /** BG-10 */
  payee?: Payee;
  /** BG-11 */
  tax_representative?: TaxRepresentative;
  /** BG-24 */
  attachments?: InvoiceAttachment[];
}
