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

/** Invoice (UNTDID 1001 code 380) or credit note (381). */
export type DocumentType = "invoice" | "credit_note";

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
  phone?: string;
  /** Contact person (seller contact BT-41 / buyer contact BT-56). */
  contact_name?: string;
  /** Where the party receives e-invoices: CEF EAS scheme and id (BT-34 / BT-49). */
  electronic_address?: { scheme: string; id: string };
}

/** One validated line item. */
export interface InvoiceLineItem {
  description: string;
  /** Integer > 0. */
  quantity: number;
  /** Price per unit as a plain decimal string, e.g. "1250.5", "0.125", "-20". */
  rate: string;
  /** quantity × rate rounded to cents, always two decimals (BT-131). */
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
}

/** A document-level discount (BG-20) or charge (BG-21). */
export interface AllowanceCharge {
  description: string;
  /** The amount, two decimals; computed for a percent one. */
  amount: string;
  /** The percent, when given as one (of `base_amount`). */
  percent?: string;
  /** The line subtotal a percent applies to, two decimals. */
  base_amount?: string;
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
  /** Total − amount paid (BT-115). */
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
}
